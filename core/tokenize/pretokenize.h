#pragma once
// Hand-written matchers for the pre-tokenisation regexes of byte-level BPE tokenizers
// (std::regex has no \p classes). Both return the pieces as byte substrings of `text`
// whose concatenation is `text` itself. Classes: \p{L}, \p{N} and \s (Unicode
// White_Space) from unicode_classes.h; a byte that is not well-formed UTF-8 counts as
// "other" ([^\s\p{L}\p{N}]).
#include <string>
#include <vector>

namespace hs {

// GPT-2 (encoder.py):
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
std::vector<std::string> gpt2_pretokenize(const std::string& text);

// Qwen2 (max_digits = 1) and Llama-3 (max_digits = 3):
//   (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,max_digits}|
//    ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
std::vector<std::string> llama3_pretokenize(const std::string& text, int max_digits);

}  // namespace hs
