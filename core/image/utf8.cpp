#include "core/image/utf8.h"

namespace hs {

namespace {
constexpr char32_t kReplacement = 0xFFFD;

bool is_continuation(unsigned char b) { return (b & 0xC0) == 0x80; }
}  // namespace

std::u32string utf8_to_codepoints(std::string_view text) {
    std::u32string out;
    out.reserve(text.size());
    std::size_t i = 0;
    while (i < text.size()) {
        const auto b0 = static_cast<unsigned char>(text[i]);
        int n = 0;           // continuation bytes expected
        char32_t cp = 0;
        char32_t min_cp = 0;  // smallest code point allowed for this length (no overlongs)
        if (b0 < 0x80) { out.push_back(b0); ++i; continue; }
        if ((b0 & 0xE0) == 0xC0) { n = 1; cp = b0 & 0x1F; min_cp = 0x80; }
        else if ((b0 & 0xF0) == 0xE0) { n = 2; cp = b0 & 0x0F; min_cp = 0x800; }
        else if ((b0 & 0xF8) == 0xF0) { n = 3; cp = b0 & 0x07; min_cp = 0x10000; }
        else { out.push_back(kReplacement); ++i; continue; }
        std::size_t j = i + 1;
        int got = 0;
        while (got < n && j < text.size() && is_continuation(static_cast<unsigned char>(text[j]))) {
            cp = (cp << 6) | (static_cast<unsigned char>(text[j]) & 0x3F);
            ++j;
            ++got;
        }
        const bool bad = got < n || cp < min_cp || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF);
        out.push_back(bad ? kReplacement : cp);
        i = j;
    }
    return out;
}

std::string codepoints_to_utf8(std::u32string_view text) {
    std::string out;
    for (char32_t cp : text) {
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = kReplacement;
        if (cp < 0x80) {
            out.push_back(static_cast<char>(cp));
        } else if (cp < 0x800) {
            out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        } else if (cp < 0x10000) {
            out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
            out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        } else {
            out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
            out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        }
    }
    return out;
}

}  // namespace hs
