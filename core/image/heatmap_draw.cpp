#include "core/image/heatmap_draw.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/error.h"
#include "core/image/utf8.h"

namespace hs::detail {

const Font* text_font(const HeatmapOptions& options) {
    if (!options.draw_text || options.font_px <= 0) return nullptr;
    const Font& font = options.font ? *options.font : Font::system_default();
    return font.available() ? &font : nullptr;
}

void finite_min_max(const Matrix& m, float& lo, float& hi) {
    if (m.size() == 0) return;
    // Vectorised reductions first; only a NaN or ±inf among the values takes the loop.
    const float min = m.minCoeff(), max = m.maxCoeff();
    if (std::isfinite(min) && std::isfinite(max)) {
        lo = std::min(lo, min);
        hi = std::max(hi, max);
        return;
    }
    for (Eigen::Index i = 0; i < m.size(); ++i) {
        const float v = m.data()[i];
        if (!std::isfinite(v)) continue;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
}

ColorScale resolve_scale(const HeatmapOptions& options, float data_min, float data_max) {
    ColorScale scale = options.scale;
    if (options.auto_range && data_min <= data_max) {
        scale.lo = data_min;
        scale.hi = data_max;
    }
    return scale;
}

std::string shorten_label(const std::string& label, int max_chars, const Font& font) {
    const std::u32string cps = utf8_to_codepoints(label);
    if (max_chars <= 0 || static_cast<int>(cps.size()) <= max_chars) return label;
    const std::u32string ellipsis = font.has_glyph(U'\u2026') ? U"\u2026" : U"..";
    const int keep = std::max(1, max_chars - static_cast<int>(ellipsis.size()));
    return codepoints_to_utf8(cps.substr(0, static_cast<std::size_t>(keep)) + ellipsis);
}

int label_stride(int cell_px, int font_px) {
    // Rows of text need ≥ font_px + 1 pixels: stride = ceil((font_px + 1) / cell_px).
    return std::max(1, (font_px + 1 + cell_px - 1) / std::max(1, cell_px));
}

int max_label_width(const std::vector<std::string>& labels, const HeatmapOptions& options,
                    const Font* font) {
    if (!font) return 0;
    int widest = 0;
    for (const std::string& label : labels)
        widest = std::max(widest, font->text_width(shorten_label(label, options.max_label_chars, *font),
                                                   options.font_px));
    return widest;
}

void check_label_count(const std::vector<std::string>& labels, int expected, const char* what) {
    if (labels.empty() || static_cast<int>(labels.size()) == expected) return;
    throw Error("got " + std::to_string(labels.size()) + " " + what + " labels for a map with " +
                std::to_string(expected) + " " + what + "s; pass one label per " + what +
                " or none");
}

void draw_cells(RgbImage& image, const Matrix& m, const PixelRect& map, int cell_px,
                Colormap cmap, const ColorScale& scale) {
    for (Eigen::Index i = 0; i < m.rows(); ++i)
        for (Eigen::Index j = 0; j < m.cols(); ++j)
            image.fill_rect({map.x + static_cast<int>(j) * cell_px,
                             map.y + static_cast<int>(i) * cell_px, cell_px, cell_px},
                            colorize(m(i, j), cmap, scale));
}

int draw_text(RgbImage& image, const Font& font, const std::string& text, int x, int y, int px,
              Rgb8 color) {
    const AlphaMask mask = font.render_text(text, px);
    image.blend_mask(mask, x, y, color);
    return mask.width;
}

namespace {

// Calls place(center, mask) for every label_stride-th label k: center = k·cell_px + cell_px/2,
// the middle of cell k in pixels from the map's edge; mask = the shortened label at font_px.
template <typename Place>
void for_each_shown_label(const std::vector<std::string>& labels, int cell_px,
                          const HeatmapOptions& options, const Font& font, Place place) {
    const int stride = label_stride(cell_px, options.font_px);
    for (std::size_t k = 0; k < labels.size(); k += static_cast<std::size_t>(stride)) {
        const AlphaMask mask =
            font.render_text(shorten_label(labels[k], options.max_label_chars, font), options.font_px);
        place(static_cast<int>(k) * cell_px + cell_px / 2, mask);
    }
}

}  // namespace

void draw_row_labels(RgbImage& image, const std::vector<std::string>& labels,
                     const PixelRect& map, int cell_px, const HeatmapOptions& options,
                     const Font& font) {
    for_each_shown_label(labels, cell_px, options, font, [&](int center, const AlphaMask& mask) {
        image.blend_mask(mask, map.x - kLabelPad - mask.width, map.y + center - mask.height / 2,
                         kTextColor);
    });
}

void draw_col_labels(RgbImage& image, const std::vector<std::string>& labels,
                     const PixelRect& map, int cell_px, const HeatmapOptions& options,
                     const Font& font) {
    // Rotated footprint: mask.height wide, mask.width tall.
    for_each_shown_label(labels, cell_px, options, font, [&](int center, const AlphaMask& mask) {
        image.blend_mask_rotated_ccw(mask, map.x + center - mask.height / 2,
                                     map.y - kLabelPad - mask.width, kTextColor);
    });
}

std::string tick_text(float v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", static_cast<double>(v));
    return buf;
}

int colorbar_label_width(const ColorScale& scale, int font_px, const Font* font) {
    if (!font) return 0;
    return std::max(font->text_width(tick_text(scale.lo), font_px),
                    font->text_width(tick_text(scale.hi), font_px));
}

void draw_colorbar(RgbImage& image, const PixelRect& bar, Colormap cmap,
                   const ColorScale& scale, int font_px, const Font* font) {
    const int denom = std::max(1, bar.height - 1);
    for (int y = 0; y < bar.height; ++y) {
        const float t = static_cast<float>(bar.height - 1 - y) / static_cast<float>(denom);
        const float v = scale.lo + (scale.hi - scale.lo) * t;
        image.fill_rect({bar.x, bar.y + y, bar.width, 1}, colorize(v, cmap, scale));
    }
    // 1-pixel frame just outside the strip.
    image.fill_rect({bar.x - 1, bar.y - 1, bar.width + 2, 1}, kFrameColor);
    image.fill_rect({bar.x - 1, bar.bottom(), bar.width + 2, 1}, kFrameColor);
    image.fill_rect({bar.x - 1, bar.y, 1, bar.height}, kFrameColor);
    image.fill_rect({bar.right(), bar.y, 1, bar.height}, kFrameColor);
    // Ticks at the hi (top row) and lo (bottom row) ends.
    const int tick_x = bar.right() + 1;
    image.fill_rect({tick_x, bar.y, kTickLength, 1}, kTextColor);
    image.fill_rect({tick_x, bar.bottom() - 1, kTickLength, 1}, kTextColor);
    if (!font) return;
    const int text_x = tick_x + kTickLength + 3;
    const int half = (font_px + 1) / 2;
    draw_text(image, *font, tick_text(scale.hi), text_x, bar.y - half, font_px, kTextColor);
    draw_text(image, *font, tick_text(scale.lo), text_x, bar.bottom() - 1 - half, font_px, kTextColor);
}

TextBands text_bands(const HeatmapOptions& options, const Font* font, const ColorScale& scale,
                     const std::vector<std::string>& row_labels,
                     const std::vector<std::string>& col_labels) {
    TextBands b;
    b.font_px = options.font_px;
    b.title_px = b.font_px + b.font_px / 3;
    b.margin = std::max(10, b.font_px);
    b.has_title = font && !options.title.empty();
    b.title_h = b.has_title ? b.title_px + 1 + 8 : 0;
    b.title_w = b.has_title ? font->text_width(options.title, b.title_px) : 0;
    b.row_band = font && !row_labels.empty() ? max_label_width(row_labels, options, font) + kLabelPad : 0;
    b.col_band = font && !col_labels.empty() ? max_label_width(col_labels, options, font) + kLabelPad : 0;
    b.tick_w = font ? colorbar_label_width(scale, b.font_px, font) + 3 : 0;
    b.bar_extra = kColorbarGap + kColorbarWidth + 1 + kTickLength + b.tick_w;
    return b;
}

HeatmapOptions shrunk_options(const HeatmapOptions& options, float lo, float hi) {
    HeatmapOptions o = options;
    if (o.auto_range) {
        o.scale = resolve_scale(options, lo, hi);
        o.auto_range = false;
    }
    return o;
}

void check_image_size(long long width, long long height) {
    if (width * height <= kMaxImagePixels) return;
    throw Error("the image would be " + std::to_string(width) + "×" + std::to_string(height) + " = " +
                std::to_string(width * height) + " pixels, more than the " + std::to_string(kMaxImagePixels) +
                " (16384²) an export may have; use smaller cells or fewer tokens");
}

int fit_cell_px(const HeatmapOptions& options, int target_px, int rows, int cols,
                int cells_across, int cells_down, int overhead_w, int overhead_h) {
    int cell = options.cell_px > 0 ? options.cell_px : std::max(1, target_px / std::max(rows, cols));
    cell = std::min(cell, std::max(1, (options.max_image_px - overhead_w) / cells_across));
    cell = std::min(cell, std::max(1, (options.max_image_px - overhead_h) / cells_down));
    return std::max(1, cell);
}

Canvas canvas_around(const TextBands& bands, const PixelRect& colorbar, int content_bottom) {
    Canvas c;
    const int content_w = colorbar.right() + 1 + kTickLength + bands.tick_w + bands.margin;
    c.width = std::max(content_w, bands.title_w + 2 * bands.margin);
    c.height = std::max(content_bottom, colorbar.bottom()) + bands.margin;
    if (bands.has_title)
        c.title = {bands.margin, bands.margin, c.width - 2 * bands.margin, bands.title_px + 1};
    return c;
}

void draw_title(RgbImage& image, const Font& font, const std::string& title,
                const TextBands& bands) {
    if (!bands.has_title) return;
    draw_text(image, font, title, (image.width() - bands.title_w) / 2, bands.margin,
              bands.title_px, kTextColor);
}

}  // namespace hs::detail
