#pragma once
// The regex splits of byte-level BPE pre-tokenizers, each implemented by hand (std::regex
// has no \p classes): tokenizer.json's Split pre-tokenizers and the pre-tokenizer types
// llama.cpp names in a GGUF file's tokenizer.ggml.pre.
//
// A split is "isolated": the pieces are the regex's matches and the text between them,
// in order, so they concatenate to the text. A sequence of splits applies each one to
// every piece of the one before (tokenizer.json's Sequence of Split; llama.cpp's list of
// regexes). Classes are Unicode's (unicode_classes.h): \p{L}, \p{N}, \p{P}, and \s the
// White_Space property; a byte that is not well-formed UTF-8 is in no class.
#include <optional>
#include <string>
#include <vector>

namespace hs {

enum class SplitPattern {
    // whole-text scanners (pretokenize.h)
    Gpt2,    // 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
    Qwen2,   // Llama-3's with \p{N} one digit at a time
    Llama3,  // (?i:'s|…)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|…
    // one-class splits
    LineBreak,            // [\r\n]
    CasedLetters,         // \s?[A-Za-zµÀ-Ö…]+  (DeepSeek-LLM: the cased letters of Latin, Greek, Cyrillic, …)
    AsciiAndCjkPunctuation,  // \s?[!-/:-~！-／：-～‘-‟　-。]+  (DeepSeek-LLM)
    TrailingSpace,        // \s+$
    CjkAndHangul,         // [一-龥ࠀ-一가-퟿]+
    Numbers,              // \p{N}+
    Digit,                // \p{N}
    SpacedLetters,        // \s?\p{L}+
    SpacedPunctuation,    // \s?\p{P}+
    PunctuationAndSymbols,          // [\p{P}\$\+<=>\^~\|]+
    PunctuationSymbolsAndBacktick,  // [\p{P}\$\+<=>\^~\|`]+  (Falcon)
    ThreeDigits,          // [0-9][0-9][0-9]
};

// The pattern a tokenizer.json Split regex is, if HeadScope implements it. GPT-2's regex
// without its last alternative "|\s+" is GPT-2's: isolated, a lone whitespace character
// that \s+(?!\S) leaves unmatched becomes a piece of its own either way.
std::optional<SplitPattern> split_pattern_of_regex(const std::string& regex);

// The matches of `pattern` in `text` and the text between them, in order.
std::vector<std::string> split_isolated(SplitPattern pattern, const std::string& text);
// Each pattern of `stages` splits every piece of the previous one (the one-class patterns
// split the units of the text decoded once; the whole-text scanners decode their piece).
std::vector<std::string> split_in_stages(const std::vector<SplitPattern>& stages, const std::string& text);

// The splits of llama.cpp's pre-tokenizer type `pre` (tokenizer.ggml.pre): default,
// gpt-2, llama-bpe (llama3), qwen2, deepseek-llm, deepseek-coder, falcon, mpt, starcoder,
// refact; nothing for another name.
std::optional<std::vector<SplitPattern>> gguf_pre_splits(const std::string& pre);
// Those names, in that order, and joined for messages: "default, gpt-2, …".
const std::vector<std::string>& gguf_pre_types();
std::string gguf_pre_names();

}  // namespace hs
