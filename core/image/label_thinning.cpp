#include "core/image/label_thinning.h"

#include <algorithm>
#include <set>

#include "core/image/utf8.h"
#include "core/tokenize/byte_fallback.h"
#include "core/tokenize/chinese_words.h"

namespace hs {
namespace {

bool has_prefix(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

bool marked_start(const std::string& t) {
    return has_prefix(t, " ") || has_prefix(t, "\xE2\x96\x81") /* ▁ */ || has_prefix(t, "\xC4\xA0") /* Ġ */;
}

// "<0xE5>", "<0x98><0x80>": one or more byte labels (a byte-level token's raw bytes).
bool only_byte_labels(const std::string& t) {
    if (t.empty() || t.size() % 6 != 0) return false;
    for (std::size_t at = 0; at < t.size(); at += 6)
        if (!is_byte_token(t.substr(at, 6))) return false;
    return true;
}

// "<s>", "[CLS]": special tokens (a byte token "<0xE5>" is a piece of a character instead).
bool is_special(const std::string& t) {
    return t.size() >= 3 && !only_byte_labels(t) &&
           ((t.front() == '<' && t.back() == '>') || (t.front() == '[' && t.back() == ']'));
}

bool starts_with_cjk(const std::string& t) {
    const std::u32string cps = utf8_to_codepoints(t.substr(0, 4));
    return !cps.empty() && is_cjk_square(cps.front());
}

// A line break as the tokenizers store it: "\n" (and "\r\n"), SentencePiece's byte token
// "<0x0A>", GPT-2's "Ċ" (U+010A, the byte 0x0A); one or several.
bool is_line_break(const std::string& t) {
    if (t.empty()) return false;
    for (std::size_t at = 0; at < t.size();) {
        if (t[at] == '\n' || t[at] == '\r') ++at;
        else if (t.compare(at, 6, "<0x0A>") == 0 || t.compare(at, 6, "<0x0D>") == 0) at += 6;
        else if (t.compare(at, 2, "\xC4\x8A") == 0 || t.compare(at, 2, "\xC4\x8D") == 0) at += 2;  // Ċ, č (\r)
        else return false;
    }
    return true;
}

bool uses_start_marks(const std::vector<std::string>& tokens) {
    return std::any_of(tokens.begin(), tokens.end(), marked_start);
}

// Whether tokens[i] starts a word, the tokenizer's marking known (uses_start_marks).
bool starts_word_marked(const std::vector<std::string>& tokens, int i, bool marking) {
    if (i <= 0 || i >= static_cast<int>(tokens.size())) return true;
    const std::string& t = tokens[static_cast<std::size_t>(i)];
    const std::string& before = tokens[static_cast<std::size_t>(i - 1)];
    if (is_special(t) || is_special(before) || starts_with_cjk(t)) return true;
    if (is_line_break(t) || is_line_break(before)) return true;  // a line ends the word before it
    if (has_prefix(t, "##")) return false;
    // A tokenizer that marks word starts marks them all: an unmarked piece continues a word.
    return marking ? marked_start(t) : true;
}

// A token that is one CJK character ("张"), which a word of several may continue.
bool is_one_cjk_character(const std::string& t) {
    const std::u32string cps = utf8_to_codepoints(t);
    return cps.size() == 1 && is_cjk_square(cps[0]);
}

// Chinese has no spaces, so a model that reads it a character per token marks no word: each
// character counts as a start, and thinning to every other label may keep 娜 of 李娜. Runs of
// such tokens are split into the default grammar's words (known_chinese_words) by greedy
// longest match; the characters inside a matched word stop being starts.
void join_known_chinese_words(const std::vector<std::string>& tokens, std::vector<bool>& starts) {
    static const std::set<std::string> kWords(known_chinese_words().begin(), known_chinese_words().end());
    constexpr int kLongestWord = 4;  // characters
    const int n = static_cast<int>(tokens.size());
    std::vector<bool> character(tokens.size());  // each token decoded once
    for (std::size_t i = 0; i < tokens.size(); ++i) character[i] = is_one_cjk_character(tokens[i]);
    for (int i = 0; i < n;) {
        int run = 0;  // characters from i, up to a word's length
        while (run < kLongestWord && i + run < n && character[static_cast<std::size_t>(i + run)]) ++run;
        int length = 1;
        for (int k = run; k >= 2 && length == 1; --k) {
            std::string word;
            for (int j = i; j < i + k; ++j) word += tokens[static_cast<std::size_t>(j)];
            if (kWords.count(word)) length = k;
        }
        for (int j = i + 1; j < i + length; ++j) starts[static_cast<std::size_t>(j)] = false;
        i += length;
    }
}

}  // namespace

bool is_special_token(const std::string& token) { return is_special(token); }

std::vector<bool> word_starts(const std::vector<std::string>& tokens) {
    const bool marking = uses_start_marks(tokens);
    std::vector<bool> out(tokens.size());
    for (std::size_t i = 0; i < tokens.size(); ++i) out[i] = starts_word_marked(tokens, static_cast<int>(i), marking);
    join_known_chinese_words(tokens, out);
    return out;
}

std::vector<int> thinned_labels(const std::vector<std::string>& tokens, int first, int last, int step) {
    step = std::max(1, step);
    first = std::max(0, first);
    last = std::min(last, static_cast<int>(tokens.size()));
    std::vector<int> out;
    if (step == 1) {
        for (int i = first; i < last; ++i) out.push_back(i);
        return out;
    }
    const std::vector<bool> starts = word_starts(tokens);  // once, not per token
    int next_allowed = first, forced = first;  // forced: take this token whatever it is
    for (int i = first; i < last; ++i) {
        if (i < next_allowed) continue;
        if (starts[static_cast<std::size_t>(i)] || i >= forced) {
            out.push_back(i);
            next_allowed = i + step;
            forced = i + 2 * step - 1;
        }
    }
    return out;
}

}  // namespace hs
