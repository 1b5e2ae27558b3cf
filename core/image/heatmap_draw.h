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

// Pixels reserved around the map(s) for text, shared by render_heatmap and render_grid;
// every text band is 0 without a font.
struct TextBands {
    int font_px = 0;        // label text height
    int title_px = 0;       // title text height: font_px · 4/3
    int margin = 0;         // outer margin on every side: max(10, font_px)
    bool has_title = false;
    int title_h = 0;        // title line plus the gap under it
    int title_w = 0;        // title text width
    int row_band = 0;       // row labels, left of the map(s)
    int col_band = 0;       // column labels, above the map(s)
    int tick_w = 0;         // colorbar tick labels
    int bar_extra = 0;      // gap + colorbar + frame + tick + tick labels, right of the map(s)
};
TextBands text_bands(const HeatmapOptions& options, const Font* font, const ColorScale& scale,
                     const std::vector<std::string>& row_labels,
                     const std::vector<std::string>& col_labels);

// Automatic cell size: options.cell_px when set, else max(1, target_px / max(rows, cols)),
// shrunk so cells_across × cells_down cells plus the overhead fit in max_image_px; ≥ 1.
// Room the cells of shrunk maps leave for margins, colorbar and ticks (labels dropped).
constexpr int kShrunkOverhead = 256;

// `options` for drawing shrunk maps: no labels, and an auto range fixed from the
// original maps' finite values (block means would narrow it).
HeatmapOptions shrunk_options(const HeatmapOptions& options, float lo, float hi);

// Throws hs::Error when a width × height image exceeds kMaxImagePixels.
void check_image_size(long long width, long long height);

int fit_cell_px(const HeatmapOptions& options, int target_px, int rows, int cols,
                int cells_across, int cells_down, int overhead_w, int overhead_h);

// Image size once the colorbar is placed: wide enough for its tick labels and the title,
// tall enough for content and colorbar, plus the margin. Sets the title rectangle (empty
// without a title).
struct Canvas {
    int width = 0, height = 0;
    PixelRect title;
};
Canvas canvas_around(const TextBands& bands, const PixelRect& colorbar, int content_bottom);

// The title centred in the top band (nothing without a title).
void draw_title(RgbImage& image, const Font& font, const std::string& title,
                const TextBands& bands);

}  // namespace hs::detail
