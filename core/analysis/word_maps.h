#pragma once
// Attention between words for a model that reads them in pieces (Clark et al. 2019, "What
// does BERT look at?", §2: "we convert token-token attention maps to word-word attention
// maps"): attention *to* a word is the sum over its pieces, attention *from* a word the
// mean over its pieces (a row sums to its pieces' mean weight on the sentence's words:
// what they gave a BOS is left out). The relation
// probes run on these maps when a subword model (GPT-2, Llama, stories260K) splits the
// annotated words.
#include <optional>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace hs {

// Which annotated word each of a trace's tokens spells part of: the tokens' text
// (spelled_pieces, spaces dropped) must be the words' text; a special token before or after
// it (BOS, [CLS], [SEP], </s>) is −1, a bare space mark belongs to the word after it, the
// further bytes of a character (byte fallback, or a byte-level token that continues one) to
// the word of its first. Null when the tokens spell another
// text or a token spans two words (the sentence is then skipped, and named).
std::optional<std::vector<int>> align_pieces(const std::vector<std::string>& tokens, const std::vector<std::string>& words);

// W (n, n) from A (T, T): W(i, j) = (1 / |P_i|) Σ_{p ∈ P_i} Σ_{q ∈ P_j} A(p, q), P_i the
// tokens of word i (piece_word[p] = i); tokens of word −1 are left out.
Matrix word_map(const Matrix& a, const std::vector<int>& piece_word, int words);

}  // namespace hs
