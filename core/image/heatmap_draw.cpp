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

void draw_row_labels(RgbImage& image, const std::vector<std::string>& labels,
                     const PixelRect& map, int cell_px, const HeatmapOptions& options,
                     const Font& font) {
    const int stride = label_stride(cell_px, options.font_px);
    for (std::size_t i = 0; i < labels.size(); i += static_cast<std::size_t>(stride)) {
        const AlphaMask mask =
            font.render_text(shorten_label(labels[i], options.max_label_chars, font), options.font_px);
        const int center_y = map.y + static_cast<int>(i) * cell_px + cell_px / 2;
        image.blend_mask(mask, map.x - kLabelPad - mask.width, center_y - mask.height / 2, kTextColor);
    }
}

void draw_col_labels(RgbImage& image, const std::vector<std::string>& labels,
                     const PixelRect& map, int cell_px, const HeatmapOptions& options,
                     const Font& font) {
    const int stride = label_stride(cell_px, options.font_px);
    for (std::size_t j = 0; j < labels.size(); j += static_cast<std::size_t>(stride)) {
        const AlphaMask mask =
            font.render_text(shorten_label(labels[j], options.max_label_chars, font), options.font_px);
        // Rotated footprint: mask.height wide, mask.width tall.
        const int center_x = map.x + static_cast<int>(j) * cell_px + cell_px / 2;
        image.blend_mask_rotated_ccw(mask, center_x - mask.height / 2,
                                     map.y - kLabelPad - mask.width, kTextColor);
    }
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

}  // namespace hs::detail
