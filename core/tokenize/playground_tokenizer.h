#pragma once
// Playground tokenizer: words and punctuation split on whitespace, every CJK
// character its own token ("我是秦始皇" -> 5 tokens), ids deterministic (FNV-1a hash of
// the token's UTF-8 bytes modulo vocab; ids 0 is reserved for padding, so ids are in
// [1, vocab)).
#include <string>
#include <vector>

namespace hs {

struct Tokens {
    std::vector<std::string> text;  // display strings
    std::vector<int> ids;
};

class PlaygroundTokenizer {
public:
    explicit PlaygroundTokenizer(int vocab);
    // Splits and maps. Empty or whitespace-only text gives an empty result; invalid
    // UTF-8 bytes become their own token each.
    Tokens encode(const std::string& text) const;
    int id_of(const std::string& token) const;

private:
    int vocab_;
};

// True for code points in the CJK Unified Ideographs blocks (incl. Ext. A, compatibility),
// CJK punctuation, Hiragana/Katakana, Hangul syllables and fullwidth forms.
bool is_cjk(char32_t cp);

}  // namespace hs
