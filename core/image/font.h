#pragma once
// Text rasterisation for exported images (stb_truetype, CPU only).
// A Font is a list of faces tried in order per code point, so a CJK face can come
// first and a Latin face (DejaVu) catches anything it lacks. If no face has a glyph,
// the first face's .notdef box is drawn. Rendered glyphs are cached per
// (face, glyph, pixel height); all methods are thread-safe.
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/image/rgb_image.h"

namespace hs {

struct FontFile {
    std::string path;
    int face_index = 0;  // face inside a .ttc collection
};

class Font {
public:
    // Loads the faces that exist and parse; silently skips the others. A Font with no
    // face is valid: it is !available() and renders empty masks of width 0.
    explicit Font(const std::vector<FontFile>& files);
    ~Font();
    Font(const Font&) = delete;
    Font& operator=(const Font&) = delete;

    // The process-wide default: $HEADSCOPE_FONT (a path, face 0) if set, then
    // WenQuanYi Micro Hei, Noto Sans CJK SC, Droid Sans Fallback, DejaVu Sans.
    // Never null; may be !available() on a machine without any of these fonts,
    // in which case exporters draw no text but still produce the image.
    static const Font& system_default();
    static std::vector<FontFile> default_candidates();

    bool available() const { return !faces_.empty(); }
    std::vector<std::string> loaded_paths() const;
    bool has_glyph(char32_t cp) const;  // some face maps cp to a real glyph

    // One line of text; height = pixel_height (+1), baseline at the primary face's ascent.
    AlphaMask render_text(std::string_view utf8, int pixel_height) const;
    int text_width(std::string_view utf8, int pixel_height) const;
    // Baseline of render_text's mask, in pixels from its top.
    int ascent_px(int pixel_height) const;
    // The em size (CSS/SVG font-size) at which the primary face's ascent − descent is
    // pixel_height: pixel_height · units_per_em / (ascent − descent). pixel_height without a face.
    float em_px(int pixel_height) const;

private:
    struct Face;
    struct Glyph {
        int x0 = 0, y0 = 0;  // bitmap offset from the pen position on the baseline
        int width = 0, height = 0;
        float advance = 0;   // pixels
        std::vector<std::uint8_t> alpha;
    };
    using GlyphKey = std::tuple<int, int, int>;  // face, glyph index, pixel height

    std::pair<int, int> find_glyph(char32_t cp) const;  // (face, glyph index)
    const Glyph& glyph(int face, int glyph_index, int pixel_height) const;

    std::vector<std::unique_ptr<Face>> faces_;
    mutable std::mutex mutex_;
    mutable std::map<GlyphKey, Glyph> cache_;
};

}  // namespace hs
