#pragma once
// One line of text laid out for drawing: each character's face chosen (the first face that
// has it, marks and emoji modifiers kept with the character they modify), the line split
// into runs of one face and one direction (core/image/bidi.h), each run shaped by HarfBuzz
// (Arabic letters joined, ligatures, emoji ZWJ sequences as one glyph) and the runs put in
// visual order, leftmost first.
#include <memory>
#include <string_view>
#include <vector>

#include "core/image/font_face.h"

namespace hs {

// A glyph to draw: faces[face]'s glyph, its pen position on the baseline in pixels from the
// line's left end (x) and above the baseline (y).
struct PlacedGlyph {
    int face = 0;
    unsigned glyph = 0;
    float x = 0, y = 0;
};

struct ShapedLine {
    std::vector<PlacedGlyph> glyphs;  // in drawing order, left to right
    float width = 0;                  // the sum of the advances, pixels
};

// text: the line's code points (control characters are the caller's to drop). A character
// no face has is drawn with faces[0]'s .notdef box. faces must not be empty.
ShapedLine shape_line(const std::vector<std::unique_ptr<FontFace>>& faces, std::u32string_view text,
                      int pixel_height);

// Whether cp only modifies the character before it and is drawn in that character's face:
// combining marks, ZWJ, variation selectors, emoji skin tones and tag characters.
bool modifies_previous(char32_t cp);

}  // namespace hs
