#include "core/image/heatmap_draw.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/error.h"
#include "core/image/label_thinning.h"
#include "core/image/utf8.h"
#include "core/image/token_words.h"
#include "core/tokenize/visible_token.h"

namespace hs::detail {

HeatmapOptions scaled_options(const HeatmapOptions& options, int& scale) {
    scale = std::clamp(options.figure_scale, 1, 8);
    HeatmapOptions o = options;
    o.figure_scale = 1;
    o.cell_px *= scale;
    o.font_px *= scale;
    o.target_map_px *= scale;
    o.target_thumb_px *= scale;
    o.max_image_px = static_cast<int>(std::min<long long>(1 << 30, static_cast<long long>(options.max_image_px) * scale));
    return o;
}

const Font* text_font(const HeatmapOptions& options) {
    if (!options.draw_text || options.font_px <= 0) return nullptr;
    const Font& font = options.font ? *options.font : Font::system_default();
    return font.available() ? &font : nullptr;
}

ColorScale resolve_scale(const HeatmapOptions& options, float data_min, float data_max) {
    ColorScale scale = options.scale;
    if (options.auto_range && data_min <= data_max) {
        scale.lo = data_min;
        scale.hi = data_max;
        widen_single_value_range(scale.lo, scale.hi);
    }
    return scale;
}

std::string shorten_label(const std::string& label, int max_chars, const Font& font) {
    const std::string shown = visible_token(label);  // a space token as ␣, not a blank label
    const std::u32string cps = utf8_to_codepoints(shown);
    if (max_chars <= 0 || static_cast<int>(cps.size()) <= max_chars) return shown;
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
    const TokenWords words = token_words(labels);  // a label is a token's piece or (thinned) its word
    for (const std::vector<std::string>* names : {&words.pieces, &words.words})
        for (const std::string& label : *names)
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

int draw_text(RgbImage& image, const Font& font, const std::string& text, int x, int y, int px,
              Rgb8 color) {
    const AlphaMask mask = font.render_text(text, px);
    image.blend_mask(mask, x, y, color);
    return mask.width;
}

namespace {

// Calls place(center, label) for the labels thinned_labels keeps at label_stride spacing:
// center = k·cell_px + cell_px/2, the middle of cell k in pixels from the map's edge;
// label = the shortened text of token k's thinned_label (its word, when labels are apart).
template <typename Place>
void for_each_shown_label(const std::vector<std::string>& labels, int cell_px, const HeatmapOptions& options,
                          const Font& font, Place place) {
    const int stride = label_stride(cell_px, options.font_px);
    const TokenWords words = token_words(labels);
    for (int k : thinned_labels(labels, 0, static_cast<int>(labels.size()), stride))
        place(k * cell_px + cell_px / 2, shorten_label(thinned_label(words, k, stride), options.max_label_chars, font));
}

}  // namespace

void draw_row_labels(Painter& p, const std::vector<std::string>& labels, const PixelRect& map, int cell_px,
                     const HeatmapOptions& options, const TextBands& b, const Font& font) {
    for_each_shown_label(labels, cell_px, options, font, [&](int center, const std::string& label) {
        p.text(label, map.x - b.label_pad, map.y + center - (b.font_px + 1) / 2, b.font_px, kTextColor,
               TextAnchor::End);
    });
}

void draw_col_labels(Painter& p, const std::vector<std::string>& labels, const PixelRect& map, int cell_px,
                     const HeatmapOptions& options, const TextBands& b, const Font& font) {
    if (b.upright_cols) {  // one line per column, its bottom label_pad above the map
        const TokenWords words = token_words(labels);
        for (std::size_t k = 0; k < labels.size(); ++k)
            p.text(shorten_label(words.pieces[k], options.max_label_chars, font),
                   map.x + static_cast<int>(k) * cell_px + cell_px / 2, map.y - b.label_pad - (b.font_px + 1),
                   b.font_px, kTextColor, TextAnchor::Middle);
        return;
    }
    // Rotated footprint: font_px + 1 wide, the label's width tall, ending label_pad above the map.
    for_each_shown_label(labels, cell_px, options, font, [&](int center, const std::string& label) {
        p.text(label, map.x + center - (b.font_px + 1) / 2, map.y - b.label_pad, b.font_px, kTextColor,
               TextAnchor::Start, true);
    });
}

void draw_axis_titles(Painter& p, const PixelRect& map, const HeatmapOptions& options, const TextBands& b) {
    if (b.col_title_h > 0)
        p.text(options.col_axis_title, map.center_x(), map.y - b.col_band - b.col_title_h, b.font_px, kTextColor,
               TextAnchor::Middle);
    if (b.row_title_w > 0)
        p.text(options.row_axis_title, map.x - b.row_band - b.row_title_w, map.center_y(), b.font_px, kTextColor,
               TextAnchor::Middle, true);
}

}  // namespace hs::detail

namespace hs {

std::string cell_value_text(float v) {
    if (v == 0.0f) return "";
    if (!std::isfinite(v)) return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
    char buf[32];
    const double a = std::fabs(static_cast<double>(v));
    // Weights near 1 read alike whether exactly 1 or not ("1.00" both; the hover has every
    // digit): one column never mixes "1" and "1.00".
    if (a >= 9.995) std::snprintf(buf, sizeof buf, "%.3g", static_cast<double>(v));
    else if (a >= 0.095) std::snprintf(buf, sizeof buf, "%.2f", static_cast<double>(v));
    else if (a >= 0.00095) std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(v));
    else std::snprintf(buf, sizeof buf, "%.0e", static_cast<double>(v));
    return buf;
}

}  // namespace hs

namespace hs::detail {

bool cell_values_fit(const Matrix& m, int cell_px, const HeatmapOptions& options, const TextBands& b,
                     const Font& font) {
    if (!options.cell_values || b.value_px <= 0 || cell_px < b.value_px + 4) return false;
    int widest = 0;
    for (Eigen::Index i = 0; i < m.size(); ++i)
        widest = std::max(widest, font.text_width(cell_value_text(m.data()[i]), b.value_px));
    return widest + 4 <= cell_px;
}

bool draw_cell_values(Painter& p, const Matrix& m, const PixelRect& map, int cell_px, const HeatmapOptions& options,
                      const ColorScale& scale, const TextBands& b, bool fit) {
    if (!fit) return false;
    for (Eigen::Index i = 0; i < m.rows(); ++i)
        for (Eigen::Index j = 0; j < m.cols(); ++j) {
            // Perceived brightness of the cell (Rec. 601 weights): dark text on light cells.
            const Rgb8 c = colorize(m(i, j), options.colormap, scale);
            const int luma = (299 * c.r + 587 * c.g + 114 * c.b) / 1000;
            const Rgb8 ink = luma > 140 ? Rgb8{20, 20, 20} : Rgb8{250, 250, 250};
            p.text(cell_value_text(m(i, j)), map.x + static_cast<int>(j) * cell_px + cell_px / 2,
                   map.y + static_cast<int>(i) * cell_px + (cell_px - b.value_px - 1) / 2, b.value_px, ink,
                   TextAnchor::Middle);
        }
    return true;
}

std::string tick_text(float v, int digits) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*g", digits, static_cast<double>(v));
    return buf;
}

std::vector<std::string> tick_texts(const std::vector<float>& ticks) {
    std::vector<std::string> texts;
    for (int digits = 3; digits <= 7; ++digits) {
        texts.clear();
        bool distinct = true;
        for (float v : ticks) {
            texts.push_back(tick_text(v, digits));
            distinct = distinct && (texts.size() < 2 || texts.back() != texts[texts.size() - 2]);
        }
        if (distinct) break;
    }
    return texts;
}

std::vector<float> colorbar_ticks(float lo, float hi) {
    if (!(hi > lo) || !std::isfinite(hi - lo)) return {lo};
    // Step: the smallest of 1, 2, 2.5, 5 × 10^k giving at most 6 intervals.
    const double span = static_cast<double>(hi) - lo;
    const double base = std::pow(10.0, std::floor(std::log10(span / 6.0)));
    double step = base * 10.0;
    for (double f : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (span / (base * f) <= 6.0) {
            step = base * f;
            break;
        }
    std::vector<float> ticks{lo};
    // Interior nice values, kept clear of the ends by a fifth of a step (labels would touch).
    for (double v = std::ceil(lo / step) * step; v < hi - step * 0.2; v += step)
        if (v > lo + step * 0.2) ticks.push_back(static_cast<float>(std::fabs(v) < step * 1e-6 ? 0.0 : v));
    ticks.push_back(hi);
    return ticks;
}

std::vector<float> colorbar_ticks(const ColorScale& scale) {
    const float g = scale.effective_gamma();
    if ((!scale.log && g == 1.0f) || !(scale.hi > scale.lo) || !std::isfinite(scale.hi - scale.lo))
        return colorbar_ticks(scale.lo, scale.hi);
    // v(t) = lo + u(t)·(hi − lo): normalized() undone, t = u^g (gamma) after
    // t_log = ln(1 + 999 u)/ln 1000 (log). The offset u·(hi − lo) is what is rounded, so
    // a range far from 0 ([0.9, 1]) keeps its ticks apart.
    const double span = static_cast<double>(scale.hi) - scale.lo;
    const auto offset_at = [&](double t) {
        double u = std::pow(t, 1.0 / g);
        if (scale.log) u = (std::pow(1000.0, u) - 1.0) / 999.0;
        return u * span;
    };
    std::vector<float> ticks{scale.lo};
    for (int k = 1; k < 5; ++k) {
        const double offset = offset_at(0.2 * k);
        if (!(offset > 0.0)) continue;
        const double unit = std::pow(10.0, std::floor(std::log10(offset)));  // one significant digit
        const float nice = static_cast<float>(scale.lo + std::round(offset / unit) * unit);
        if (nice > ticks.back() && nice < scale.hi) ticks.push_back(nice);
    }
    ticks.push_back(scale.hi);
    return ticks;
}

int colorbar_label_width(const ColorScale& scale, int font_px, const Font* font) {
    if (!font) return 0;
    int widest = 0;
    for (const std::string& text : tick_texts(colorbar_ticks(scale))) widest = std::max(widest, font->text_width(text, font_px));
    widest += font->text_width("≥ ", font_px);  // room for a clipped top
    return widest;
}

void draw_colorbar(Painter& p, const PixelRect& bar, Colormap cmap, const ColorScale& scale, const TextBands& b,
                   const Font* font, bool clipped_high) {
    const int denom = std::max(1, bar.height - 1);
    // The gradient, one pixel row per step of t, top = 1 (colormap_index's rounding).
    const ColormapLut& lut = colormap_lut(cmap);
    for (int y = 0; y < bar.height; ++y) {
        const float t = static_cast<float>(bar.height - 1 - y) / static_cast<float>(denom);
        p.fill_rect({bar.x, bar.y + y, bar.width, 1}, lut[static_cast<std::size_t>(colormap_index_of(t))]);
    }
    // Frame just outside the strip (unit pixels thick).
    const int u = b.unit;
    p.fill_rect({bar.x - u, bar.y - u, bar.width + 2 * u, u}, kFrameColor);
    p.fill_rect({bar.x - u, bar.bottom(), bar.width + 2 * u, u}, kFrameColor);
    p.fill_rect({bar.x - u, bar.y, u, bar.height}, kFrameColor);
    p.fill_rect({bar.right(), bar.y, u, bar.height}, kFrameColor);
    const int tick_x = bar.right() + u;
    const std::vector<float> ticks = colorbar_ticks(scale);
    const std::vector<std::string> texts = tick_texts(ticks);
    for (std::size_t i = 0; i < ticks.size(); ++i) {
        const float v = ticks[i];
        // Row of value v: where the gradient has v's colour.
        const float t = scale.hi > scale.lo ? scale.normalized(v) : 0.0f;
        const int y = bar.y + static_cast<int>(std::lround((1.0f - t) * static_cast<float>(denom)));
        p.fill_rect({tick_x, y, b.tick_len, u}, kTextColor);
        if (font)
            p.text((clipped_high && v == scale.hi ? "≥ " : "") + texts[i], tick_x + b.tick_len + 3 * u,
                   y - (b.font_px + 1) / 2, b.font_px, kTextColor, TextAnchor::Start);
    }
}

TextBands text_bands(const HeatmapOptions& options, int unit, const Font* font, const ColorScale& scale,
                     const std::vector<std::string>& row_labels, const std::vector<std::string>& col_labels,
                     int cell_px_hint) {
    TextBands b;
    b.unit = std::max(1, unit);
    b.font_px = options.font_px;
    b.title_px = b.font_px + b.font_px / 3;
    // Values grow with the cells (a fifth of a cell) up to the label size.
    b.value_px = font ? std::min(std::max(cell_px_hint / 5, 8 * b.unit), std::max(b.font_px, 8 * b.unit)) : 0;
    b.margin = std::max(10 * b.unit, b.font_px);
    b.label_pad = kLabelPad * b.unit;
    b.has_title = font && !options.title.empty();
    b.title_h = b.has_title ? b.title_px + 1 + 8 * b.unit : 0;
    b.title_w = b.has_title ? font->text_width(options.title, b.title_px) : 0;
    b.row_band = font && !row_labels.empty() ? max_label_width(row_labels, options, font) + b.label_pad : 0;
    const int col_width = font && !col_labels.empty() ? max_label_width(col_labels, options, font) : 0;
    b.upright_cols = col_width > 0 && cell_px_hint >= col_width + 4 * b.unit;
    b.col_band = col_width == 0 ? 0 : (b.upright_cols ? b.font_px + 1 : col_width) + b.label_pad;
    b.row_title_w = font && !options.row_axis_title.empty() ? b.font_px + 1 + b.label_pad : 0;
    b.col_title_h = font && !options.col_axis_title.empty() ? b.font_px + 1 + b.label_pad : 0;
    b.bar_gap = kColorbarGap * b.unit;
    b.bar_w = kColorbarWidth * b.unit;
    b.tick_len = kTickLength * b.unit;
    b.tick_w = font ? colorbar_label_width(scale, b.font_px, font) + 3 * b.unit : 0;
    b.bar_extra = b.bar_gap + b.bar_w + b.unit + b.tick_len + b.tick_w;
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
    const int content_w = colorbar.right() + bands.unit + bands.tick_len + bands.tick_w + bands.margin;
    c.width = std::max(content_w, bands.title_w + 2 * bands.margin);
    c.height = std::max(content_bottom, colorbar.bottom()) + bands.margin;
    if (bands.has_title)
        c.title = {bands.margin, bands.margin, c.width - 2 * bands.margin, bands.title_px + 1};
    return c;
}

void draw_title(Painter& p, const std::string& title, const TextBands& bands, int canvas_width) {
    if (!bands.has_title) return;
    p.text(title, canvas_width / 2, bands.margin, bands.title_px, kTextColor, TextAnchor::Middle);
}

}  // namespace hs::detail
