// Pre-tokenisation regexes as explicit scanners (see pretokenize.h).
//
// A regex alternation takes, at each position, the FIRST alternative that matches (not
// the longest). Each scanner below tries the alternatives in pattern order and returns
// the end of the first that matches; greedy quantifiers followed by a look-ahead or a
// required class are resolved by the backtracking the regex engine would do, written
// out in the comments.
#include "core/tokenize/pretokenize.h"

#include "core/tokenize/unicode_classes.h"

namespace hs {

namespace {

enum class CharClass { Letter, Number, Space, Other };

struct Char {
    char32_t cp;
    CharClass cls;
};

std::vector<Char> classify(const std::string& text, std::vector<size_t>& offsets) {
    std::vector<Char> chars;
    for (const unicode::Utf8Unit& u : unicode::decode_utf8(text)) {
        CharClass cls = CharClass::Other;
        if (u.valid) {
            if (unicode::is_letter(u.cp)) cls = CharClass::Letter;
            else if (unicode::is_number(u.cp)) cls = CharClass::Number;
            else if (unicode::is_white_space(u.cp)) cls = CharClass::Space;
        }
        // An invalid byte gets a code point no ASCII test can mistake it for.
        chars.push_back(Char{u.valid ? u.cp : 0xFFFFFFFFu, cls});
        offsets.push_back(u.offset);
    }
    offsets.push_back(text.size());
    return chars;
}

char32_t fold_ascii(char32_t cp) { return (cp >= 'A' && cp <= 'Z') ? cp + 32 : cp; }

// 's 't 're 've 'm 'll 'd at i; returns the end or i when none matches.
size_t match_contraction(const std::vector<Char>& c, size_t i, bool ignore_case) {
    const size_t n = c.size();
    if (c[i].cp != '\'' || i + 1 >= n) return i;
    auto at = [&](size_t k) { return ignore_case ? fold_ascii(c[k].cp) : c[k].cp; };
    const char32_t a = at(i + 1);
    if (a == 's' || a == 't' || a == 'm' || a == 'd') return i + 2;
    if (i + 2 < n) {
        const char32_t b = at(i + 2);
        if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return i + 3;
    }
    return i;
}

size_t run_end(const std::vector<Char>& c, size_t i, CharClass cls) {
    while (i < c.size() && c[i].cls == cls) ++i;
    return i;
}

// \s+(?!\S) then \s+ at i (c[i] is a space). The greedy run i..j is followed by a
// non-space (or nothing). At the end of the text the whole run matches; otherwise the
// engine backs off one character so the look-ahead sees a space, which works when the
// run has at least two characters; a single space falls through to \s+, taking it alone.
size_t match_trailing_space(const std::vector<Char>& c, size_t i) {
    const size_t j = run_end(c, i, CharClass::Space);
    if (j == c.size()) return j;
    return j - i >= 2 ? j - 1 : j;
}

std::vector<std::string> cut(const std::string& text, const std::vector<size_t>& offsets,
                             const std::vector<size_t>& ends) {
    std::vector<std::string> pieces;
    size_t start = 0;
    for (size_t e : ends) {
        pieces.push_back(text.substr(offsets[start], offsets[e] - offsets[start]));
        start = e;
    }
    return pieces;
}

size_t gpt2_next(const std::vector<Char>& c, size_t i) {
    const size_t n = c.size();
    // 's|'t|'re|'ve|'m|'ll|'d
    if (size_t e = match_contraction(c, i, false); e != i) return e;
    // ' ?X+' for X in {\p{L}, \p{N}, [^\s\p{L}\p{N}]}: with an ASCII space at i the run
    // starts at i + 1 (the space itself is never in X); otherwise at i.
    const size_t s = (c[i].cp == ' ' && i + 1 < n) ? i + 1 : i;
    if (c[s].cls != CharClass::Space) return run_end(c, s, c[s].cls);
    // \s+(?!\S)|\s+
    return match_trailing_space(c, i);
}

size_t llama3_next(const std::vector<Char>& c, size_t i, size_t max_digits) {
    const size_t n = c.size();
    // (?i:'s|'t|'re|'ve|'m|'ll|'d)
    if (size_t e = match_contraction(c, i, true); e != i) return e;
    // [^\r\n\p{L}\p{N}]?\p{L}+ : one optional char that is neither CR/LF nor a letter or
    // number (spaces and punctuation qualify), then letters.
    const bool may_prefix = c[i].cp != '\r' && c[i].cp != '\n' &&
                            c[i].cls != CharClass::Letter && c[i].cls != CharClass::Number;
    if (may_prefix && i + 1 < n && c[i + 1].cls == CharClass::Letter)
        return run_end(c, i + 1, CharClass::Letter);
    if (c[i].cls == CharClass::Letter) return run_end(c, i, CharClass::Letter);
    // \p{N}{1,max_digits}
    if (c[i].cls == CharClass::Number) {
        size_t e = i;
        while (e < n && e - i < max_digits && c[e].cls == CharClass::Number) ++e;
        return e;
    }
    //  ?[^\s\p{L}\p{N}]+[\r\n]*
    const size_t s = (c[i].cp == ' ' && i + 1 < n && c[i + 1].cls == CharClass::Other) ? i + 1 : i;
    if (c[s].cls == CharClass::Other) {
        size_t e = run_end(c, s, CharClass::Other);
        while (e < n && (c[e].cp == '\r' || c[e].cp == '\n')) ++e;
        return e;
    }
    // \s*[\r\n]+ : greedy \s* backs off to the LAST CR/LF of the space run, then [\r\n]+
    // takes it (the character after it is not CR/LF, or the run would continue).
    const size_t j = run_end(c, i, CharClass::Space);
    for (size_t k = j; k > i; --k)
        if (c[k - 1].cp == '\r' || c[k - 1].cp == '\n') return k;
    // \s+(?!\S)|\s+
    return match_trailing_space(c, i);
}

}  // namespace

std::vector<std::string> gpt2_pretokenize(const std::string& text) {
    std::vector<size_t> offsets;
    const std::vector<Char> chars = classify(text, offsets);
    std::vector<size_t> ends;
    for (size_t i = 0; i < chars.size(); i = ends.back()) ends.push_back(gpt2_next(chars, i));
    return cut(text, offsets, ends);
}

std::vector<std::string> llama3_pretokenize(const std::string& text, int max_digits) {
    std::vector<size_t> offsets;
    const std::vector<Char> chars = classify(text, offsets);
    const size_t digits = max_digits < 1 ? 1 : static_cast<size_t>(max_digits);
    std::vector<size_t> ends;
    for (size_t i = 0; i < chars.size(); i = ends.back())
        ends.push_back(llama3_next(chars, i, digits));
    return cut(text, offsets, ends);
}

}  // namespace hs
