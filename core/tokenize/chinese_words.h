#pragma once
// Chinese words of two or more characters that a model reading Chinese a character per
// token (the default model, the playground tokenizer) still writes as words: every such word
// of the default grammar (core/corpus/grammar.h; the test ChineseWords.CoverTheGrammar keeps
// the two lists in step). Label thinning keeps these words whole (李娜, not 娜).
#include <string>
#include <vector>

namespace hs {

// Sorted, unique, UTF-8.
const std::vector<std::string>& known_chinese_words();

}  // namespace hs
