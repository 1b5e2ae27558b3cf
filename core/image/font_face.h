#pragma once
// One face of a font file, for text in exported figures: HarfBuzz reads its character map
// and shapes text with it (core/image/text_shaping.h), stb_truetype rasterises its outlines,
// and a colour bitmap face (Noto Color Emoji: a PNG per glyph, no outlines) gives its
// glyphs in their own colours, decoded with libpng.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

struct hb_font_t;

namespace hs {

struct FontFile {
    std::string path;
    int face_index = 0;  // face inside a .ttc collection
};

// A rasterised glyph, placed relative to the pen on the baseline (y down).
struct GlyphBitmap {
    int x0 = 0, y0 = 0;  // the bitmap's top-left from the pen
    int width = 0, height = 0;
    std::vector<std::uint8_t> alpha;  // (height, width) coverage, drawn in the text's colour
    std::vector<std::uint8_t> rgba;   // (height, width, 4) a colour glyph's own pixels (straight
                                      // alpha); then alpha is empty
};

class FontFace {
public:
    // nullptr when the file is missing, unreadable or has no face `face_index`.
    static std::unique_ptr<FontFace> open(const FontFile& file);
    ~FontFace();
    FontFace(const FontFace&) = delete;
    FontFace& operator=(const FontFace&) = delete;

    const std::string& path() const { return path_; }
    // The glyph of code point cp, 0 when the face has none.
    unsigned glyph_index(char32_t cp) const;
    // Font units to pixels for a line pixel_height tall: pixel_height / (ascent − descent).
    float scale(int pixel_height) const;
    int ascent() const { return ascent_; }    // font units, up from the baseline
    int descent() const { return descent_; }  // font units, negative below it
    int units_per_em() const { return units_per_em_; }
    // HarfBuzz's font at its default scale (positions in font units).
    hb_font_t* shaper() const { return hb_font_; }
    // The glyph's name in the face's post or CFF table ("uni0645.init"), "" when it has none.
    std::string glyph_name(unsigned glyph) const;
    // A colour bitmap face (emoji in their own colours).
    bool has_color() const { return color_png_; }
    // The glyph drawn for a line pixel_height tall: outlines as coverage; in a colour
    // bitmap face its PNG, scaled to the glyph's extents, as RGBA.
    GlyphBitmap rasterize(unsigned glyph, int pixel_height) const;

private:
    FontFace() = default;
    GlyphBitmap rasterize_outline(unsigned glyph, float scale) const;
    GlyphBitmap rasterize_color(unsigned glyph, float scale) const;

    struct Outlines;  // stb_truetype's view of the file (absent in a bitmap-only face)
    std::string path_;
    std::vector<unsigned char> data_;  // the file; HarfBuzz and stb read it in place
    std::unique_ptr<Outlines> outlines_;
    hb_font_t* hb_font_ = nullptr;
    bool color_png_ = false;
    int ascent_ = 0, descent_ = 0, units_per_em_ = 0;
};

}  // namespace hs
