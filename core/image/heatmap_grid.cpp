// render_grid: every layer × head as a thumbnail, one shared scale and colorbar.
#include <algorithm>
#include <limits>

#include "core/error.h"
#include "core/image/box_mean.h"
#include "core/image/heatmap_draw.h"
#include "core/image/heatmap_image.h"

namespace hs {

PixelRect GridLayout::thumb(int layer, int head) const {
    return thumbs.at(static_cast<std::size_t>(layer) * heads + head);
}

PixelRect GridLayout::cell(int layer, int head, int row, int col) const {
    const PixelRect t = thumb(layer, head);
    return {t.x + col * cell_px, t.y + row * cell_px, cell_px, cell_px};
}

namespace {

constexpr int kThumbGapX = 12;
constexpr int kThumbGapY = 10;

// Checks maps[l][h] are all (rows, cols) with the same head count per layer.
void check_grid_shapes(const std::vector<std::vector<Matrix>>& maps, int& rows, int& cols) {
    if (maps.empty() || maps.front().empty())
        throw Error("cannot render an attention grid with no layers or no heads");
    rows = static_cast<int>(maps[0][0].rows());
    cols = static_cast<int>(maps[0][0].cols());
    if (rows == 0 || cols == 0) throw Error("cannot render an attention grid of empty maps");
    for (std::size_t l = 0; l < maps.size(); ++l) {
        if (maps[l].size() != maps[0].size())
            throw Error("layer " + std::to_string(l) + " has " + std::to_string(maps[l].size()) +
                        " heads but layer 0 has " + std::to_string(maps[0].size()));
        for (std::size_t h = 0; h < maps[l].size(); ++h)
            if (maps[l][h].rows() != rows || maps[l][h].cols() != cols)
                throw Error("map L" + std::to_string(l) + " H" + std::to_string(h) + " is " +
                            std::to_string(maps[l][h].rows()) + "x" + std::to_string(maps[l][h].cols()) +
                            " but L0 H0 is " + std::to_string(rows) + "x" + std::to_string(cols));
    }
}

std::string caption_text(int layer, int head) {
    // Appending (not "L" + std::string) avoids a GCC 12 -Wrestrict false positive.
    std::string text = "L";
    text += std::to_string(layer);
    text += ".H";
    text += std::to_string(head);
    return text;
}

}  // namespace

namespace {

// Layout and text bands of a grid (sizes already × the figure scale), as HeatmapPlan.
struct GridPlan {
    GridLayout layout;
    detail::TextBands bands;
    detail::Canvas canvas;
    HeatmapOptions options;
    const Font* font = nullptr;
    int caption_h = 0;
    std::vector<std::vector<Matrix>> shrunk;  // block means when the maps were too large
    bool labelled = true;
};

GridPlan plan_grid(const std::vector<std::vector<Matrix>>& maps, const std::vector<std::string>& row_labels,
                   const std::vector<std::string>& col_labels, const HeatmapOptions& requested) {
    GridPlan plan;
    GridLayout& grid = plan.layout;
    check_grid_shapes(maps, grid.rows, grid.cols);
    detail::check_label_count(row_labels, grid.rows, "row");
    detail::check_label_count(col_labels, grid.cols, "column");
    grid.layers = static_cast<int>(maps.size());
    grid.heads = static_cast<int>(maps[0].size());
    grid.source_rows = grid.rows;
    grid.source_cols = grid.cols;
    int unit = 1;
    plan.options = detail::scaled_options(requested, unit);
    const int gap_x = kThumbGapX * unit, gap_y = kThumbGapY * unit;

    float lo = std::numeric_limits<float>::infinity(), hi = -lo;
    for (const auto& layer : maps)
        for (const Matrix& m : layer) detail::finite_min_max(m, lo, hi);
    // Auto range top: the largest of the maps' own robust highs (as the window's grid).
    float top = -std::numeric_limits<float>::infinity();
    for (const auto& layer : maps)
        for (const Matrix& m : layer) {
            float map_lo = std::numeric_limits<float>::infinity(), map_hi = -map_lo;
            detail::finite_min_max(m, map_lo, map_hi);
            if (map_lo <= map_hi) top = std::max(top, requested.auto_range ? robust_high(m, map_lo, map_hi) : map_hi);
        }
    if (!(top >= lo)) top = hi;
    // More cells than the image can hold at 1 px each: block means of every map, sized so
    // H thumbnails across and L down (with their gaps and captions) fit.
    const HeatmapOptions& o = plan.options;
    const int caption_room = o.font_px + 4 * unit;
    const int spare = o.max_image_px - detail::kShrunkOverhead * unit;
    const int across = (spare - (grid.heads - 1) * gap_x) / grid.heads;
    const int down = (spare - grid.layers * caption_room - (grid.layers - 1) * gap_y) / grid.layers;
    if (o.cell_px == 0 && across > 0 && down > 0 && (grid.cols > across || grid.rows > down)) {
        // One factor for both sides, so thumbnails keep the maps' aspect.
        const double f = std::min({1.0, double(across) / grid.cols, double(down) / grid.rows});
        const int r2 = std::max(1, int(grid.rows * f)), c2 = std::max(1, int(grid.cols * f));
        plan.shrunk.resize(maps.size());
        for (std::size_t l = 0; l < maps.size(); ++l)
            for (const Matrix& m : maps[l]) plan.shrunk[l].push_back(box_mean(m, r2, c2));
        plan.options = detail::shrunk_options(plan.options, lo, top);
        plan.labelled = false;
        grid.rows = r2;
        grid.cols = c2;
    }
    // At 2× or 4×: the 1× figure's cells times the scale (see plan_heatmap).
    if (unit > 1 && requested.cell_px == 0 && plan.labelled)
        plan.options.cell_px = unit * std::max(1, requested.target_thumb_px / std::max(grid.rows, grid.cols));
    const std::vector<std::string> none;
    const auto& rl = plan.labelled ? row_labels : none;
    const auto& cl = plan.labelled ? col_labels : none;
    plan.font = detail::text_font(plan.options);
    grid.max_image_px = plan.options.max_image_px;
    grid.scale = detail::resolve_scale(plan.options, lo, top);
    grid.clipped_high = requested.auto_range && top < hi;
    plan.caption_h = plan.font ? plan.options.font_px + 1 + 3 * unit : 0;

    // 1. Cell size per thumbnail (rotated column labels reserved), shrunk so H thumbnails
    //    across and L down fit; then the bands for that size.
    const auto overhead = [&](const detail::TextBands& b, int& w, int& h) {
        w = 2 * b.margin + b.row_title_w + b.row_band + b.bar_extra + (grid.heads - 1) * gap_x;
        h = 2 * b.margin + b.title_h + b.col_title_h + b.col_band + grid.layers * plan.caption_h +
            (grid.layers - 1) * gap_y;
    };
    int overhead_w = 0, overhead_h = 0;
    overhead(detail::text_bands(plan.options, unit, plan.font, grid.scale, rl, cl, 0), overhead_w, overhead_h);
    grid.cell_px = detail::fit_cell_px(plan.options, plan.options.target_thumb_px, grid.rows, grid.cols,
                                       grid.heads * grid.cols, grid.layers * grid.rows, overhead_w, overhead_h);
    plan.bands = detail::text_bands(plan.options, unit, plan.font, grid.scale, rl, cl, grid.cell_px);
    const detail::TextBands& b = plan.bands;

    // 2. Rectangles: thumbnail (l, h) sits under its caption.
    const int thumb_w = grid.cols * grid.cell_px, thumb_h = grid.rows * grid.cell_px;
    const int x0 = b.margin + b.row_title_w + b.row_band, y0 = b.margin + b.title_h + b.col_title_h + b.col_band;
    for (int l = 0; l < grid.layers; ++l)
        for (int h = 0; h < grid.heads; ++h) {
            const int x = x0 + h * (thumb_w + gap_x);
            const int y = y0 + l * (plan.caption_h + thumb_h + gap_y);
            grid.captions.push_back({x, y, thumb_w, plan.caption_h});
            grid.thumbs.push_back({x, y + plan.caption_h, thumb_w, thumb_h});
        }
    const PixelRect& first = grid.thumbs.front();
    const PixelRect& last = grid.thumbs.back();
    grid.colorbar = {last.right() + b.bar_gap, first.y, b.bar_w,
                     std::max(last.bottom() - first.y, detail::kMinColorbarHeight * unit)};
    plan.canvas = detail::canvas_around(b, grid.colorbar, last.bottom());
    grid.title = plan.canvas.title;
    detail::check_image_size(plan.canvas.width, plan.canvas.height);
    return plan;
}

void paint_grid(const GridPlan& plan, const std::vector<std::vector<Matrix>>& maps,
                const std::vector<std::string>& row_labels, const std::vector<std::string>& col_labels, Painter& p) {
    const GridLayout& grid = plan.layout;
    const detail::TextBands& b = plan.bands;
    const auto& drawn = plan.labelled ? maps : plan.shrunk;
    for (int l = 0; l < grid.layers; ++l)
        for (int h = 0; h < grid.heads; ++h)
            p.cells(drawn[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)], grid.thumb(l, h), grid.cell_px,
                    plan.options.colormap, grid.scale);
    detail::draw_colorbar(p, grid.colorbar, plan.options.colormap, grid.scale, b, plan.font, grid.clipped_high);
    if (!plan.font) return;
    // Values in every thumbnail or in none: one whose values happen to be shorter would
    // otherwise show numbers beside heads that show none.
    bool values_fit = true;
    for (const auto& layer : drawn)
        for (const Matrix& m : layer)
            values_fit = values_fit && detail::cell_values_fit(m, grid.cell_px, plan.options, b, *plan.font);
    for (int l = 0; l < grid.layers; ++l) {
        if (plan.labelled)
            detail::draw_row_labels(p, row_labels, grid.thumb(l, 0), grid.cell_px, plan.options, b, *plan.font);
        for (int h = 0; h < grid.heads; ++h) {
            detail::draw_cell_values(p, drawn[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)],
                                     grid.thumb(l, h), grid.cell_px, plan.options, grid.scale, b, values_fit);
            const PixelRect& c = grid.captions[static_cast<std::size_t>(l) * grid.heads + h];
            p.text(caption_text(l, h), c.x, c.y, b.font_px, detail::kTextColor, TextAnchor::Start);
        }
    }
    // Column labels above the first layer's captions; axis titles around all thumbnails.
    const PixelRect& first = grid.thumbs.front();
    const PixelRect& last = grid.thumbs.back();
    for (int h = 0; h < grid.heads && plan.labelled; ++h) {
        PixelRect above = grid.thumb(0, h);
        above.y -= plan.caption_h;
        detail::draw_col_labels(p, col_labels, above, grid.cell_px, plan.options, b, *plan.font);
    }
    const PixelRect all{first.x, first.y - plan.caption_h, last.right() - first.x,
                        last.bottom() - first.y + plan.caption_h};
    detail::draw_axis_titles(p, all, plan.options, b);
    detail::draw_title(p, plan.options.title, b, plan.canvas.width);
}

}  // namespace

GridImage render_grid(const std::vector<std::vector<Matrix>>& maps, const std::vector<std::string>& row_labels,
                      const std::vector<std::string>& col_labels, const HeatmapOptions& options) {
    const GridPlan plan = plan_grid(maps, row_labels, col_labels, options);
    RgbImage image(plan.canvas.width, plan.canvas.height);
    RasterPainter painter(image, plan.font);
    paint_grid(plan, maps, row_labels, col_labels, painter);
    return {std::move(image), plan.layout};
}

GridSvg render_grid_svg(const std::vector<std::vector<Matrix>>& maps, const std::vector<std::string>& row_labels,
                        const std::vector<std::string>& col_labels, const HeatmapOptions& options) {
    const GridPlan plan = plan_grid(maps, row_labels, col_labels, options);
    SvgPainter painter(plan.canvas.width, plan.canvas.height, plan.font);
    paint_grid(plan, maps, row_labels, col_labels, painter);
    return {painter.finish(), plan.layout};
}

}  // namespace hs
