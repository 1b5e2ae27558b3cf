#include "core/image/painter.h"

#include <algorithm>
#include <cstdio>

#include "core/image/font.h"
#include "core/image/png.h"
#include "core/image/utf8.h"

namespace hs {

// ---- stacked vertical labels ------------------------------------------------------------

bool stacks_upright(const std::string& utf8) {
    const std::u32string cps = utf8_to_codepoints(utf8);
    return !cps.empty() && std::all_of(cps.begin(), cps.end(), is_cjk_square);
}

std::vector<StackedCharacter> stacked_characters(const std::string& utf8, int y, int px, TextAnchor anchor,
                                                 const Font* font) {
    std::vector<StackedCharacter> out;
    int length = 0;
    for (char32_t cp : utf8_to_codepoints(utf8)) {
        std::string text = codepoints_to_utf8(std::u32string(1, cp));
        const int advance = font ? font->text_width(text, px) : px;
        out.push_back({std::move(text), length, advance});
        length += advance;
    }
    // Start: the line's end (its last slot's bottom) at y; Middle: centred on y; End: top at y.
    const int top = anchor == TextAnchor::Start ? y - length : anchor == TextAnchor::Middle ? y - length / 2 : y;
    for (StackedCharacter& c : out) c.top += top;
    return out;
}

// ---- raster ---------------------------------------------------------------------------

void RasterPainter::fill_rect(const PixelRect& r, Rgb8 c) { image_.fill_rect(r, c); }

void RasterPainter::text(const std::string& utf8, int x, int y, int px, Rgb8 c, TextAnchor anchor,
                         bool rotated) {
    if (!font_) return;
    if (rotated && stacks_upright(utf8)) {  // each character upright in a slot advance tall
        for (const StackedCharacter& ch : stacked_characters(utf8, y, px, anchor, font_)) {
            const AlphaMask mask = font_->render_text(ch.text, px);
            image_.blend_mask(mask, x + (px + 1 - mask.width) / 2, ch.top + (ch.advance - mask.height) / 2, c);
        }
        return;
    }
    const AlphaMask mask = font_->render_text(utf8, px);
    const int shift = anchor == TextAnchor::Start ? 0 : anchor == TextAnchor::Middle ? mask.width / 2 : mask.width;
    if (rotated)  // footprint mask.height wide, mask.width tall; Start = bottom end at y
        image_.blend_mask_rotated_ccw(mask, x, y - mask.width + shift, c);
    else
        image_.blend_mask(mask, x - shift, y, c);
}

void RasterPainter::cells(const Matrix& m, const PixelRect& map, int cell_px, Colormap cmap,
                          const ColorScale& scale) {
    for (Eigen::Index i = 0; i < m.rows(); ++i)
        for (Eigen::Index j = 0; j < m.cols(); ++j)
            image_.fill_rect({map.x + static_cast<int>(j) * cell_px, map.y + static_cast<int>(i) * cell_px,
                              cell_px, cell_px},
                             colorize(m(i, j), cmap, scale));
}

// ---- SVG ------------------------------------------------------------------------------

std::string xml_escape(const std::string& utf8) {
    std::string clean;
    for (char32_t cp : utf8_to_codepoints(utf8)) {
        if (cp < 0x20 || cp == 0x7F || (cp >= 0xFFFE && cp <= 0xFFFF)) continue;  // not XML 1.0 text
        switch (cp) {
            case U'&': clean += "&amp;"; break;
            case U'<': clean += "&lt;"; break;
            case U'>': clean += "&gt;"; break;
            case U'"': clean += "&quot;"; break;
            case U'\'': clean += "&apos;"; break;
            default: clean += codepoints_to_utf8(std::u32string(1, cp));
        }
    }
    return clean;
}

std::string base64(const std::string& bytes) {
    static constexpr char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 3 <= bytes.size(); i += 3) {
        // Three bytes b0 b1 b2 = 24 bits → four 6-bit digits.
        const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) |
                           (static_cast<unsigned char>(bytes[i + 1]) << 8) | static_cast<unsigned char>(bytes[i + 2]);
        out += {kDigits[v >> 18], kDigits[(v >> 12) & 63], kDigits[(v >> 6) & 63], kDigits[v & 63]};
    }
    if (const std::size_t rest = bytes.size() - i; rest > 0) {
        unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
        if (rest == 2) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
        out += kDigits[v >> 18];
        out += kDigits[(v >> 12) & 63];
        out += rest == 2 ? kDigits[(v >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

std::string svg_color(Rgb8 c) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c.r, c.g, c.b);
    return buf;
}

SvgPainter::SvgPainter(int width, int height, const Font* font) : font_(font) {
    out_ << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
         << "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" "
         << "xml:space=\"preserve\" "
         << "version=\"1.1\" width=\"" << width << "\" height=\"" << height << "\" viewBox=\"0 0 " << width << ' '
         << height << "\">\n"
         << "<style>text{font-family:'WenQuanYi Micro Hei','Noto Sans CJK SC','Droid Sans Fallback',"
            "'DejaVu Sans',sans-serif;white-space:pre}</style>\n"
         << "<rect width=\"" << width << "\" height=\"" << height << "\" fill=\"#ffffff\"/>\n";
}

void SvgPainter::fill_rect(const PixelRect& r, Rgb8 c) {
    if (r.width <= 0 || r.height <= 0) return;
    out_ << "<rect x=\"" << r.x << "\" y=\"" << r.y << "\" width=\"" << r.width << "\" height=\"" << r.height
         << "\" fill=\"" << svg_color(c) << "\"/>\n";
}

void SvgPainter::text(const std::string& utf8, int x, int y, int px, Rgb8 c, TextAnchor anchor,
                      bool rotated) {
    const std::string body = xml_escape(utf8);
    if (body.empty()) return;
    const int ascent = font_ ? font_->ascent_px(px) : px * 4 / 5;
    const char* anchor_name = anchor == TextAnchor::Start ? "start" : anchor == TextAnchor::Middle ? "middle" : "end";
    char size[32];
    std::snprintf(size, sizeof size, "%.2f", static_cast<double>(font_ ? font_->em_px(px) : px * 0.86f));
    if (rotated && stacks_upright(utf8)) {  // one upright <text> per character, as the raster
        for (const StackedCharacter& ch : stacked_characters(utf8, y, px, anchor, font_))
            out_ << "<text font-size=\"" << size << "\" fill=\"" << svg_color(c) << "\" text-anchor=\"middle\" x=\""
                 << x + (px + 1) / 2 << "\" y=\"" << ch.top + (ch.advance - (px + 1)) / 2 + ascent << "\">"
                 << xml_escape(ch.text) << "</text>\n";
        return;
    }
    out_ << "<text font-size=\"" << size << "\" fill=\"" << svg_color(c) << "\" text-anchor=\"" << anchor_name << '"';
    if (rotated)  // baseline ascent px right of x, the line running up from (its anchor at) y
        out_ << " transform=\"translate(" << x + ascent << ' ' << y << ") rotate(-90)\">";
    else
        out_ << " x=\"" << x << "\" y=\"" << y + ascent << "\">";
    out_ << body << "</text>\n";
}

void SvgPainter::cells(const Matrix& m, const PixelRect& map, int cell_px, Colormap cmap,
                       const ColorScale& scale) {
    const long long n = static_cast<long long>(m.rows()) * m.cols();
    if (n <= rects_left_) {
        rects_left_ -= n;
        out_ << "<g shape-rendering=\"crispEdges\">\n";
        for (Eigen::Index i = 0; i < m.rows(); ++i)
            for (Eigen::Index j = 0; j < m.cols(); ++j)
                fill_rect({map.x + static_cast<int>(j) * cell_px, map.y + static_cast<int>(i) * cell_px, cell_px,
                           cell_px},
                          colorize(m(i, j), cmap, scale));
        out_ << "</g>\n";
        return;
    }
    // One pixel per cell, stretched to the map without smoothing.
    RgbImage image(static_cast<int>(m.cols()), static_cast<int>(m.rows()));
    RasterPainter(image, nullptr).cells(m, {0, 0, image.width(), image.height()}, 1, cmap, scale);
    out_ << "<image x=\"" << map.x << "\" y=\"" << map.y << "\" width=\"" << map.width << "\" height=\""
         << map.height << "\" preserveAspectRatio=\"none\" style=\"image-rendering:pixelated\" "
         << "xlink:href=\"data:image/png;base64," << base64(encode_png(image)) << "\"/>\n";
}

std::string SvgPainter::finish() {
    out_ << "</svg>\n";
    return out_.str();
}

}  // namespace hs
