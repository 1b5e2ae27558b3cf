#pragma once
// Which token labels to draw when there is room for only every step-th one: a label is
// kept no closer than `step` tokens to the previous one, and preferably where a word
// starts, so a long text reads as words ("▁Once", "▁upon") rather than as scattered
// pieces ("ce", "up"). Shared by the window's heatmap and the exported figures.
#include <string>
#include <vector>

namespace hs {

// A special token ("<s>", "</s>", "[CLS]", "[SEP]"): in angle or square brackets, not a
// byte token ("<0xE5>").
bool is_special_token(const std::string& token);
// Whether each token begins a word. Tokenizers that mark word starts (GPT-2 "Ġ",
// SentencePiece "▁", a leading space) are read by their marks; WordPiece continuations
// ("##ing") are not starts; the first token, special tokens ("<s>", "[CLS]"), a line break
// ("\n", "<0x0A>", "Ċ") and the token after one always are; byte tokens ("<0xE5>",
// SentencePiece byte fallback) never start a word after another byte token. A CJK
// character starts a word unless it continues one of the default grammar's Chinese words
// (李娜: 娜 does not start one).
std::vector<bool> word_starts(const std::vector<std::string>& tokens);

// Indices in [first, last) to label, ascending, consecutive ones ≥ step apart (step ≥ 1).
// Scanning from `first`, a word start is taken as soon as it is ≥ step after the
// previous label; where none comes within 2·step − 1 tokens, the token there is taken.
std::vector<int> thinned_labels(const std::vector<std::string>& tokens, int first, int last, int step);

}  // namespace hs
