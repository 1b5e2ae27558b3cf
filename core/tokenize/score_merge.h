#pragma once
// SentencePiece-style BPE by score, the merge rule llama2.c and llama.cpp share: among all
// adjacent symbol pairs whose concatenation is a piece of the vocabulary, merge the one
// whose piece has the highest score (the leftmost among equal scores); repeat until no
// pair is a piece.
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace hs {

// The score of the piece spelled `text`, or nothing when the vocabulary has no such piece.
using PieceScore = std::function<std::optional<float>(const std::string& text)>;

// `symbols` (usually one per character) merged by the rule above. O(n log n): candidate
// pairs wait in a heap ordered by (score, position) and a pair whose symbols changed
// since it was pushed is skipped when it comes up.
std::vector<std::string> merge_by_score(std::vector<std::string> symbols, const PieceScore& score_of);

}  // namespace hs
