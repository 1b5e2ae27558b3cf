// stb_truetype's implementation is compiled into libstb (linked by headscope_core); this
// file includes its declarations only.
#include "core/image/font_face.h"

#include <hb-ot.h>
#include <hb.h>
#include <png.h>
#include <stb_truetype.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>

namespace hs {

struct FontFace::Outlines {
    stbtt_fontinfo info{};
};

namespace {

std::vector<unsigned char> read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return {};
    return std::vector<unsigned char>(std::istreambuf_iterator<char>(in), {});
}

// A PNG in memory as RGBA rows (width, height, 4); false when libpng cannot read it.
bool decode_png_rgba(const char* data, unsigned size, std::vector<std::uint8_t>& rgba, int& width, int& height) {
    png_image image{};
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, data, size)) return false;
    image.format = PNG_FORMAT_RGBA;
    rgba.assign(PNG_IMAGE_SIZE(image), 0);
    if (!png_image_finish_read(&image, nullptr, rgba.data(), 0, nullptr)) {
        png_image_free(&image);
        return false;
    }
    width = static_cast<int>(image.width);
    height = static_cast<int>(image.height);
    return width > 0 && height > 0;
}

// src (sw, sh, 4) straight-alpha RGBA resampled to (dw, dh): each destination pixel is the
// area-weighted mean of the source pixels it covers, averaged premultiplied (no dark fringe
// where transparent pixels meet coloured ones).
std::vector<std::uint8_t> resample_rgba(const std::vector<std::uint8_t>& src, int sw, int sh, int dw, int dh) {
    std::vector<std::uint8_t> out(static_cast<std::size_t>(dw) * dh * 4, 0);
    const double fx = static_cast<double>(sw) / dw, fy = static_cast<double>(sh) / dh;
    for (int y = 0; y < dh; ++y)
        for (int x = 0; x < dw; ++x) {
            const double x0 = x * fx, x1 = (x + 1) * fx, y0 = y * fy, y1 = (y + 1) * fy;
            double sum[4] = {0, 0, 0, 0}, area = 0;
            for (int sy = static_cast<int>(y0); sy < std::min(sh, static_cast<int>(std::ceil(y1))); ++sy)
                for (int sx = static_cast<int>(x0); sx < std::min(sw, static_cast<int>(std::ceil(x1))); ++sx) {
                    const double w = (std::min(x1, sx + 1.0) - std::max(x0, static_cast<double>(sx))) *
                                     (std::min(y1, sy + 1.0) - std::max(y0, static_cast<double>(sy)));
                    const std::uint8_t* p = &src[(static_cast<std::size_t>(sy) * sw + sx) * 4];
                    const double a = p[3] / 255.0;
                    for (int k = 0; k < 3; ++k) sum[k] += w * p[k] * a;
                    sum[3] += w * a;
                    area += w;
                }
            std::uint8_t* q = &out[(static_cast<std::size_t>(y) * dw + x) * 4];
            if (area <= 0 || sum[3] <= 0) continue;
            for (int k = 0; k < 3; ++k) q[k] = static_cast<std::uint8_t>(std::lround(std::clamp(sum[k] / sum[3], 0.0, 255.0)));
            q[3] = static_cast<std::uint8_t>(std::lround(std::clamp(255.0 * sum[3] / area, 0.0, 255.0)));
        }
    return out;
}

}  // namespace

std::unique_ptr<FontFace> FontFace::open(const FontFile& file) {
    std::unique_ptr<FontFace> face(new FontFace());
    face->path_ = file.path;
    face->data_ = read_file(file.path);
    if (face->data_.empty() || file.face_index < 0) return nullptr;
    hb_blob_t* blob = hb_blob_create_or_fail(reinterpret_cast<const char*>(face->data_.data()),
                                             static_cast<unsigned>(face->data_.size()), HB_MEMORY_MODE_READONLY,
                                             nullptr, nullptr);
    if (!blob) return nullptr;
    if (static_cast<unsigned>(file.face_index) >= hb_face_count(blob)) {
        hb_blob_destroy(blob);
        return nullptr;
    }
    hb_face_t* hb_face = hb_face_create(blob, static_cast<unsigned>(file.face_index));
    hb_blob_destroy(blob);  // the face holds its own reference
    face->hb_font_ = hb_font_create(hb_face);
    face->color_png_ = hb_ot_color_has_png(hb_face);
    face->units_per_em_ = static_cast<int>(hb_face_get_upem(hb_face));
    hb_face_destroy(hb_face);  // the font holds its own reference
    // Outlines (and the metrics the figures have always used: hhea's ascent and descent).
    auto outlines = std::make_unique<Outlines>();
    const int offset = stbtt_GetFontOffsetForIndex(face->data_.data(), file.face_index);
    if (offset >= 0 && stbtt_InitFont(&outlines->info, face->data_.data(), offset)) {
        int line_gap = 0;
        stbtt_GetFontVMetrics(&outlines->info, &face->ascent_, &face->descent_, &line_gap);
        face->outlines_ = std::move(outlines);
    } else if (face->color_png_) {  // a bitmap-only face (no glyf table): HarfBuzz's metrics
        hb_font_extents_t extents{};
        hb_font_get_h_extents(face->hb_font_, &extents);
        face->ascent_ = extents.ascender;
        face->descent_ = extents.descender;
    } else {
        return nullptr;  // neither outlines nor colour bitmaps: nothing to draw with
    }
    if (face->ascent_ - face->descent_ <= 0 || face->units_per_em_ <= 0) return nullptr;
    return face;
}

FontFace::~FontFace() {
    if (hb_font_) hb_font_destroy(hb_font_);
}

unsigned FontFace::glyph_index(char32_t cp) const {
    hb_codepoint_t glyph = 0;
    return hb_font_get_nominal_glyph(hb_font_, cp, &glyph) ? glyph : 0;
}

std::string FontFace::glyph_name(unsigned glyph) const {
    char name[64] = {};
    return hb_font_get_glyph_name(hb_font_, glyph, name, sizeof name) ? name : "";
}

float FontFace::scale(int pixel_height) const {
    return static_cast<float>(pixel_height) / static_cast<float>(ascent_ - descent_);
}

GlyphBitmap FontFace::rasterize(unsigned glyph, int pixel_height) const {
    const float s = scale(pixel_height);
    if (color_png_) {
        GlyphBitmap colored = rasterize_color(glyph, s);
        if (colored.width > 0 || !outlines_) return colored;
    }
    return outlines_ ? rasterize_outline(glyph, s) : GlyphBitmap{};
}

GlyphBitmap FontFace::rasterize_outline(unsigned glyph, float s) const {
    GlyphBitmap g;
    const int index = static_cast<int>(glyph);
    int x1 = 0, y1 = 0;
    stbtt_GetGlyphBitmapBox(&outlines_->info, index, s, s, &g.x0, &g.y0, &x1, &y1);
    g.width = std::max(0, x1 - g.x0);
    g.height = std::max(0, y1 - g.y0);
    g.alpha.assign(static_cast<std::size_t>(g.width) * g.height, 0);
    if (g.width > 0 && g.height > 0)
        stbtt_MakeGlyphBitmap(&outlines_->info, g.alpha.data(), g.width, g.height, g.width, s, s, index);
    return g;
}

GlyphBitmap FontFace::rasterize_color(unsigned glyph, float s) const {
    GlyphBitmap g;
    hb_glyph_extents_t extents{};
    if (!hb_font_get_glyph_extents(hb_font_, glyph, &extents)) return g;
    hb_blob_t* png = hb_ot_color_glyph_reference_png(hb_font_, glyph);
    unsigned size = 0;
    const char* bytes = hb_blob_get_data(png, &size);
    std::vector<std::uint8_t> source;
    int sw = 0, sh = 0;
    const bool decoded = size > 0 && decode_png_rgba(bytes, size, source, sw, sh);
    hb_blob_destroy(png);
    if (!decoded) return g;
    // The bitmap fills the glyph's extents (font units, y up: y_bearing its top, height < 0).
    g.x0 = static_cast<int>(std::lround(extents.x_bearing * s));
    g.y0 = static_cast<int>(std::lround(-extents.y_bearing * s));
    g.width = std::max(1, static_cast<int>(std::lround(extents.width * s)));
    g.height = std::max(1, static_cast<int>(std::lround(-extents.height * s)));
    g.rgba = resample_rgba(source, sw, sh, g.width, g.height);
    return g;
}

}  // namespace hs
