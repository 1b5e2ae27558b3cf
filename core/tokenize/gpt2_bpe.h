#pragma once
// GPT-2 byte-level BPE (vocab.json + merges.txt) and the merge engine it shares with
// tokenizer.json byte-level BPE models (hf_tokenizer_json.h).
//
// encode: text -> GPT-2 regex pieces (pretokenize.h) -> each piece's bytes as byte
// symbols (byte_level.h) -> BPE: repeatedly merge the adjacent pair with the lowest
// rank in merges.txt, all its occurrences left to right, until no pair has a rank ->
// vocabulary ids. Results per piece are cached (thread-safe).
// Like OpenAI's encoder.py and the npm gpt-3-encoder reference, the text "<|endoftext|>"
// in the input is encoded as ordinary characters, not as id 50256 (a tokenizer.json
// lists it under added_tokens, and HfBpeTokenizer does match it there).
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/tokenize/tokenizer.h"

namespace hs {

class BpeModel {
public:
    // vocab: token (in byte-symbol form) -> id; merges in rank order (rank = index).
    // ignore_merges (Llama-3): a piece that is itself in the vocabulary is taken whole.
    BpeModel(std::unordered_map<std::string, int> vocab,
             const std::vector<std::pair<std::string, std::string>>& merges,
             bool ignore_merges = false);

    // One pre-tokenised piece, already in byte-symbol form, -> ids. Throws hs::Error when
    // merging ends in a symbol sequence that is not in the vocabulary.
    std::vector<int> encode_piece(const std::string& symbols) const;

    int id_of(const std::string& token) const;  // -1 when absent
    const std::string& token_of(int id) const;  // "" for ids without a token
    int size() const { return static_cast<int>(id_to_token_.size()); }
    size_t merge_count() const { return ranks_.size(); }

private:
    std::vector<std::string> merge(const std::string& symbols) const;

    std::unordered_map<std::string, int> vocab_;
    std::vector<std::string> id_to_token_;
    std::unordered_map<std::string, int> ranks_;  // "left right" -> rank
    bool ignore_merges_;
    mutable std::mutex cache_mutex_;
    mutable std::unordered_map<std::string, std::vector<int>> cache_;
};

// Display strings for consecutive tokens given their raw bytes: each token shows the
// UTF-8 characters whose FIRST byte it holds (completed with continuation bytes from
// the following tokens, so a CJK character or emoji split over byte tokens shows whole
// on its first piece); a token holding only continuation bytes, and any byte that is
// not well-formed UTF-8, shows as "<0xHH>".
std::vector<std::string> display_strings(const std::vector<std::string>& token_bytes);

// What every byte-level BPE tokenizer shares once ids are known: each id stands for a
// string of raw bytes (token_bytes), decoding concatenates them, and display strings
// come from display_strings() above. Gpt2BpeTokenizer and HfBpeTokenizer derive from it.
class ByteLevelBpeTokenizer : public Tokenizer {
public:
    std::string decode(const std::vector<int>& ids) const final;
    std::string display(int id) const final;

protected:
    // The raw bytes id stands for; throws hs::Error for an id outside the vocabulary.
    virtual std::string token_bytes(int id) const = 0;
    // ids with their display strings.
    Tokens tokens_of(std::vector<int> ids) const;
};

class Gpt2BpeTokenizer : public ByteLevelBpeTokenizer {
public:
    // Reads GPT-2's vocab.json (token -> id) and merges.txt ("#version" line, then one
    // "left right" merge per line in rank order). Throws hs::Error naming the file.
    Gpt2BpeTokenizer(const std::string& vocab_json_path, const std::string& merges_txt_path);

    // GPT-2 adds nothing for add_special.
    Tokens encode(const std::string& text, bool add_special = true) const override;
    int vocab_size() const override { return model_.size(); }
    // "<|endoftext|>" (50256 in GPT-2) is both; -1 when the vocabulary lacks it.
    int bos_id() const override { return end_of_text_; }
    int eos_id() const override { return end_of_text_; }

private:
    std::string token_bytes(int id) const override;

    BpeModel model_;
    int end_of_text_;
};

// Shared readers (also used for tokenizer.json-free HF directories).
std::unordered_map<std::string, int> read_vocab_json(const std::string& path);
std::vector<std::pair<std::string, std::string>> read_merges_txt(const std::string& path);

}  // namespace hs
