#pragma once
// Hugging Face tokenizer.json with a byte-level BPE model (GPT-2, Qwen2, Llama-3, DeepSeek, …), and
// the dispatcher that also accepts WordPiece tokenizer.json files (BERT) and
// SentencePiece-style BPE (Llama-2, Mistral, TinyLlama: byte_fallback, spaces as "▁" by a
// Prepend + Replace normalizer or a Metaspace pre-tokenizer, merges by rank; built as a
// SentencePieceBpe, core/tokenize/sentencepiece_bpe.h).
//
// Supported pieces of a tokenizer.json (anything else is an hs::Error naming it):
//   model          {"type": "BPE", vocab, merges as "a b" strings or ["a", "b"] pairs,
//                   ignore_merges}; byte_fallback, continuing_subword_prefix and
//                   end_of_word_suffix must be unset (they belong to non-byte-level BPE)
//   pre_tokenizer  ByteLevel (GPT-2 regex when use_regex, add_prefix_space), or a
//                  Sequence of Split (regexes of split_stages.h: GPT-2's, Qwen2's,
//                  Llama-3's and those of llama.cpp's pre-tokenizer types; behavior
//                  "Isolated") and ByteLevel
//   normalizer     null, or NFC — treated as the identity: text is assumed to be NFC
//                  already (what keyboards and most files produce)
//   added_tokens   matched in the raw text before pre-tokenisation, longest first;
//                  lstrip / rstrip / single_word are not applied
//   post_processor TemplateProcessing (its "single" special tokens added when
//                  add_special, e.g. Llama-3's <|begin_of_text|>), ByteLevel, Sequence
//                  of those; others add nothing
// tokenizer_config.json, when given, supplies bos_token / eos_token.
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/tokenize/gpt2_bpe.h"
#include "core/tokenize/split_stages.h"
#include "core/tokenize/tokenizer.h"

namespace hs {

// A byte-level BPE tokenizer's parts, as a format other than tokenizer.json gives them
// (a GGUF file's tokenizer.ggml.*).
struct ByteLevelBpeParts {
    std::unordered_map<std::string, int> vocab;               // token in byte-symbol form → id
    std::vector<std::pair<std::string, std::string>> merges;  // by rank
    std::vector<SplitPattern> stages;                         // the pre-tokenizer's splits, in order
    std::vector<std::pair<std::string, int>> added;           // matched whole in the text
    std::vector<int> prefix_ids;                              // before a text when add_special
    int bos_id = -1, eos_id = -1;
};

// "a b" → {"a", "b"}; throws hs::Error naming `what` unless it is two symbols and one space.
std::pair<std::string, std::string> merge_of_text(const std::string& text, const std::string& what);

class HfBpeTokenizer : public ByteLevelBpeTokenizer {
public:
    // `source` names the file in error messages; `config` is tokenizer_config.json's
    // content or null.
    HfBpeTokenizer(const nlohmann::json& tokenizer, const nlohmann::json& config,
                   const std::string& source);
    // The same from its parts: `stages` split the text, then byte level without a prefix
    // space.
    HfBpeTokenizer(ByteLevelBpeParts parts, const std::string& source);

    Tokens encode(const std::string& text, bool add_special = true) const override;
    int vocab_size() const override { return vocab_size_; }
    int bos_id() const override { return bos_id_; }
    int eos_id() const override { return eos_id_; }

private:
    struct AddedToken {
        std::string content;
        int id;
    };

    void add_tokens(std::vector<std::pair<std::string, int>> added);  // added_, added_by_id_, vocab_size_
    void read_pre_tokenizer(const nlohmann::json& pre);  // stages_ and add_prefix_space_
    void encode_segment(const std::string& text, std::vector<int>& ids) const;
    std::string token_bytes(int id) const override;
    int id_of_any(const std::string& token) const;  // added token or vocabulary, -1 if neither

    std::unique_ptr<BpeModel> model_;
    std::vector<AddedToken> added_;  // longest content first
    std::unordered_map<int, std::string> added_by_id_;
    std::vector<SplitPattern> stages_;  // the pre-tokenizer's splits, in order
    bool add_prefix_space_ = false;
    std::vector<int> prefix_ids_, suffix_ids_;  // TemplateProcessing "single"
    int vocab_size_ = 0;
    int bos_id_ = -1, eos_id_ = -1;
    std::string source_;
};

// Reads `path` (and `config_path` when that file exists) and builds the tokenizer its
// model.type asks for: BPE -> HfBpeTokenizer, WordPiece -> WordPieceTokenizer. Other
// types (Unigram, WordLevel, …) throw an hs::Error naming the type.
std::unique_ptr<Tokenizer> load_tokenizer_json(const std::string& path,
                                               const std::string& config_path = "");

}  // namespace hs
