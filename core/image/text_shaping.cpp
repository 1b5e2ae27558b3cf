#include "core/image/text_shaping.h"

#include <hb.h>

#include <algorithm>

#include "core/image/bidi.h"

namespace hs {

bool modifies_previous(char32_t cp) {
    if (cp == 0x200D || (cp >= 0xFE00 && cp <= 0xFE0F) || (cp >= 0x1F3FB && cp <= 0x1F3FF) ||
        (cp >= 0xE0020 && cp <= 0xE007F) || (cp >= 0xE0100 && cp <= 0xE01EF))
        return true;
    switch (hb_unicode_general_category(hb_unicode_funcs_get_default(), cp)) {
        case HB_UNICODE_GENERAL_CATEGORY_NON_SPACING_MARK:
        case HB_UNICODE_GENERAL_CATEGORY_SPACING_MARK:
        case HB_UNICODE_GENERAL_CATEGORY_ENCLOSING_MARK: return true;
        default: return false;
    }
}

namespace {

// The face of each code point: the first with a glyph for it; a modifier, and the character
// after a ZWJ (👨‍👩‍👧 is one glyph of one face), take the face of the character before.
std::vector<int> faces_of(const std::vector<std::unique_ptr<FontFace>>& faces, std::u32string_view text) {
    std::vector<int> out(text.size(), 0);
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (i > 0 && (modifies_previous(text[i]) || text[i - 1] == 0x200D)) {
            out[i] = out[i - 1];
            continue;
        }
        // An emoji drawn as one (pictographs from U+1F000, or any character asking for it
        // with VS16) comes from a colour face first: DejaVu Sans has a black 😀 of its own.
        const bool emoji = text[i] >= 0x1F000 || (i + 1 < text.size() && text[i + 1] == 0xFE0F);
        int chosen = -1;
        for (int pass = emoji ? 0 : 1; pass < 2 && chosen < 0; ++pass)
            for (std::size_t f = 0; f < faces.size() && chosen < 0; ++f)
                if ((pass == 1 || faces[f]->has_color()) && faces[f]->glyph_index(text[i]) != 0) chosen = static_cast<int>(f);
        out[i] = std::max(chosen, 0);
    }
    return out;
}

struct Run {
    std::size_t start = 0, length = 0;
    int face = 0, level = 0;
};

// Maximal runs of one face and one bidi level, in logical order.
std::vector<Run> runs_of(const std::vector<int>& face, const std::vector<int>& level) {
    std::vector<Run> runs;
    for (std::size_t i = 0; i < face.size(); ++i) {
        if (runs.empty() || runs.back().face != face[i] || runs.back().level != level[i])
            runs.push_back({i, 0, face[i], level[i]});
        ++runs.back().length;
    }
    return runs;
}

}  // namespace

ShapedLine shape_line(const std::vector<std::unique_ptr<FontFace>>& faces, std::u32string_view text,
                      int pixel_height) {
    ShapedLine line;
    if (text.empty() || faces.empty()) return line;
    const std::vector<Run> runs = runs_of(faces_of(faces, text), bidi_levels(text));
    std::vector<int> levels;
    for (const Run& r : runs) levels.push_back(r.level);
    const std::vector<unsigned> context(text.begin(), text.end());  // HarfBuzz sees the whole line
    hb_buffer_t* buffer = hb_buffer_create();
    float pen = 0;
    for (int k : visual_run_order(levels)) {
        const Run& run = runs[static_cast<std::size_t>(k)];
        const FontFace& face = *faces[static_cast<std::size_t>(run.face)];
        hb_buffer_clear_contents(buffer);
        hb_buffer_add_codepoints(buffer, context.data(), static_cast<int>(context.size()),
                                 static_cast<unsigned>(run.start), static_cast<int>(run.length));
        hb_buffer_set_direction(buffer, run.level % 2 ? HB_DIRECTION_RTL : HB_DIRECTION_LTR);
        hb_buffer_guess_segment_properties(buffer);  // script and language from the run
        hb_shape(face.shaper(), buffer, nullptr, 0);
        unsigned n = 0;
        const hb_glyph_info_t* info = hb_buffer_get_glyph_infos(buffer, &n);
        const hb_glyph_position_t* pos = hb_buffer_get_glyph_positions(buffer, &n);
        // HarfBuzz gives a right-to-left run's glyphs in visual order already; positions are
        // in font units (the font's default scale), pixels = units · scale.
        const float s = face.scale(pixel_height);
        for (unsigned g = 0; g < n; ++g) {
            line.glyphs.push_back({run.face, info[g].codepoint, pen + pos[g].x_offset * s, pos[g].y_offset * s});
            pen += pos[g].x_advance * s;
        }
    }
    hb_buffer_destroy(buffer);
    line.width = pen;
    return line;
}

}  // namespace hs
