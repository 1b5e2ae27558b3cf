#pragma once
// Tokenizer interface for pretrained models (issue 4). Implementations:
//   Gpt2BpeTokenizer       vocab.json + merges.txt (GPT-2 byte-level BPE)
//   WordPieceTokenizer     vocab.txt (BERT; lower-casing / accent stripping per config)
//   HfBpeTokenizer         tokenizer.json with a byte-level BPE model (Qwen2 / Llama-3)
//   Llama2cTokenizer       llama2.c tokenizer.bin (score-based BPE, byte fallback)
#include <memory>
#include <string>
#include <vector>

#include "core/tokenize/playground_tokenizer.h"  // struct Tokens { text, ids }

namespace hs {

class Tokenizer {
public:
    virtual ~Tokenizer() = default;
    // Text -> ids with readable display strings (Ġ shown as a space, byte tokens as the
    // bytes they stand for, CJK intact). `add_special`: BOS for llama2.c / Llama,
    // [CLS] … [SEP] for BERT; nothing for GPT-2 and Qwen2.
    virtual Tokens encode(const std::string& text, bool add_special = true) const = 0;
    // Concatenated text of ids (for generated continuations), bytes re-assembled.
    virtual std::string decode(const std::vector<int>& ids) const = 0;
    // Readable display string of one id.
    virtual std::string display(int id) const = 0;
    virtual int vocab_size() const = 0;
    virtual int bos_id() const { return -1; }
    virtual int eos_id() const { return -1; }
    // The id every word outside the vocabulary becomes ([UNK], <unk>); −1 when there is
    // none (byte-level BPE and byte fallback spell any text).
    virtual int unk_id() const { return -1; }
};

}  // namespace hs
