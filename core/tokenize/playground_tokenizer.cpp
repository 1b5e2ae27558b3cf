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

#include "core/error.h"
#include "core/tokenize/unicode_classes.h"

namespace hs {

namespace {

using unicode::Utf8Unit;

// Unicode White_Space plus the zero-width space and the byte-order mark, which separate
// words without showing.
bool is_space(char32_t cp) {
    return unicode::is_white_space(cp) || cp == 0x200B || cp == 0xFEFF;
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
bool joins_word(const std::vector<Utf8Unit>& units, size_t i) {
    if (i == 0 || i + 1 >= units.size()) return false;
    const Utf8Unit& prev = units[i - 1];
    const Utf8Unit& next = units[i + 1];
    if (!prev.valid || !next.valid) return false;
    const char32_t cp = units[i].cp;
    if (cp == '.' || cp == ',') return is_ascii_digit(prev.cp) && is_ascii_digit(next.cp);
    if (cp == '\'' || cp == 0x2019) return is_word_letter(prev.cp) && is_word_letter(next.cp);
    return false;
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
    const std::vector<Utf8Unit> units = unicode::decode_utf8(text);
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
        const Utf8Unit& u = units[i];
        const std::string bytes = text.substr(u.offset, u.length);
        if (!u.valid) {
            flush_word();
            emit(unicode::byte_label(static_cast<unsigned char>(bytes[0])));
        } else if (is_space(u.cp)) {
            flush_word();
        } else if (is_cjk(u.cp) || (is_punct(u.cp) && !joins_word(units, i))) {
            flush_word();
            emit(bytes);
        } else {
            word += bytes;
        }
    }
    flush_word();
    return out;
}

}  // namespace hs
