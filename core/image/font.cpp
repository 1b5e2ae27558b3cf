#include "core/image/font.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "core/image/text_shaping.h"
#include "core/image/utf8.h"

namespace hs {

Font::Font(const std::vector<FontFile>& files) {
    for (const FontFile& file : files)
        if (std::unique_ptr<FontFace> face = FontFace::open(file)) faces_.push_back(std::move(face));
}

Font::~Font() = default;

std::vector<FontFile> Font::default_candidates() {
    std::vector<FontFile> files;
    if (const char* env = std::getenv("HEADSCOPE_FONT"); env && *env) files.push_back({env, 0});
    files.push_back({"/usr/share/fonts/truetype/wqy/wqy-microhei.ttc", 0});
    files.push_back({"/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", 2});  // SC
    files.push_back({"/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf", 0});
    files.push_back({"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 0});
    // fonts-noto-core: the scripts the faces above lack.
    for (const char* script : {"Arabic", "Hebrew", "Devanagari", "Bengali", "Tamil", "Thai", "Armenian", "Georgian",
                               "Ethiopic", "Symbols", "Symbols2"})
        files.push_back({std::string("/usr/share/fonts/truetype/noto/NotoSans") + script + "-Regular.ttf", 0});
    files.push_back({"/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf", 0});  // fonts-noto-color-emoji
    return files;
}

const Font& Font::system_default() {
    static const Font font(default_candidates());
    return font;
}

std::vector<std::string> Font::loaded_paths() const {
    std::vector<std::string> paths;
    for (const auto& f : faces_) paths.push_back(f->path());
    return paths;
}

bool Font::has_glyph(char32_t cp) const {
    return std::any_of(faces_.begin(), faces_.end(), [cp](const auto& f) { return f->glyph_index(cp) != 0; });
}

std::u32string Font::missing_characters(std::string_view utf8) const {
    std::u32string missing;
    for (const char32_t cp : utf8_to_codepoints(utf8)) {
        const bool control = cp < 0x20 || (cp >= 0x7F && cp < 0xA0);
        if (control || modifies_previous(cp) || has_glyph(cp) || missing.find(cp) != std::u32string::npos) continue;
        missing.push_back(cp);
    }
    return missing;
}

const GlyphBitmap& Font::glyph(int face, unsigned glyph_index, int pixel_height) const {
    const GlyphKey key{face, glyph_index, pixel_height};
    if (auto it = cache_.find(key); it != cache_.end()) return it->second;
    return cache_.emplace(key, faces_[static_cast<std::size_t>(face)]->rasterize(glyph_index, pixel_height))
        .first->second;
}

namespace {

// Glyph g drawn into mask with its top-left at (x, y): coverage composited with max()
// (neighbouring glyphs may overlap by a pixel), colour pixels over what is there.
void composite(AlphaMask& mask, const GlyphBitmap& g, int x, int y) {
    for (int gy = 0; gy < g.height; ++gy) {
        const int my = y + gy;
        if (my < 0 || my >= mask.height) continue;
        for (int gx = 0; gx < g.width; ++gx) {
            const int mx = x + gx;
            if (mx < 0 || mx >= mask.width) continue;
            const std::size_t at = static_cast<std::size_t>(my) * mask.width + mx;
            const std::size_t from = static_cast<std::size_t>(gy) * g.width + gx;
            if (g.rgba.empty()) {
                mask.alpha[at] = std::max(mask.alpha[at], g.alpha[from]);
                continue;
            }
            if (mask.rgba.empty()) mask.rgba.assign(mask.alpha.size() * 4, 0);
            const std::uint8_t* src = &g.rgba[from * 4];
            std::uint8_t* dst = &mask.rgba[at * 4];
            // Straight-alpha "over": a = as + ad·(1 − as), c = (cs·as + cd·ad·(1 − as)) / a.
            const int as = src[3], ad = dst[3];
            const int a = as + ad * (255 - as) / 255;
            if (a == 0) continue;
            for (int k = 0; k < 3; ++k) dst[k] = static_cast<std::uint8_t>((src[k] * as + dst[k] * ad * (255 - as) / 255) / a);
            dst[3] = static_cast<std::uint8_t>(a);
        }
    }
}

}  // namespace

Font::LaidOutLine Font::lay_out(std::string_view utf8, int pixel_height) const {
    std::u32string text = utf8_to_codepoints(utf8);
    std::erase_if(text, [](char32_t cp) { return cp < 0x20 || cp == 0x7F; });  // control characters draw nothing
    const ShapedLine line = shape_line(faces_, text, pixel_height);
    LaidOutLine out;
    out.width = static_cast<int>(std::ceil(line.width));
    for (const PlacedGlyph& p : line.glyphs) {
        const GlyphBitmap& g = glyph(p.face, p.glyph, pixel_height);
        out.glyphs.push_back({&g, static_cast<int>(std::lround(p.x)), static_cast<int>(std::lround(-p.y))});
        if (g.width > 0) out.width = std::max(out.width, out.glyphs.back().x + g.x0 + g.width);
    }
    return out;
}

AlphaMask Font::render_text(std::string_view utf8, int pixel_height) const {
    AlphaMask mask;
    if (!available() || pixel_height <= 0) return mask;
    mask.baseline = ascent_px(pixel_height);
    mask.height = pixel_height + 1;
    std::lock_guard<std::mutex> lock(mutex_);
    const LaidOutLine line = lay_out(utf8, pixel_height);
    mask.width = line.width;
    mask.alpha.assign(static_cast<std::size_t>(mask.width) * mask.height, 0);
    for (const LaidOutLine::Glyph& p : line.glyphs)
        composite(mask, *p.bitmap, p.x + p.bitmap->x0, mask.baseline + p.y + p.bitmap->y0);
    return mask;
}

int Font::ascent_px(int pixel_height) const {
    if (!available() || pixel_height <= 0) return 0;
    const FontFace& primary = *faces_.front();
    return static_cast<int>(std::lround(primary.ascent() * primary.scale(pixel_height)));
}

float Font::em_px(int pixel_height) const {
    if (!available()) return static_cast<float>(pixel_height);
    const FontFace& primary = *faces_.front();
    return primary.scale(pixel_height) * static_cast<float>(primary.units_per_em());
}

int Font::text_width(std::string_view utf8, int pixel_height) const {
    if (!available() || pixel_height <= 0) return 0;
    std::lock_guard<std::mutex> lock(mutex_);
    return lay_out(utf8, pixel_height).width;  // no mask drawn to be measured
}

}  // namespace hs
