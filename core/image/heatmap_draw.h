#pragma once
// Drawing pieces shared by render_heatmap and render_grid (internal to core/image).
#include <string>
#include <vector>

#include "core/image/font.h"
#include "core/image/heatmap_image.h"

namespace hs::detail {

constexpr Rgb8 kTextColor{30, 30, 30};
constexpr Rgb8 kFrameColor{120, 120, 120};
constexpr int kColorbarWidth = 18;
constexpr int kColorbarGap = 16;    // map → colorbar
constexpr int kTickLength = 4;
constexpr int kLabelPad = 6;        // labels ↔ map
constexpr int kMinColorbarHeight = 120;

// The font to use, or nullptr when text is off or no font face exists.
const Font* text_font(const HeatmapOptions& options);

// lo/hi from the data's finite min/max when auto_range, else options.scale unchanged.
ColorScale resolve_scale(const HeatmapOptions& options, float data_min, float data_max);
void finite_min_max(const Matrix& m, float& lo, float& hi);  // widens lo/hi

// Label i of labels, at most max_chars code points ("…" marks a cut).
std::string shorten_label(const std::string& label, int max_chars, const Font& font);
// Draw every stride-th label so text of font_px never overlaps cells of cell_px.
int label_stride(int cell_px, int font_px);
// Widest (shortened) label in pixels; 0 without font or labels.
int max_label_width(const std::vector<std::string>& labels, const HeatmapOptions& options,
                    const Font* font);

// Throws hs::Error unless labels is empty or has `expected` entries.
void check_label_count(const std::vector<std::string>& labels, int expected, const char* what);

// Fills rows·cell_px × cols·cell_px pixels at map.x, map.y with colorize(m(i, j)).
void draw_cells(RgbImage& image, const Matrix& m, const PixelRect& map, int cell_px,
                Colormap cmap, const ColorScale& scale);
// Right-aligned labels ending kLabelPad left of map, centred on each row.
void draw_row_labels(RgbImage& image, const std::vector<std::string>& labels,
                     const PixelRect& map, int cell_px, const HeatmapOptions& options,
                     const Font& font);
// Labels rotated 90° CCW, ending kLabelPad above map, centred on each column.
void draw_col_labels(RgbImage& image, const std::vector<std::string>& labels,
                     const PixelRect& map, int cell_px, const HeatmapOptions& options,
                     const Font& font);

// Colorbar: value v = lo + (hi − lo)·(bar.bottom − 1 − y)/(bar.height − 1) at row y,
// coloured by colorize(v); frame, min/max ticks and their labels to the right.
std::string tick_text(float v);
int colorbar_label_width(const ColorScale& scale, int font_px, const Font* font);
void draw_colorbar(RgbImage& image, const PixelRect& bar, Colormap cmap,
                   const ColorScale& scale, int font_px, const Font* font);

// Text with its top-left at (x, y); returns the drawn width.
int draw_text(RgbImage& image, const Font& font, const std::string& text, int x, int y,
              int px, Rgb8 color);

}  // namespace hs::detail
