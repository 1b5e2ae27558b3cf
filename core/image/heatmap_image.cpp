// render_heatmap: one (T_query, T_key) map with labels, colorbar and title.
#include "core/image/heatmap_image.h"

#include <algorithm>
#include <limits>

#include "core/error.h"
#include "core/image/box_mean.h"
#include "core/image/heatmap_draw.h"

namespace hs {

PixelRect HeatmapLayout::cell(int row, int col) const {
    return {map.x + col * cell_px, map.y + row * cell_px, cell_px, cell_px};
}

std::string shrink_note(int rows, int cols, int source_rows, int source_cols, int max_image_px) {
    if (rows == source_rows && cols == source_cols) return "";
    return "each " + std::to_string(source_rows) + "×" + std::to_string(source_cols) + " map is drawn as " +
           std::to_string(rows) + "×" + std::to_string(cols) + " block means to keep the image within " +
           std::to_string(max_image_px) + " px";
}

std::string shrink_note(const HeatmapLayout& l, const HeatmapOptions& options) {
    return shrink_note(l.rows, l.cols, l.source_rows, l.source_cols, options.max_image_px);
}

std::string shrink_note(const GridLayout& l, const HeatmapOptions& options) {
    return shrink_note(l.rows, l.cols, l.source_rows, l.source_cols, options.max_image_px);
}

HeatmapImage render_heatmap(const Matrix& m, const std::vector<std::string>& row_labels,
                            const std::vector<std::string>& col_labels,
                            const HeatmapOptions& options) {
    const int rows = static_cast<int>(m.rows()), cols = static_cast<int>(m.cols());
    if (rows == 0 || cols == 0)
        throw Error("cannot render an empty attention map (" + std::to_string(rows) + "x" +
                    std::to_string(cols) + ")");
    detail::check_label_count(row_labels, rows, "row");
    detail::check_label_count(col_labels, cols, "column");

    float lo = std::numeric_limits<float>::infinity(), hi = -lo;
    detail::finite_min_max(m, lo, hi);
    // More cells than the image can hold at 1 px each: block means of the map.
    const int room = options.max_image_px - detail::kShrunkOverhead;
    if (options.cell_px == 0 && room > 0 && (rows > room || cols > room)) {
        const double f = std::min(double(room) / rows, double(room) / cols);  // keeps the aspect
        const int r2 = std::max(1, int(rows * f)), c2 = std::max(1, int(cols * f));
        HeatmapImage out = render_heatmap(box_mean(m, r2, c2), {}, {},
                                          detail::shrunk_options(options, lo, hi));
        out.layout.source_rows = rows;
        out.layout.source_cols = cols;
        return out;
    }

    const Font* font = detail::text_font(options);

    HeatmapLayout layout;
    layout.rows = layout.source_rows = rows;
    layout.cols = layout.source_cols = cols;
    layout.scale = detail::resolve_scale(options, lo, hi);

    // 1. Text bands (all zero without a font).
    const detail::TextBands b = detail::text_bands(options, font, layout.scale, row_labels, col_labels);

    // 2. Cells (big for small maps, the whole image within max_image_px) and rectangles.
    const int overhead_w = 2 * b.margin + b.row_band + b.bar_extra;
    const int overhead_h = 2 * b.margin + b.title_h + b.col_band;
    layout.cell_px = detail::fit_cell_px(options, options.target_map_px, rows, cols, cols, rows,
                                         overhead_w, overhead_h);
    layout.map = {b.margin + b.row_band, b.margin + b.title_h + b.col_band, cols * layout.cell_px,
                  rows * layout.cell_px};
    layout.row_labels = {b.margin, layout.map.y, b.row_band, layout.map.height};
    layout.col_labels = {layout.map.x, b.margin + b.title_h, layout.map.width, b.col_band};
    layout.colorbar = {layout.map.right() + detail::kColorbarGap, layout.map.y, detail::kColorbarWidth,
                       std::max(layout.map.height, detail::kMinColorbarHeight)};
    const detail::Canvas canvas = detail::canvas_around(b, layout.colorbar, layout.map.bottom());
    layout.title = canvas.title;

    // 3. Draw: cells, colorbar, then text on top.
    detail::check_image_size(canvas.width, canvas.height);
    HeatmapImage out{RgbImage(canvas.width, canvas.height), layout};
    detail::draw_cells(out.image, m, layout.map, layout.cell_px, options.colormap, layout.scale);
    detail::draw_colorbar(out.image, layout.colorbar, options.colormap, layout.scale, b.font_px, font);
    if (font) {
        detail::draw_row_labels(out.image, row_labels, layout.map, layout.cell_px, options, *font);
        detail::draw_col_labels(out.image, col_labels, layout.map, layout.cell_px, options, *font);
        detail::draw_title(out.image, *font, options.title, b);
    }
    return out;
}

}  // namespace hs
