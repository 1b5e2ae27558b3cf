// render_heatmap: one (T_query, T_key) map with labels, colorbar and title.
#include "core/image/heatmap_image.h"

#include <algorithm>
#include <limits>

#include "core/error.h"
#include "core/image/heatmap_draw.h"

namespace hs {

PixelRect HeatmapLayout::cell(int row, int col) const {
    return {map.x + col * cell_px, map.y + row * cell_px, cell_px, cell_px};
}

namespace {

// Automatic cell size: big for small maps, ≥ 1 px, and the whole image within
// max_image_px when possible (overhead = pixels used by labels, colorbar, margins).
int choose_cell_px(const HeatmapOptions& o, int rows, int cols, int overhead_w, int overhead_h) {
    int cell = o.cell_px > 0 ? o.cell_px : std::max(1, o.target_map_px / std::max(rows, cols));
    cell = std::min(cell, std::max(1, (o.max_image_px - overhead_w) / cols));
    cell = std::min(cell, std::max(1, (o.max_image_px - overhead_h) / rows));
    return std::max(1, cell);
}

}  // namespace

HeatmapImage render_heatmap(const Matrix& m, const std::vector<std::string>& row_labels,
                            const std::vector<std::string>& col_labels,
                            const HeatmapOptions& options) {
    const int rows = static_cast<int>(m.rows()), cols = static_cast<int>(m.cols());
    if (rows == 0 || cols == 0)
        throw Error("cannot render an empty attention map (" + std::to_string(rows) + "x" +
                    std::to_string(cols) + ")");
    detail::check_label_count(row_labels, rows, "row");
    detail::check_label_count(col_labels, cols, "column");

    const Font* font = detail::text_font(options);
    float lo = std::numeric_limits<float>::infinity(), hi = -lo;
    detail::finite_min_max(m, lo, hi);

    HeatmapLayout layout;
    layout.rows = rows;
    layout.cols = cols;
    layout.scale = detail::resolve_scale(options, lo, hi);

    // 1. Text bands (all zero without a font).
    const int font_px = options.font_px;
    const int title_px = font_px + font_px / 3;
    const int margin = std::max(10, font_px);
    const bool has_title = font && !options.title.empty();
    const int title_h = has_title ? title_px + 1 + 8 : 0;
    const int title_w = has_title ? font->text_width(options.title, title_px) : 0;
    const int row_band = font && !row_labels.empty()
                             ? detail::max_label_width(row_labels, options, font) + detail::kLabelPad : 0;
    const int col_band = font && !col_labels.empty()
                             ? detail::max_label_width(col_labels, options, font) + detail::kLabelPad : 0;
    const int tick_w = font ? detail::colorbar_label_width(layout.scale, font_px, font) + 3 : 0;
    const int bar_extra = detail::kColorbarGap + detail::kColorbarWidth + 1 + detail::kTickLength + tick_w;

    // 2. Cells and rectangles.
    const int overhead_w = 2 * margin + row_band + bar_extra;
    const int overhead_h = 2 * margin + title_h + col_band;
    layout.cell_px = choose_cell_px(options, rows, cols, overhead_w, overhead_h);
    layout.map = {margin + row_band, margin + title_h + col_band, cols * layout.cell_px, rows * layout.cell_px};
    layout.row_labels = {margin, layout.map.y, row_band, layout.map.height};
    layout.col_labels = {layout.map.x, margin + title_h, layout.map.width, col_band};
    layout.colorbar = {layout.map.right() + detail::kColorbarGap, layout.map.y, detail::kColorbarWidth,
                  std::max(layout.map.height, detail::kMinColorbarHeight)};
    const int content_w = layout.colorbar.right() + 1 + detail::kTickLength + tick_w + margin;
    const int width = std::max(content_w, title_w + 2 * margin);
    const int height = std::max(layout.map.bottom(), layout.colorbar.bottom()) + margin;
    if (has_title) layout.title = {margin, margin, width - 2 * margin, title_px + 1};

    // 3. Draw: cells, colorbar, then text on top.
    HeatmapImage out{RgbImage(width, height), layout};
    detail::draw_cells(out.image, m, layout.map, layout.cell_px, options.colormap, layout.scale);
    detail::draw_colorbar(out.image, layout.colorbar, options.colormap, layout.scale, font_px, font);
    if (font) {
        detail::draw_row_labels(out.image, row_labels, layout.map, layout.cell_px, options, *font);
        detail::draw_col_labels(out.image, col_labels, layout.map, layout.cell_px, options, *font);
        if (has_title)
            detail::draw_text(out.image, *font, options.title, (width - title_w) / 2, margin,
                              title_px, detail::kTextColor);
    }
    return out;
}

}  // namespace hs
