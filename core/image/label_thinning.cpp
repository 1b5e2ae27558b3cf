#include "core/image/label_thinning.h"

#include <algorithm>

#include "core/image/utf8.h"
#include "core/tokenize/byte_fallback.h"

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
    if (cps.empty()) return false;
    const char32_t c = cps.front();
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x3040 && c <= 0x30FF) ||
           (c >= 0xAC00 && c <= 0xD7AF) || (c >= 0x3000 && c <= 0x303F) || (c >= 0xFF00 && c <= 0xFFEF);
}

bool uses_start_marks(const std::vector<std::string>& tokens) {
    return std::any_of(tokens.begin(), tokens.end(), marked_start);
}

// starts_word with the tokenizer's marking known (uses_start_marks).
bool starts_word_marked(const std::vector<std::string>& tokens, int i, bool marking) {
    if (i <= 0 || i >= static_cast<int>(tokens.size())) return true;
    const std::string& t = tokens[static_cast<std::size_t>(i)];
    if (is_special(t) || is_special(tokens[static_cast<std::size_t>(i - 1)]) || starts_with_cjk(t)) return true;
    if (has_prefix(t, "##")) return false;
    // A tokenizer that marks word starts marks them all: an unmarked piece continues a word.
    return marking ? marked_start(t) : true;
}

}  // namespace

bool starts_word(const std::vector<std::string>& tokens, int i) {
    return starts_word_marked(tokens, i, uses_start_marks(tokens));
}

bool is_special_token(const std::string& token) { return is_special(token); }

std::vector<bool> word_starts(const std::vector<std::string>& tokens) {
    const bool marking = uses_start_marks(tokens);
    std::vector<bool> out(tokens.size());
    for (std::size_t i = 0; i < tokens.size(); ++i) out[i] = starts_word_marked(tokens, static_cast<int>(i), marking);
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
    const bool marking = uses_start_marks(tokens);  // once, not per token
    int next_allowed = first, forced = first;  // forced: take this token whatever it is
    for (int i = first; i < last; ++i) {
        if (i < next_allowed) continue;
        if (starts_word_marked(tokens, i, marking) || i >= forced) {
            out.push_back(i);
            next_allowed = i + step;
            forced = i + 2 * step - 1;
        }
    }
    return out;
}

}  // namespace hs
