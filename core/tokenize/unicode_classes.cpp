// Unicode classes by binary search over the generated range tables (see
// unicode_classes.h), plus strict UTF-8 decoding/encoding.
#include "core/tokenize/unicode_classes.h"

#include <algorithm>
#include <cstdio>

namespace hs::unicode {

namespace tables {
extern const CodeRange kLetter[];
extern const size_t kLetterCount;
extern const CodeRange kNumber[];
extern const size_t kNumberCount;
extern const CodeRange kPunctuation[];
extern const size_t kPunctuationCount;
extern const CodeRange kNonspacingMark[];
extern const size_t kNonspacingMarkCount;
extern const CodeRange kControl[];
extern const size_t kControlCount;
extern const LowerRun kLower[];
extern const size_t kLowerCount;
extern const StrippedDecomposition kStripped[];
extern const size_t kStrippedCount;
}  // namespace tables

namespace {

// Ranges are sorted and disjoint: find the last range with lo <= cp, test cp <= hi.
bool in_ranges(const CodeRange* ranges, size_t count, char32_t cp) {
    const CodeRange* end = ranges + count;
    const CodeRange* it = std::upper_bound(ranges, end, cp,
                                           [](char32_t c, const CodeRange& r) { return c < r.lo; });
    if (it == ranges) return false;
    --it;
    return cp <= it->hi;
}

// Hangul syllable decomposition (Unicode §3.12): S = SBase + (L·VCount + V)·TCount + T.
constexpr char32_t kHangulBase = 0xAC00, kHangulLast = 0xD7A3;
constexpr char32_t kJamoL = 0x1100, kJamoV = 0x1161, kJamoT = 0x11A7;
constexpr char32_t kJamoVCount = 21, kJamoTCount = 28;

}  // namespace

bool is_letter(char32_t cp) {
    if (cp < 0x80) return (cp | 0x20) >= 'a' && (cp | 0x20) <= 'z';
    return in_ranges(tables::kLetter, tables::kLetterCount, cp);
}

bool is_number(char32_t cp) {
    if (cp < 0x80) return cp >= '0' && cp <= '9';
    return in_ranges(tables::kNumber, tables::kNumberCount, cp);
}

bool is_punctuation(char32_t cp) {
    return in_ranges(tables::kPunctuation, tables::kPunctuationCount, cp);
}

bool is_nonspacing_mark(char32_t cp) {
    return in_ranges(tables::kNonspacingMark, tables::kNonspacingMarkCount, cp);
}

bool is_control(char32_t cp) { return in_ranges(tables::kControl, tables::kControlCount, cp); }

bool is_white_space(char32_t cp) {
    return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 ||
           cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 ||
           cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

std::u32string to_lower(char32_t cp) {
    if (cp < 0x80) return std::u32string(1, (cp >= 'A' && cp <= 'Z') ? cp + 32 : cp);
    if (cp == 0x130) return U"i\u0307";  // İ -> i + combining dot above
    const LowerRun* begin = tables::kLower;
    const LowerRun* end = begin + tables::kLowerCount;
    const LowerRun* it =
        std::upper_bound(begin, end, cp, [](char32_t c, const LowerRun& r) { return c < r.lo; });
    if (it != begin) {
        --it;
        if (cp <= it->hi && (cp - it->lo) % static_cast<char32_t>(it->stride) == 0)
            return std::u32string(1, static_cast<char32_t>(static_cast<int64_t>(cp) + it->delta));
    }
    return std::u32string(1, cp);
}

std::u32string strip_accents(char32_t cp) {
    if (cp < 0x80) return std::u32string(1, cp);
    if (cp >= kHangulBase && cp <= kHangulLast) {
        const char32_t s = cp - kHangulBase;
        std::u32string out;
        out += kJamoL + s / (kJamoVCount * kJamoTCount);
        out += kJamoV + (s % (kJamoVCount * kJamoTCount)) / kJamoTCount;
        if (s % kJamoTCount != 0) out += kJamoT + s % kJamoTCount;
        return out;
    }
    if (is_nonspacing_mark(cp)) return {};
    const StrippedDecomposition* begin = tables::kStripped;
    const StrippedDecomposition* end = begin + tables::kStrippedCount;
    const StrippedDecomposition* it = std::lower_bound(
        begin, end, cp, [](const StrippedDecomposition& d, char32_t c) { return d.cp < c; });
    if (it == end || it->cp != cp) return std::u32string(1, cp);
    std::u32string out;
    for (char32_t c : it->out)
        if (c != 0) out += c;
    return out;
}

std::vector<Utf8Unit> decode_utf8(const std::string& text) {
    std::vector<Utf8Unit> units;
    units.reserve(text.size());
    const auto* s = reinterpret_cast<const unsigned char*>(text.data());
    const size_t n = text.size();
    size_t i = 0;
    while (i < n) {
        const unsigned char b0 = s[i];
        size_t len = 0;
        char32_t cp = 0, min_cp = 0;
        if (b0 < 0x80) { len = 1; cp = b0; }
        else if ((b0 & 0xE0) == 0xC0) { len = 2; cp = b0 & 0x1F; min_cp = 0x80; }
        else if ((b0 & 0xF0) == 0xE0) { len = 3; cp = b0 & 0x0F; min_cp = 0x800; }
        else if ((b0 & 0xF8) == 0xF0) { len = 4; cp = b0 & 0x07; min_cp = 0x10000; }
        bool ok = len > 0 && i + len <= n;
        for (size_t k = 1; ok && k < len; ++k) {
            const unsigned char b = s[i + k];
            if ((b & 0xC0) != 0x80) ok = false;
            else cp = (cp << 6) | (b & 0x3F);
        }
        if (ok && (cp < min_cp || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))) ok = false;
        if (ok) {
            units.push_back(Utf8Unit{cp, i, len, true});
            i += len;
        } else {
            units.push_back(Utf8Unit{b0, i, 1, false});
            i += 1;
        }
    }
    return units;
}

void append_utf8(std::string& out, char32_t cp) {
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;  // not encodable
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

std::string to_utf8(const std::u32string& cps) {
    std::string out;
    for (char32_t cp : cps) append_utf8(out, cp);
    return out;
}

bool is_valid_utf8(const std::string& bytes) {
    for (const Utf8Unit& u : decode_utf8(bytes))
        if (!u.valid) return false;
    return true;
}

std::string byte_label(unsigned char b) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "<0x%02X>", static_cast<unsigned>(b));
    return hex;
}

std::string readable_bytes(const std::string& bytes) {
    std::string out;
    for (const Utf8Unit& u : decode_utf8(bytes)) {
        if (u.valid) out.append(bytes, u.offset, u.length);
        else out += byte_label(static_cast<unsigned char>(bytes[u.offset]));
    }
    return out;
}

std::string replace_invalid_utf8(const std::string& bytes) {
    std::string out;
    for (const Utf8Unit& u : decode_utf8(bytes)) {
        if (u.valid) out.append(bytes, u.offset, u.length);
        else append_utf8(out, 0xFFFD);
    }
    return out;
}

}  // namespace hs::unicode
