// render_heatmap: one (T_query, T_key) map with labels, colorbar and title.
#include "core/image/heatmap_image.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "core/image/box_mean.h"
#include "core/image/heatmap_draw.h"
#include "core/image/utf8.h"

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

void set_attention_axis_titles(HeatmapOptions& options, bool cross_attention) {
    options.row_axis_title = cross_attention ? "query (decoder token)" : "query";
    options.col_axis_title = cross_attention ? "key (encoder token)" : "key";
}

std::string figure_model_name(const std::string& model) {
    // A playground spec lists every field: its size is what a reader needs.
    if (model.rfind("random:", 0) == 0) {
        std::string shown;
        std::size_t start = 7;
        while (start <= model.size()) {
            const std::size_t comma = std::min(model.find(',', start), model.size());
            const std::string field = model.substr(start, comma - start);
            const std::string key = field.substr(0, field.find('='));
            if (key == "d_model" || key == "heads" || key == "layers") shown += (shown.empty() ? "" : ", ") + field;
            start = comma + 1;
        }
        return "playground (" + shown + ")";
    }
    std::string name = model;
    // A path's last component (a trailing '/' ignored); specs such as "random:d_model=8" stay.
    while (name.size() > 1 && name.back() == '/') name.pop_back();
    if (const auto slash = name.find_last_of('/'); slash != std::string::npos && name.find(':') == std::string::npos)
        name = name.substr(slash + 1);
    return name;
}

std::string figure_title(const std::string& model, const std::string& what, const std::string& text,
                         int max_text_chars) {
    std::string title = figure_model_name(model) + " · " + what;
    std::u32string shown;
    for (char32_t cp : utf8_to_codepoints(text)) {
        const bool space = cp == U' ' || cp == U'\t' || cp == U'\n' || cp == U'\r';
        if (space && (shown.empty() || shown.back() == U' ')) continue;
        shown += space ? U' ' : cp;
    }
    while (!shown.empty() && shown.back() == U' ') shown.pop_back();
    if (shown.empty()) return title;
    if (max_text_chars > 1 && static_cast<int>(shown.size()) > max_text_chars)
        shown = shown.substr(0, static_cast<std::size_t>(max_text_chars - 1)) + U"…";
    return title + " · \"" + codepoints_to_utf8(shown) + "\"";
}

std::string shrink_note(const HeatmapLayout& l, const HeatmapOptions& options) {
    return shrink_note(l.rows, l.cols, l.source_rows, l.source_cols, l.max_image_px > 0 ? l.max_image_px : options.max_image_px);
}

std::string shrink_note(const GridLayout& l, const HeatmapOptions& options) {
    return shrink_note(l.rows, l.cols, l.source_rows, l.source_cols, l.max_image_px > 0 ? l.max_image_px : options.max_image_px);
}

namespace {

// Everything needed to paint one map: its layout, text bands and the options drawn with
// (already multiplied by the figure scale).
struct HeatmapPlan {
    HeatmapLayout layout;
    detail::TextBands bands;
    detail::Canvas canvas;
    HeatmapOptions options;
    const Font* font = nullptr;
    Matrix shrunk;                 // block means when the map was too large, else empty
    bool labelled = true;          // false for shrunk maps (labels could not be read)
};

// Shape/label checks, shrinking, cell size and rectangles (core/image/heatmap_image.h).
HeatmapPlan plan_heatmap(const Matrix& m, const std::vector<std::string>& row_labels,
                         const std::vector<std::string>& col_labels, const HeatmapOptions& requested) {
    const int rows = static_cast<int>(m.rows()), cols = static_cast<int>(m.cols());
    if (rows == 0 || cols == 0)
        throw Error("cannot render an empty attention map (" + std::to_string(rows) + "x" +
                    std::to_string(cols) + ")");
    detail::check_label_count(row_labels, rows, "row");
    detail::check_label_count(col_labels, cols, "column");

    HeatmapPlan plan;
    int unit = 1;
    plan.options = detail::scaled_options(requested, unit);
    const HeatmapOptions& options = plan.options;
    float lo = std::numeric_limits<float>::infinity(), hi = -lo;
    detail::finite_min_max(m, lo, hi);
    const float auto_hi = options.auto_range ? robust_high(m, lo, hi) : hi;
    // More cells than the image can hold at 1 px each: block means of the map, unlabelled.
    const int room = options.max_image_px - detail::kShrunkOverhead * unit;
    const Matrix* drawn = &m;
    if (options.cell_px == 0 && room > 0 && (rows > room || cols > room)) {
        const double f = std::min(double(room) / rows, double(room) / cols);  // keeps the aspect
        const int r2 = std::max(1, int(rows * f)), c2 = std::max(1, int(cols * f));
        plan.shrunk = box_mean(m, r2, c2);
        plan.options = detail::shrunk_options(options, lo, auto_hi);
        plan.labelled = false;
        drawn = &plan.shrunk;
    }
    // At 2× or 4× the cells are the 1× figure's cells times the scale (not the target size
    // times the scale, whose division by T would round differently).
    if (unit > 1 && requested.cell_px == 0 && plan.labelled)
        plan.options.cell_px = unit * std::max(1, requested.target_map_px / std::max(rows, cols));
    const std::vector<std::string> none;
    const auto& rl = plan.labelled ? row_labels : none;
    const auto& cl = plan.labelled ? col_labels : none;
    plan.font = detail::text_font(options);

    HeatmapLayout& layout = plan.layout;
    layout.rows = static_cast<int>(drawn->rows());
    layout.cols = static_cast<int>(drawn->cols());
    layout.source_rows = rows;
    layout.source_cols = cols;
    layout.max_image_px = plan.options.max_image_px;
    layout.scale = detail::resolve_scale(plan.options, lo, auto_hi);
    layout.clipped_high = requested.auto_range && auto_hi < hi;

    // 1. Cells sized with rotated column labels reserved, then the bands for that size
    //    (upright labels when they fit a cell: a shorter band, same cells).
    const auto overhead = [&](const detail::TextBands& b, int& w, int& h) {
        w = 2 * b.margin + b.row_title_w + b.row_band + b.bar_extra;
        h = 2 * b.margin + b.title_h + b.col_title_h + b.col_band;
    };
    int overhead_w = 0, overhead_h = 0;
    overhead(detail::text_bands(plan.options, unit, plan.font, layout.scale, rl, cl, 0), overhead_w, overhead_h);
    layout.cell_px = detail::fit_cell_px(plan.options, plan.options.target_map_px, layout.rows, layout.cols,
                                         layout.cols, layout.rows, overhead_w, overhead_h);
    plan.bands = detail::text_bands(plan.options, unit, plan.font, layout.scale, rl, cl, layout.cell_px);
    const detail::TextBands& b = plan.bands;

    // 2. Rectangles.
    const int left = b.margin + b.row_title_w + b.row_band;
    const int top = b.margin + b.title_h + b.col_title_h + b.col_band;
    layout.map = {left, top, layout.cols * layout.cell_px, layout.rows * layout.cell_px};
    layout.row_labels = {left - b.row_band, top, b.row_band, layout.map.height};
    layout.col_labels = {left, top - b.col_band, layout.map.width, b.col_band};
    layout.upright_col_labels = b.upright_cols;
    layout.colorbar = {layout.map.right() + b.bar_gap, top, b.bar_w,
                       std::max(layout.map.height, detail::kMinColorbarHeight * unit)};
    plan.canvas = detail::canvas_around(b, layout.colorbar, layout.map.bottom());
    layout.title = plan.canvas.title;
    detail::check_image_size(plan.canvas.width, plan.canvas.height);
    return plan;
}

// Cells, colorbar, then text on top (values, labels, axis titles, title).
void paint_heatmap(HeatmapPlan& plan, const Matrix& m, const std::vector<std::string>& row_labels,
                   const std::vector<std::string>& col_labels, Painter& p) {
    const Matrix& drawn = plan.labelled ? m : plan.shrunk;
    HeatmapLayout& l = plan.layout;
    const detail::TextBands& b = plan.bands;
    p.cells(drawn, l.map, l.cell_px, plan.options.colormap, l.scale);
    detail::draw_colorbar(p, l.colorbar, plan.options.colormap, l.scale, b, plan.font, l.clipped_high);
    if (!plan.font) return;
    l.cell_values = detail::draw_cell_values(p, drawn, l.map, l.cell_px, plan.options, l.scale, b,
                                             detail::cell_values_fit(drawn, l.cell_px, plan.options, b, *plan.font));
    if (plan.labelled) {
        detail::draw_row_labels(p, row_labels, l.map, l.cell_px, plan.options, b, *plan.font);
        detail::draw_col_labels(p, col_labels, l.map, l.cell_px, plan.options, b, *plan.font);
    }
    detail::draw_axis_titles(p, l.map, plan.options, b);
    detail::draw_title(p, plan.options.title, b, plan.canvas.width);
}

}  // namespace

HeatmapImage render_heatmap(const Matrix& m, const std::vector<std::string>& row_labels,
                            const std::vector<std::string>& col_labels, const HeatmapOptions& options) {
    HeatmapPlan plan = plan_heatmap(m, row_labels, col_labels, options);
    RgbImage image(plan.canvas.width, plan.canvas.height);
    RasterPainter painter(image, plan.font);
    paint_heatmap(plan, m, row_labels, col_labels, painter);
    return {std::move(image), plan.layout};
}

HeatmapSvg render_heatmap_svg(const Matrix& m, const std::vector<std::string>& row_labels,
                              const std::vector<std::string>& col_labels, const HeatmapOptions& options) {
    HeatmapPlan plan = plan_heatmap(m, row_labels, col_labels, options);
    SvgPainter painter(plan.canvas.width, plan.canvas.height, plan.font);
    paint_heatmap(plan, m, row_labels, col_labels, painter);
    return {painter.finish(), plan.layout};
}

}  // namespace hs
