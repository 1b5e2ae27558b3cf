#pragma once
// llama2.c tokenizer (tokenizer.bin / tok512.bin): a SentencePiece-style BPE by score.
// File: int32 max_token_length, then per token: float32 score, int32 length, bytes.
// Ids: 0 <unk>, 1 BOS, 2 EOS, 3..258 the byte tokens <0x00>..<0xFF> (id = byte + 3).
#include <string>
#include <unordered_map>
#include <vector>

#include "core/tokenize/tokenizer.h"

namespace hs {

class Llama2cTokenizer : public Tokenizer {
public:
    // Reads `path` holding exactly `vocab_size` tokens; throws hs::Error naming the file
    // and what is wrong (missing, truncated, negative length, trailing bytes).
    Llama2cTokenizer(const std::string& path, int vocab_size);

    // As llama2.c's encode(): BOS when add_special; a " " token prepended to non-empty
    // text; each UTF-8 code point looked up, else its bytes as <0xNN> tokens; then the
    // adjacent pair whose concatenation is in the vocabulary with the highest score is
    // merged, repeatedly, until no pair merges.
    Tokens encode(const std::string& text, bool add_special = true) const override;
    // Pieces concatenated, byte tokens as their bytes, BOS/EOS dropped, and the leading
    // space of the first piece (the " " prefix encode added) removed.
    std::string decode(const std::vector<int>& ids) const override;
    // The piece as text: " the" with its space, byte tokens as the character for
    // printable ASCII, "\n" / "\t" escaped, "<0xNN>" otherwise; BOS "<s>", EOS "</s>".
    std::string display(int id) const override;
    int vocab_size() const override { return static_cast<int>(pieces_.size()); }
    int bos_id() const override { return 1; }
    int eos_id() const override { return 2; }

    const std::string& piece(int id) const;
    float score(int id) const;
    // Id of an exact piece, −1 if none.
    int find(const std::string& piece) const;
    // The merges of encode (llama2.c's rule) over the initial symbol ids.
    std::vector<int> merge_pairs(std::vector<int> ids) const;

private:
    // The byte a <0xNN> token stands for, −1 if `id` is not a byte token.
    int byte_of(int id) const;

    std::vector<std::string> pieces_;
    std::vector<float> scores_;
    std::unordered_map<std::string, int> index_;
    int max_token_length_ = 0;
};

}  // namespace hs
