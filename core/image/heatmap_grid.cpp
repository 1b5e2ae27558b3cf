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
    text += " H";
    text += std::to_string(head);
    return text;
}

}  // namespace

GridImage render_grid(const std::vector<std::vector<Matrix>>& maps,
                      const std::vector<std::string>& row_labels,
                      const std::vector<std::string>& col_labels,
                      const HeatmapOptions& options) {
    GridLayout grid;
    check_grid_shapes(maps, grid.rows, grid.cols);
    detail::check_label_count(row_labels, grid.rows, "row");
    detail::check_label_count(col_labels, grid.cols, "column");
    grid.layers = static_cast<int>(maps.size());
    grid.heads = static_cast<int>(maps[0].size());
    grid.source_rows = grid.rows;
    grid.source_cols = grid.cols;

    float lo = std::numeric_limits<float>::infinity(), hi = -lo;
    for (const auto& layer : maps)
        for (const Matrix& m : layer) detail::finite_min_max(m, lo, hi);
    // More cells than the image can hold at 1 px each: block means of every map, sized so
    // H thumbnails across and L down (with their gaps and captions) fit.
    const int caption_room = options.font_px + 4;
    const int across = (options.max_image_px - detail::kShrunkOverhead - (grid.heads - 1) * kThumbGapX) / grid.heads;
    const int down = (options.max_image_px - detail::kShrunkOverhead -
                      grid.layers * caption_room - (grid.layers - 1) * kThumbGapY) / grid.layers;
    if (options.cell_px == 0 && across > 0 && down > 0 && (grid.cols > across || grid.rows > down)) {
        // One factor for both sides, so thumbnails keep the maps' aspect.
        const double f = std::min({1.0, double(across) / grid.cols, double(down) / grid.rows});
        const int r2 = std::max(1, int(grid.rows * f)), c2 = std::max(1, int(grid.cols * f));
        std::vector<std::vector<Matrix>> small(maps.size());
        for (std::size_t l = 0; l < maps.size(); ++l)
            for (const Matrix& m : maps[l]) small[l].push_back(box_mean(m, r2, c2));
        GridImage out = render_grid(small, {}, {}, detail::shrunk_options(options, lo, hi));
        out.layout.source_rows = grid.rows;
        out.layout.source_cols = grid.cols;
        return out;
    }

    const Font* font = detail::text_font(options);
    grid.scale = detail::resolve_scale(options, lo, hi);

    // 1. Text bands (all zero without a font), plus a caption line over each thumbnail.
    const detail::TextBands b = detail::text_bands(options, font, grid.scale, row_labels, col_labels);
    const int font_px = b.font_px;
    const int caption_h = font ? font_px + 1 + 3 : 0;

    // 2. Cell size: target per thumbnail, shrunk so H thumbnails across and L down fit.
    const int overhead_w = 2 * b.margin + b.row_band + b.bar_extra + (grid.heads - 1) * kThumbGapX;
    const int overhead_h = 2 * b.margin + b.title_h + b.col_band + grid.layers * caption_h +
                           (grid.layers - 1) * kThumbGapY;
    grid.cell_px = detail::fit_cell_px(options, options.target_thumb_px, grid.rows, grid.cols,
                                       grid.heads * grid.cols, grid.layers * grid.rows,
                                       overhead_w, overhead_h);

    // 3. Rectangles: thumbnail (l, h) sits under its caption.
    const int thumb_w = grid.cols * grid.cell_px, thumb_h = grid.rows * grid.cell_px;
    const int x0 = b.margin + b.row_band, y0 = b.margin + b.title_h + b.col_band;
    for (int l = 0; l < grid.layers; ++l)
        for (int h = 0; h < grid.heads; ++h) {
            const int x = x0 + h * (thumb_w + kThumbGapX);
            const int y = y0 + l * (caption_h + thumb_h + kThumbGapY);
            grid.captions.push_back({x, y, thumb_w, caption_h});
            grid.thumbs.push_back({x, y + caption_h, thumb_w, thumb_h});
        }
    const PixelRect& first = grid.thumbs.front();
    const PixelRect& last = grid.thumbs.back();
    grid.colorbar = {last.right() + detail::kColorbarGap, first.y, detail::kColorbarWidth,
                  std::max(last.bottom() - first.y, detail::kMinColorbarHeight)};
    const detail::Canvas canvas = detail::canvas_around(b, grid.colorbar, last.bottom());
    grid.title = canvas.title;

    // 4. Draw thumbnails, colorbar, then text.
    detail::check_image_size(canvas.width, canvas.height);
    GridImage out{RgbImage(canvas.width, canvas.height), grid};
    for (int l = 0; l < grid.layers; ++l)
        for (int h = 0; h < grid.heads; ++h)
            detail::draw_cells(out.image, maps[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)],
                               grid.thumb(l, h), grid.cell_px, options.colormap, grid.scale);
    detail::draw_colorbar(out.image, grid.colorbar, options.colormap, grid.scale, font_px, font);
    if (!font) return out;
    for (int l = 0; l < grid.layers; ++l) {
        detail::draw_row_labels(out.image, row_labels, grid.thumb(l, 0), grid.cell_px, options, *font);
        for (int h = 0; h < grid.heads; ++h) {
            const PixelRect& c = grid.captions[static_cast<std::size_t>(l) * grid.heads + h];
            detail::draw_text(out.image, *font, caption_text(l, h), c.x, c.y, font_px, detail::kTextColor);
        }
    }
    // Column labels above the first layer's captions.
    for (int h = 0; h < grid.heads; ++h) {
        PixelRect above = grid.thumb(0, h);
        above.y -= caption_h;
        detail::draw_col_labels(out.image, col_labels, above, grid.cell_px, options, *font);
    }
    detail::draw_title(out.image, *font, options.title, b);
    return out;
}

}  // namespace hs
