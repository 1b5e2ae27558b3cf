#include "core/image/utf8.h"

#include <string>

#include "core/tokenize/unicode_classes.h"

namespace hs {

namespace {

constexpr char32_t kReplacement = 0xFFFD;

// Continuation bytes a lead byte announces: 110xxxxx → 1, 1110xxxx → 2, 11110xxx → 3.
std::size_t continuations_after(unsigned char lead) {
    if ((lead & 0xE0) == 0xC0) return 1;
    if ((lead & 0xF0) == 0xE0) return 2;
    if ((lead & 0xF8) == 0xF0) return 3;
    return 0;
}

bool is_continuation(unsigned char b) { return (b & 0xC0) == 0x80; }

}  // namespace

// The strict decoder (unicode::decode_utf8) reports each offending byte on its own; for
// drawing, a malformed lead byte and the continuation bytes it announced (a truncated,
// overlong or surrogate sequence) become a single U+FFFD, as does each stray byte.
std::u32string utf8_to_codepoints(std::string_view text) {
    const std::string bytes(text);
    const std::vector<unicode::Utf8Unit> units = unicode::decode_utf8(bytes);
    std::u32string out;
    out.reserve(units.size());
    for (std::size_t i = 0; i < units.size(); ++i) {
        if (units[i].valid) {
            out.push_back(units[i].cp);
            continue;
        }
        out.push_back(kReplacement);
        std::size_t swallow = continuations_after(static_cast<unsigned char>(bytes[units[i].offset]));
        while (swallow > 0 && i + 1 < units.size() && !units[i + 1].valid &&
               is_continuation(static_cast<unsigned char>(bytes[units[i + 1].offset]))) {
            ++i;
            --swallow;
        }
    }
    return out;
}

std::string codepoints_to_utf8(std::u32string_view text) {
    std::string out;
    for (char32_t cp : text) unicode::append_utf8(out, cp);
    return out;
}

bool is_cjk_square(char32_t c) {
    return (c >= 0x4E00 && c <= 0x9FFF) ||  // CJK Unified Ideographs
           (c >= 0x3400 && c <= 0x4DBF) ||  // Extension A
           (c >= 0x20000 && c <= 0x2FA1F) ||  // Extensions B–F, compatibility supplement
           (c >= 0x3040 && c <= 0x30FF) ||  // Hiragana, Katakana
           (c >= 0xAC00 && c <= 0xD7AF) ||  // Hangul syllables
           (c >= 0x3000 && c <= 0x303F) ||  // CJK symbols and punctuation (、。「」)
           (c >= 0xFF00 && c <= 0xFF60) ||  // full-width forms (，！？)
           (c >= 0xF900 && c <= 0xFAFF);    // compatibility ideographs
}

}  // namespace hs
