#pragma once
// Drawing pieces shared by render_heatmap and render_grid (internal to core/image).
// Everything paints through a Painter, so PNG and SVG exports hold the same figure.
#include <string>
#include <vector>

#include "core/image/font.h"
#include "core/image/heatmap_image.h"
#include "core/image/painter.h"

namespace hs::detail {

constexpr Rgb8 kTextColor{30, 30, 30};
constexpr Rgb8 kFrameColor{120, 120, 120};
// Sizes at figure scale 1 (HeatmapOptions::figure_scale multiplies them).
constexpr int kColorbarWidth = 18;
constexpr int kColorbarGap = 16;    // map → colorbar
constexpr int kTickLength = 4;
constexpr int kLabelPad = 6;        // labels ↔ map
constexpr int kMinColorbarHeight = 120;

// `options` with every size multiplied by figure_scale (clamped to 1..8, returned in
// `scale`): cell_px, text, target sizes and max_image_px; figure_scale itself
// becomes 1 in the result, which is then drawn with TextBands::unit = scale.
HeatmapOptions scaled_options(const HeatmapOptions& options, int& scale);

// The font to use, or nullptr when text is off or no font face exists.
const Font* text_font(const HeatmapOptions& options);

// lo/hi from the data (finite min, robust_high) when auto_range, else options.scale unchanged.
ColorScale resolve_scale(const HeatmapOptions& options, float data_min, float data_max);

// A label as drawn: visible_token (a space token as ␣, control characters written out),
// at most max_chars code points ("…" marks a cut).
std::string shorten_label(const std::string& label, int max_chars, const Font& font);
// Draw every stride-th label so text of font_px never overlaps cells of cell_px.
int label_stride(int cell_px, int font_px);
// Widest (shortened) label in pixels; 0 without font or labels.
int max_label_width(const std::vector<std::string>& labels, const HeatmapOptions& options,
                    const Font* font);
// Throws hs::Error unless labels is empty or has `expected` entries.
void check_label_count(const std::vector<std::string>& labels, int expected, const char* what);

// Text with its top-left at (x, y) on a raster; returns the drawn width.
int draw_text(RgbImage& image, const Font& font, const std::string& text, int x, int y,
              int px, Rgb8 color);

// Pixels reserved around the map(s), shared by render_heatmap and render_grid; every text
// band is 0 without a font. All sizes already include the figure scale.
struct TextBands {
    int unit = 1;           // figure scale: fixed sizes (gaps, colorbar) are k · unit
    int font_px = 0;        // label text height
    int title_px = 0;       // title text height: font_px · 4/3
    int value_px = 0;       // cell value text height: cell/5 within [8·unit, font_px]
    int margin = 0;         // outer margin on every side: max(10·unit, font_px)
    int label_pad = 0;      // labels ↔ map
    bool has_title = false;
    int title_h = 0;        // title line plus the gap under it
    int title_w = 0;        // title text width
    int row_title_w = 0;    // rotated row axis title ("query") left of the row labels
    int col_title_h = 0;    // column axis title ("key") above the column labels
    int row_band = 0;       // row labels, left of the map(s)
    bool upright_cols = false;  // column labels horizontal (they fit their cells)
    int col_band = 0;       // column labels, above the map(s)
    int bar_gap = 0, bar_w = 0, tick_len = 0;
    int tick_w = 0;         // colorbar tick labels
    int bar_extra = 0;      // gap + colorbar + frame + tick + tick labels, right of the map(s)
};
// cell_px_hint: the cell size the labels will sit on (upright column labels need it ≥
// their width); 0 when unknown (rotated).
TextBands text_bands(const HeatmapOptions& options, int unit, const Font* font, const ColorScale& scale,
                     const std::vector<std::string>& row_labels,
                     const std::vector<std::string>& col_labels, int cell_px_hint);

// Right-aligned labels ending label_pad left of map, centred on each row.
void draw_row_labels(Painter& p, const std::vector<std::string>& labels, const PixelRect& map,
                     int cell_px, const HeatmapOptions& options, const TextBands& b, const Font& font);
// Labels above map: upright and centred on each column when b.upright_cols, else rotated
// 90° CCW (reading upwards) ending label_pad above map.
void draw_col_labels(Painter& p, const std::vector<std::string>& labels, const PixelRect& map,
                     int cell_px, const HeatmapOptions& options, const TextBands& b, const Font& font);
// The axis titles (options.row_axis_title rotated, left of the row labels;
// options.col_axis_title above the column labels), centred on map.
void draw_axis_titles(Painter& p, const PixelRect& map, const HeatmapOptions& options,
                      const TextBands& b);
// Whether options ask for cell values and m's widest value fits a cell of cell_px.
bool cell_values_fit(const Matrix& m, int cell_px, const HeatmapOptions& options, const TextBands& b,
                     const Font& font);
// Each cell's value (value_text) in black or white, whichever reads on its colour, when
// `fit` (cell_values_fit, for this map or for every map of a grid, so a grid shows values
// in all its thumbnails or in none); returns whether values were drawn.
bool draw_cell_values(Painter& p, const Matrix& m, const PixelRect& map, int cell_px,
                      const HeatmapOptions& options, const ColorScale& scale, const TextBands& b, bool fit);
// "0.25", "0.007", "1": two significant digits for |v| < 1 (at most 3 decimals), else 3;
// exactly 0 (a masked cell of a softmax) prints nothing.
std::string value_text(float v);

// Colorbar: the colormap evenly from bottom to top, t = (bar.bottom − 1 − y)/(bar.height − 1)
// at row y (as the window's bar); a tick for value v at the row of t = scale.normalized(v),
// so under a log scale or a gamma the ticks are spaced as the colours are; frame, ticks
// at colorbar_ticks() and their labels to the right.
std::string tick_text(float v, int digits = 3);  // "%.3g"
// The labels of `ticks`: 3 significant digits, more (up to 7) until neighbours differ
// (log over [0.9, 1]: 0.9003 beside 0.9).
std::vector<std::string> tick_texts(const std::vector<float>& ticks);
// "Nice" values (1, 2, 2.5 or 5 × 10^k steps, 3 to 7 of them) within [lo, hi], always
// including lo and hi themselves; {lo} when lo == hi.
std::vector<float> colorbar_ticks(float lo, float hi);
// The ticks of a scale: colorbar_ticks(lo, hi) when linear; under a log scale or a gamma,
// the values at t = 0, 0.2, …, 1 of the bar, inside values rounded to one significant
// digit (log over [0, 1]: 0, 0.003, 0.01, 0.06, 0.3, 1), so they spread over the bar
// instead of crowding at one end.
std::vector<float> colorbar_ticks(const ColorScale& scale);
int colorbar_label_width(const ColorScale& scale, int font_px, const Font* font);
// clipped_high: the top tick reads "≥ hi" (larger values share the top colour).
void draw_colorbar(Painter& p, const PixelRect& bar, Colormap cmap, const ColorScale& scale,
                   const TextBands& b, const Font* font, bool clipped_high = false);

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
void draw_title(Painter& p, const std::string& title, const TextBands& bands, int canvas_width);

}  // namespace hs::detail
