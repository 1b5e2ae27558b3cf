#pragma once
// CPU rendering of attention maps into RGB images (for PNG export and tests).
// Axis convention: a map is (T_query, T_key) = (rows, cols); rows run top to bottom,
// cols left to right. Each cell is a cell_px × cell_px block whose colour is exactly
// colorize(m(i, j), colormap, scale), the same rule the app's shader uses.
//
// Single map:                        Grid (all layers × heads):
//            title                                  title
//       [col labels, rotated]            [col labels]  L0 H0      L0 H1  ...  ┌┐ hi
//  row  ┌──────────────┐ ┌┐ hi          row labels     [thumb]    [thumb]     ││
//  lbls │     map      │ ││                            L1 H0      L1 H1       ││
//       └──────────────┘ └┘ lo          row labels     [thumb]    [thumb]     └┘ lo
#include <string>
#include <vector>

#include "core/image/colormap.h"
#include "core/image/rgb_image.h"
#include "core/model/robust_range.h"
#include "core/tensor.h"

namespace hs {

class Font;


struct HeatmapOptions {
    Colormap colormap = Colormap::Viridis;
    ColorScale scale;           // value range/gamma/log; attention weights: lo 0, hi 1
    bool auto_range = false;    // true: scale.lo = min, scale.hi = robust_high of the finite data
    std::string title;          // empty: no title line
    int cell_px = 0;            // side of one cell in pixels; 0 = automatic:
    int target_map_px = 768;    //   single map: cell = max(1, target_map_px / max(T_q, T_k))
    int target_thumb_px = 160;  //   grid: cell = max(1, target_thumb_px / max(T_q, T_k)),
    int max_image_px = 4096;    //   shrunk so the image stays ≤ max_image_px (cells ≥ 1 px)
    int font_px = 14;           // label text height in pixels
    int max_label_chars = 16;   // longer token labels are truncated with "…"
    bool draw_text = true;      // false: no labels/title/ticks at all
    const Font* font = nullptr; // nullptr: Font::system_default() (may have no face)
    // Figures for print: each cell's value when it fits (exactly 0, a masked cell, prints
    // nothing), axis titles ("query" left of the rows, "key" above the columns), and every
    // size × figure_scale (1, 2 or 4: the same figure at 2× or 4× the pixels).
    bool cell_values = false;
    std::string row_axis_title, col_axis_title;
    int figure_scale = 1;
};

// Maps with more cells than max_image_px allows at 1 px per cell are shrunk by block
// means (box_mean) until they fit, without labels (they could not be read at that size);
// the layouts then say which size they came from. No image is made over this many pixels
// (16384², 768 MB of RGB): beyond it (an explicit cell_px) hs::Error names the size.
constexpr long long kMaxImagePixels = 16384LL * 16384LL;

// "each 2048×2048 map is drawn as 340×340 block means to keep the image within 4096 px"
// when a layout's maps were shrunk, else "" (the overloads below take an image's layout
// and the options it was drawn with).
std::string shrink_note(int rows, int cols, int source_rows, int source_cols, int max_image_px);

struct HeatmapLayout {
    int rows = 0, cols = 0;     // T_query, T_key as drawn
    int source_rows = 0, source_cols = 0;  // before shrinking (= rows, cols when not shrunk)
    int cell_px = 0;
    int max_image_px = 0;       // the image limit drawn under (options × figure scale)
    ColorScale scale;           // the scale actually used (after auto_range)
    bool clipped_high = false;  // auto range stopped below the map's max (robust_high)
    PixelRect map;              // rows·cell_px tall, cols·cell_px wide
    PixelRect colorbar;         // the gradient strip: top = scale.hi, bottom = scale.lo
    PixelRect title;            // empty when there is no title
    PixelRect row_labels;       // band left of the map (right-aligned labels)
    PixelRect col_labels;       // band above the map (labels rotated 90°, reading upwards,
                                //   or upright when the widest fits a cell)
    bool upright_col_labels = false;
    bool cell_values = false;   // each cell's value was drawn in it
    PixelRect cell(int row, int col) const;
};

struct HeatmapImage {
    RgbImage image;
    HeatmapLayout layout;
};

// m: (T_query, T_key). Labels are empty (no labels) or one per row / column.
// Throws hs::Error for an empty map or a label count that does not match.
HeatmapImage render_heatmap(const Matrix& m, const std::vector<std::string>& row_labels,
                            const std::vector<std::string>& col_labels,
                            const HeatmapOptions& options);
// The same figure as an SVG document (core/image/painter.h: text stays text).
struct HeatmapSvg {
    std::string svg;
    HeatmapLayout layout;
};
HeatmapSvg render_heatmap_svg(const Matrix& m, const std::vector<std::string>& row_labels,
                              const std::vector<std::string>& col_labels, const HeatmapOptions& options);

struct GridLayout {
    int layers = 0, heads = 0;  // L, H
    int rows = 0, cols = 0;     // T_query, T_key of every map as drawn
    int source_rows = 0, source_cols = 0;  // before shrinking (= rows, cols when not shrunk)
    int cell_px = 0;
    int max_image_px = 0;       // the image limit drawn under (options × figure scale)
    ColorScale scale;           // shared by all thumbnails (auto_range: min over all maps,
                                //   the largest of the maps' robust_high)
    bool clipped_high = false;
    std::vector<PixelRect> thumbs;    // [l * heads + h]: the map area of layer l, head h
    std::vector<PixelRect> captions;  // [l * heads + h]: "L{l}.H{h}" text area
    PixelRect colorbar;
    PixelRect title;
    PixelRect thumb(int layer, int head) const;
    PixelRect cell(int layer, int head, int row, int col) const;
};

struct GridImage {
    RgbImage image;
    GridLayout layout;
};

// maps[l][h]: (T_query, T_key), all the same shape, every layer the same head count.
// Token labels are drawn left of each layer's first thumbnail (rows) and above the
// first layer's thumbnails (cols), skipping labels where cells are smaller than text.
GridImage render_grid(const std::vector<std::vector<Matrix>>& maps,
                      const std::vector<std::string>& row_labels,
                      const std::vector<std::string>& col_labels,
                      const HeatmapOptions& options);
struct GridSvg {
    std::string svg;
    GridLayout layout;
};
GridSvg render_grid_svg(const std::vector<std::vector<Matrix>>& maps, const std::vector<std::string>& row_labels,
                        const std::vector<std::string>& col_labels, const HeatmapOptions& options);

// A cell's value as figures and the window print it: "0.25", "0.007", "1.00" (exactly 1
// or 0.996 alike), "12.3", "4e-04" (two decimals from 0.095 to 10, three significant
// digits above, at most three decimals below); exactly 0 (a masked cell) prints nothing.
std::string cell_value_text(float v);

// An attention map's axis titles: "query" / "key", or for cross-attention "query
// (decoder token)" / "key (encoder token)". Shared by the window's exports and the CLI.
void set_attention_axis_titles(HeatmapOptions& options, bool cross_attention);

// A figure's title: "MODEL · WHAT · \"TEXT\"", the text cut to max_text_chars code points
// ("…") and its whitespace runs shown as one space; MODEL's directory part is dropped
// ("/a/b/stories260K" → "stories260K"). No text part for an empty text.
std::string figure_title(const std::string& model, const std::string& what, const std::string& text,
                         int max_text_chars = 48);
// The model part of figure_title: a path's last component; a playground spec's size
// ("random:d_model=48,heads=4,layers=2,seed=3,…" → "playground (d_model=48, heads=4,
// layers=2)"); other names unchanged.
std::string figure_model_name(const std::string& model);

std::string shrink_note(const HeatmapLayout& layout, const HeatmapOptions& options);
std::string shrink_note(const GridLayout& layout, const HeatmapOptions& options);

}  // namespace hs
