#pragma once
// Text rasterisation for exported images (CPU only). A Font is a list of faces tried in
// order per character, so a CJK face can come first, DejaVu catch Latin, Greek and Cyrillic,
// Noto faces the other scripts and Noto Color Emoji the emoji. A line is shaped by HarfBuzz
// in runs of one face and one direction (core/image/text_shaping.h: Arabic joined and right
// to left, emoji sequences as one glyph); a character no face has draws the first face's
// .notdef box. Rendered glyphs are cached per (face, glyph, pixel height); all methods are
// thread-safe.
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/image/font_face.h"
#include "core/image/rgb_image.h"

namespace hs {

class Font {
public:
    // Loads the faces that exist and parse; silently skips the others. A Font with no
    // face is valid: it is !available() and renders empty masks of width 0.
    explicit Font(const std::vector<FontFile>& files);
    ~Font();
    Font(const Font&) = delete;
    Font& operator=(const Font&) = delete;

    // The process-wide default: $HEADSCOPE_FONT (a path, face 0) if set, then
    // WenQuanYi Micro Hei, Noto Sans CJK SC, Droid Sans Fallback, DejaVu Sans, Noto Sans
    // for Arabic, Hebrew, Devanagari, Bengali, Tamil, Thai, Armenian, Georgian, Ethiopic and
    // symbols, and Noto Color Emoji (the ones installed).
    // Never null; may be !available() on a machine without any of these fonts,
    // in which case exporters draw no text but still produce the image.
    static const Font& system_default();
    static std::vector<FontFile> default_candidates();

    bool available() const { return !faces_.empty(); }
    std::vector<std::string> loaded_paths() const;
    bool has_glyph(char32_t cp) const;  // some face maps cp to a real glyph
    // The characters of utf8 that no face has, each once, in the order they first appear;
    // controls and characters drawn with the one before (marks, ZWJ, variation selectors,
    // skin tones) are not counted. What a PNG would draw as .notdef boxes.
    std::u32string missing_characters(std::string_view utf8) const;

    // One line of text; height = pixel_height (+1), baseline at the primary face's ascent.
    // Colour glyphs (emoji) come in the mask's rgba, everything else in its alpha.
    AlphaMask render_text(std::string_view utf8, int pixel_height) const;
    int text_width(std::string_view utf8, int pixel_height) const;
    // Baseline of render_text's mask, in pixels from its top.
    int ascent_px(int pixel_height) const;
    // The em size (CSS/SVG font-size) at which the primary face's ascent − descent is
    // pixel_height: pixel_height · units_per_em / (ascent − descent). pixel_height without a face.
    float em_px(int pixel_height) const;

private:
    using GlyphKey = std::tuple<int, unsigned, int>;  // face, glyph index, pixel height
    const GlyphBitmap& glyph(int face, unsigned glyph_index, int pixel_height) const;  // caller holds mutex_
    // A line shaped and its glyphs rasterised: each glyph's bitmap at its pen (rounded, y
    // down from the baseline) and the width the line takes (the advances, or further where
    // the last glyph's ink reaches). What render_text draws and text_width measures.
    struct LaidOutLine {
        struct Glyph {
            const GlyphBitmap* bitmap;
            int x, y;
        };
        std::vector<Glyph> glyphs;
        int width = 0;
    };
    LaidOutLine lay_out(std::string_view utf8, int pixel_height) const;  // caller holds mutex_

    std::vector<std::unique_ptr<FontFace>> faces_;
    mutable std::mutex mutex_;
    mutable std::map<GlyphKey, GlyphBitmap> cache_;
};

}  // namespace hs
