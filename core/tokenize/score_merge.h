#pragma once
// The merge loop of SentencePiece-style BPE: among all adjacent symbol pairs that may
// merge, merge the one with the highest score (the leftmost among equal scores); repeat
// until no pair may. llama2.c and llama.cpp score a pair by the score of the piece it
// spells; Hugging Face's BPE by its merge's rank (score −rank: earlier merges first).
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace hs {

// The score of merging `left` and `right`, or nothing when they may not merge.
using PairScore = std::function<std::optional<float>(const std::string& left, const std::string& right)>;

// `symbols` (usually one per character) merged by the rule above. O(n log n): candidate
// pairs wait in a heap ordered by (score, position) and a pair whose symbols changed
// since it was pushed is skipped when it comes up.
std::vector<std::string> merge_by_score(std::vector<std::string> symbols, const PairScore& score_of);

}  // namespace hs
