// Playground tokenizer (see playground_tokenizer.h).
//
// Rules, applied left to right over the decoded code points:
//   1. whitespace (ASCII, U+00A0, U+2000–U+200B, U+3000, …) separates tokens and is dropped;
//   2. every CJK code point (is_cjk) is its own token, CJK punctuation included;
//   3. every punctuation character (ASCII punctuation, U+2010–U+205E general punctuation
//      such as — … “ ”, U+00A1–U+00BF Latin-1 signs) is its own token, with two exceptions
//      that keep common words whole: '.' or ',' between two ASCII digits ("3.14", "1,000")
//      and an apostrophe between two letters ("don't") stay inside the word;
//   4. anything else (letters, digits, other scripts) accumulates into a word;
//   5. each byte that is not part of valid UTF-8 is its own token, shown as "<0xHH>".
// Ids: FNV-1a (32-bit) of the token's display bytes, mapped to [1, vocab) as
// 1 + hash mod (vocab − 1); id 0 stays free for padding. ids[i] == id_of(text[i]).
#include "core/tokenize/playground_tokenizer.h"

#include <cstdint>
#include <cstdio>

#include "core/error.h"

namespace hs {

namespace {

// One decoded unit of the input: a code point and its bytes, or one invalid byte.
struct CodeUnit {
    char32_t cp = 0;
    std::string bytes;
    bool valid = true;
};

// Decodes UTF-8 strictly: rejects overlong forms, surrogates, code points above
// U+10FFFF and truncated sequences; each offending lead byte becomes one invalid unit.
std::vector<CodeUnit> decode_utf8(const std::string& text) {
    std::vector<CodeUnit> units;
    const auto* s = reinterpret_cast<const unsigned char*>(text.data());
    const size_t n = text.size();
    size_t i = 0;
    while (i < n) {
        const unsigned char b0 = s[i];
        int len = 0;
        char32_t cp = 0;
        char32_t min_cp = 0;
        if (b0 < 0x80) { len = 1; cp = b0; }
        else if ((b0 & 0xE0) == 0xC0) { len = 2; cp = b0 & 0x1F; min_cp = 0x80; }
        else if ((b0 & 0xF0) == 0xE0) { len = 3; cp = b0 & 0x0F; min_cp = 0x800; }
        else if ((b0 & 0xF8) == 0xF0) { len = 4; cp = b0 & 0x07; min_cp = 0x10000; }
        bool ok = len > 0 && i + static_cast<size_t>(len) <= n;
        for (int k = 1; ok && k < len; ++k) {
            const unsigned char b = s[i + static_cast<size_t>(k)];
            if ((b & 0xC0) != 0x80) ok = false;
            else cp = (cp << 6) | (b & 0x3F);
        }
        if (ok && (cp < min_cp || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))) ok = false;
        if (ok) {
            units.push_back(CodeUnit{cp, text.substr(i, static_cast<size_t>(len)), true});
            i += static_cast<size_t>(len);
        } else {
            units.push_back(CodeUnit{0, text.substr(i, 1), false});
            i += 1;
        }
    }
    return units;
}

bool is_space(char32_t cp) {
    return cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' || cp == '\v' || cp == '\f' ||
           cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200B) ||
           cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000 ||
           cp == 0xFEFF;
}

bool is_ascii_punct(char32_t cp) {
    return (cp >= 0x21 && cp <= 0x2F) || (cp >= 0x3A && cp <= 0x40) ||
           (cp >= 0x5B && cp <= 0x60) || (cp >= 0x7B && cp <= 0x7E);
}

bool is_punct(char32_t cp) {
    return is_ascii_punct(cp) || (cp >= 0xA1 && cp <= 0xBF && cp != 0xAA && cp != 0xB2 &&
                                  cp != 0xB3 && cp != 0xB5 && cp != 0xB9 && cp != 0xBA) ||
           cp == 0xD7 || cp == 0xF7 || (cp >= 0x2010 && cp <= 0x205E);
}

bool is_ascii_digit(char32_t cp) { return cp >= '0' && cp <= '9'; }

// Letters for the apostrophe rule: ASCII letters and any non-ASCII code point that is
// neither space, punctuation nor CJK (é, ß, Cyrillic…).
bool is_word_letter(char32_t cp) {
    if (cp < 0x80) return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z');
    return !is_space(cp) && !is_punct(cp) && !is_cjk(cp);
}

// Whether the punctuation at units[i] stays inside the current word.
bool joins_word(const std::vector<CodeUnit>& units, size_t i) {
    if (i == 0 || i + 1 >= units.size()) return false;
    const CodeUnit& prev = units[i - 1];
    const CodeUnit& next = units[i + 1];
    if (!prev.valid || !next.valid) return false;
    const char32_t cp = units[i].cp;
    if (cp == '.' || cp == ',') return is_ascii_digit(prev.cp) && is_ascii_digit(next.cp);
    if (cp == '\'' || cp == 0x2019) return is_word_letter(prev.cp) && is_word_letter(next.cp);
    return false;
}

std::string byte_label(unsigned char b) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "<0x%02X>", static_cast<unsigned>(b));
    return buf;
}

// FNV-1a, 32 bits: h = 2166136261; for each byte: h ^= byte; h *= 16777619 (mod 2³²).
std::uint32_t fnv1a_32(const std::string& bytes) {
    std::uint32_t h = 2166136261u;
    for (const char c : bytes) {
        h ^= static_cast<unsigned char>(c);
        h *= 16777619u;
    }
    return h;
}

}  // namespace

bool is_cjk(char32_t cp) {
    return (cp >= 0x2E80 && cp <= 0x2FDF) ||   // CJK radicals, Kangxi radicals
           (cp >= 0x3000 && cp <= 0x303F) ||   // CJK symbols and punctuation
           (cp >= 0x3040 && cp <= 0x30FF) ||   // Hiragana, Katakana
           (cp >= 0x3100 && cp <= 0x312F) ||   // Bopomofo
           (cp >= 0x31F0 && cp <= 0x31FF) ||   // Katakana phonetic extensions
           (cp >= 0x3300 && cp <= 0x33FF) ||   // CJK compatibility
           (cp >= 0x3400 && cp <= 0x4DBF) ||   // CJK Unified Ideographs Extension A
           (cp >= 0x4E00 && cp <= 0x9FFF) ||   // CJK Unified Ideographs
           (cp >= 0xAC00 && cp <= 0xD7AF) ||   // Hangul syllables
           (cp >= 0xF900 && cp <= 0xFAFF) ||   // CJK Compatibility Ideographs
           (cp >= 0xFE30 && cp <= 0xFE4F) ||   // CJK compatibility forms
           (cp >= 0xFF00 && cp <= 0xFFEF) ||   // halfwidth and fullwidth forms
           (cp >= 0x20000 && cp <= 0x2FA1F);   // Extensions B–F, compatibility supplement
}

PlaygroundTokenizer::PlaygroundTokenizer(int vocab) : vocab_(vocab) {
    if (vocab < 2) {
        throw Error("The playground tokenizer needs a vocabulary of at least 2 ids (id 0 is "
                    "reserved for padding), but vocab is " + std::to_string(vocab) + ".");
    }
}

int PlaygroundTokenizer::id_of(const std::string& token) const {
    const std::uint32_t range = static_cast<std::uint32_t>(vocab_ - 1);
    return 1 + static_cast<int>(fnv1a_32(token) % range);
}

Tokens PlaygroundTokenizer::encode(const std::string& text) const {
    const std::vector<CodeUnit> units = decode_utf8(text);
    Tokens out;
    std::string word;
    auto emit = [&](const std::string& token) {
        out.text.push_back(token);
        out.ids.push_back(id_of(token));
    };
    auto flush_word = [&] {
        if (!word.empty()) emit(word);
        word.clear();
    };
    for (size_t i = 0; i < units.size(); ++i) {
        const CodeUnit& u = units[i];
        if (!u.valid) {
            flush_word();
            emit(byte_label(static_cast<unsigned char>(u.bytes[0])));
        } else if (is_space(u.cp)) {
            flush_word();
        } else if (is_cjk(u.cp) || (is_punct(u.cp) && !joins_word(units, i))) {
            flush_word();
            emit(u.bytes);
        } else {
            word += u.bytes;
        }
    }
    flush_word();
    return out;
}

}  // namespace hs
