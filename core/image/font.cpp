// stb_truetype glue. The stb implementation is compiled into libstb (linked by
// headscope_core), so this file only includes the declarations.
#include "core/image/font.h"

#include <stb_truetype.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include "core/image/utf8.h"

namespace hs {

struct Font::Face {
    std::string path;
    std::vector<unsigned char> data;  // must outlive info
    stbtt_fontinfo info{};
    int ascent = 0, descent = 0;      // font units; ascent − descent = one "pixel height"
};

namespace {

std::vector<unsigned char> read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return {};
    return std::vector<unsigned char>(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

Font::Font(const std::vector<FontFile>& files) {
    for (const FontFile& file : files) {
        auto face = std::make_unique<Face>();
        face->path = file.path;
        face->data = read_file(file.path);
        if (face->data.empty()) continue;
        const int offset = stbtt_GetFontOffsetForIndex(face->data.data(), file.face_index);
        if (offset < 0) continue;
        if (!stbtt_InitFont(&face->info, face->data.data(), offset)) continue;
        int line_gap = 0;
        stbtt_GetFontVMetrics(&face->info, &face->ascent, &face->descent, &line_gap);
        if (face->ascent - face->descent <= 0) continue;
        faces_.push_back(std::move(face));
    }
}

Font::~Font() = default;

std::vector<FontFile> Font::default_candidates() {
    std::vector<FontFile> files;
    if (const char* env = std::getenv("HEADSCOPE_FONT"); env && *env) files.push_back({env, 0});
    files.push_back({"/usr/share/fonts/truetype/wqy/wqy-microhei.ttc", 0});
    files.push_back({"/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", 2});  // SC
    files.push_back({"/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf", 0});
    files.push_back({"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 0});
    return files;
}

const Font& Font::system_default() {
    static const Font font(default_candidates());
    return font;
}

std::vector<std::string> Font::loaded_paths() const {
    std::vector<std::string> paths;
    for (const auto& f : faces_) paths.push_back(f->path);
    return paths;
}

std::pair<int, int> Font::find_glyph(char32_t cp) const {
    for (std::size_t i = 0; i < faces_.size(); ++i) {
        const int g = stbtt_FindGlyphIndex(&faces_[i]->info, static_cast<int>(cp));
        if (g != 0) return {static_cast<int>(i), g};
    }
    return {0, 0};  // .notdef of the primary face
}

bool Font::has_glyph(char32_t cp) const {
    for (const auto& f : faces_)
        if (stbtt_FindGlyphIndex(&f->info, static_cast<int>(cp)) != 0) return true;
    return false;
}

const Font::Glyph& Font::glyph(int face, int glyph_index, int pixel_height) const {
    // Caller holds mutex_.
    const GlyphKey key{face, glyph_index, pixel_height};
    if (auto it = cache_.find(key); it != cache_.end()) return it->second;
    const Face& f = *faces_[static_cast<std::size_t>(face)];
    const float scale = stbtt_ScaleForPixelHeight(&f.info, static_cast<float>(pixel_height));
    Glyph g;
    int advance = 0, lsb = 0;
    stbtt_GetGlyphHMetrics(&f.info, glyph_index, &advance, &lsb);
    g.advance = static_cast<float>(advance) * scale;
    int x1 = 0, y1 = 0;
    stbtt_GetGlyphBitmapBox(&f.info, glyph_index, scale, scale, &g.x0, &g.y0, &x1, &y1);
    g.width = std::max(0, x1 - g.x0);
    g.height = std::max(0, y1 - g.y0);
    g.alpha.assign(static_cast<std::size_t>(g.width) * g.height, 0);
    if (g.width > 0 && g.height > 0)
        stbtt_MakeGlyphBitmap(&f.info, g.alpha.data(), g.width, g.height, g.width, scale, scale,
                              glyph_index);
    return cache_.emplace(key, std::move(g)).first->second;
}

AlphaMask Font::render_text(std::string_view utf8, int pixel_height) const {
    AlphaMask mask;
    if (!available() || pixel_height <= 0) return mask;
    const Face& primary = *faces_.front();
    const float primary_scale = stbtt_ScaleForPixelHeight(&primary.info, static_cast<float>(pixel_height));
    mask.baseline = static_cast<int>(std::lround(primary.ascent * primary_scale));
    mask.height = pixel_height + 1;

    std::lock_guard<std::mutex> lock(mutex_);
    // Pass 1: pen positions (x = Σ advances, rounded per glyph) and total width.
    struct Placed { const Glyph* g; int x; };
    std::vector<Placed> placed;
    float pen = 0.0f;
    for (char32_t cp : utf8_to_codepoints(utf8)) {
        if (cp < 0x20 || cp == 0x7F) continue;  // control characters draw nothing
        const auto [face, index] = find_glyph(cp);
        const Glyph& g = glyph(face, index, pixel_height);
        placed.push_back({&g, static_cast<int>(std::lround(pen))});
        pen += g.advance;
    }
    mask.width = static_cast<int>(std::ceil(pen));
    if (!placed.empty()) {
        const Placed& last = placed.back();
        mask.width = std::max(mask.width, last.x + last.g->x0 + last.g->width);
    }
    mask.alpha.assign(static_cast<std::size_t>(mask.width) * mask.height, 0);
    // Pass 2: composite glyph coverage with max() (glyphs may overlap by a pixel).
    for (const Placed& p : placed) {
        for (int gy = 0; gy < p.g->height; ++gy) {
            const int y = mask.baseline + p.g->y0 + gy;
            if (y < 0 || y >= mask.height) continue;
            for (int gx = 0; gx < p.g->width; ++gx) {
                const int x = p.x + p.g->x0 + gx;
                if (x < 0 || x >= mask.width) continue;
                auto& dst = mask.alpha[static_cast<std::size_t>(y) * mask.width + x];
                dst = std::max(dst, p.g->alpha[static_cast<std::size_t>(gy) * p.g->width + gx]);
            }
        }
    }
    return mask;
}

int Font::ascent_px(int pixel_height) const {
    if (!available() || pixel_height <= 0) return 0;
    const Face& primary = *faces_.front();
    return static_cast<int>(std::lround(
        primary.ascent * stbtt_ScaleForPixelHeight(&primary.info, static_cast<float>(pixel_height))));
}

float Font::em_px(int pixel_height) const {
    if (!available()) return static_cast<float>(pixel_height);
    const Face& primary = *faces_.front();
    // ScaleForPixelHeight(h) = h / (ascent − descent); ScaleForMappingEmToPixels(e) = e / units_per_em.
    return stbtt_ScaleForPixelHeight(&primary.info, static_cast<float>(pixel_height)) /
           stbtt_ScaleForMappingEmToPixels(&primary.info, 1.0f);
}

int Font::text_width(std::string_view utf8, int pixel_height) const {
    return render_text(utf8, pixel_height).width;
}

}  // namespace hs
