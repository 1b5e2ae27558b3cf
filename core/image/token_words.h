#pragma once
// How labels name the tokens of a text so that a reader finds the sentence in them. A
// subword model splits "girl" into " g" "ir" "l"; a label every few rows that shows only
// " g" hides the word. So each token has two names:
//   piece: the token alone (visible_token), a byte-fallback run ("<0xF0>" "<0x9F>" "<0x98>"
//          "<0x80>") shown as the character its bytes spell (each of them "😀");
//   word:  the word it is part of, its pieces joined (start marks ▁ / Ġ / ## and the
//          surrounding spaces dropped, byte runs decoded): "girl" for each of the three.
// Labels far apart show words at word starts (thinned_label); hover readouts give both.
#include <string>
#include <vector>

namespace hs {

struct TokenWords {
    std::vector<std::string> pieces;  // per token
    std::vector<int> word_of;         // per token: its word's index in `words`
    std::vector<std::string> words;   // per word
    std::vector<int> word_first;      // per word: its first token
};

TokenWords token_words(const std::vector<std::string>& tokens);

// A byte-level tokenizer's (GPT-2's, Llama 3's) token that holds only further bytes of a
// character the token before it began: "<0xAD>", "<0x98><0x80>" (the character shows whole
// on the token before). Its piece is that character, its share of the text "".
bool continues_a_character(const std::string& token);

// Each token's share of the text it was cut from: its piece with start marks as spaces
// (▁ / Ġ → " ", "##" dropped), a byte-fallback run's character given once, at its lead byte
// ("" for the other bytes; the byte itself, "<0xE4>", when the run spells no character).
std::vector<std::string> spelled_pieces(const std::vector<std::string>& tokens);

// The characters a run of bytes spells, one entry per byte: the UTF-8 character of the
// well-formed sequence the byte is part of (visible_token's form: "\n" written out), or
// "" for a byte that is part of none (a stray continuation byte, a cut sequence).
std::vector<std::string> spelled_characters(const std::vector<int>& bytes);

// The label of token i among labels about `step` tokens apart: its piece when every token
// has its own label (step 1) or when i is inside a word, else (a word start) its word.
const std::string& thinned_label(const TokenWords& words, int i, int step);

// The word token i (`token`, as the trace holds it) is part of when that word is more
// than the token ("girl" for "ir", "😀" for "<0x9F>"), else null: a hover readout names
// both ("'ir' (in 'girl')").
const std::string* enclosing_word(const TokenWords& words, int i, const std::string& token);

}  // namespace hs
