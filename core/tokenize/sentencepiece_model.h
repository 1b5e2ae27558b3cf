#pragma once
// SentencePiece's own model files (tokenizer.model: Llama-2, Mistral, T5, ALBERT, …), read
// and run by Debian's libsentencepiece — the library that wrote them, so every model type
// (BPE, Unigram), normalization rule (nmt_nfkc's precompiled table included) and option
// behaves exactly as in training. Chosen over a reader of our own (the protobuf is small
// and core/tokenize/sentencepiece_bpe.h already runs BPE by score) because such a reader
// would cover BPE with the identity normalization only: Unigram's Viterbi and the
// precompiled normalization tables are the library's, and agreeing with them to the byte
// is what a user comparing ids with Python expects. Special pieces written in the text
// ("<s>") are read as text, as SentencePiece does.
#include <memory>
#include <string>

#include "core/tokenize/tokenizer.h"

namespace hs {

class SentencePieceModel : public Tokenizer {
public:
    // Reads `path` (a regular file of at most 256 MiB) and loads it; throws hs::Error
    // naming the file and the library's reason when it is not a SentencePiece model.
    explicit SentencePieceModel(const std::string& path);
    ~SentencePieceModel() override;

    // The library's ids, with BOS first when add_special (as Llama's tokenizer adds it).
    Tokens encode(const std::string& text, bool add_special = true) const override;
    std::string decode(const std::vector<int>& ids) const override;
    // The piece with "▁" as ' ', byte pieces as the character for printable ASCII or
    // "<0xNN>", control pieces as written.
    std::string display(int id) const override;
    int vocab_size() const override;
    int bos_id() const override;
    int eos_id() const override;
    int unk_id() const override;

private:
    struct Library;  // the sentencepiece::SentencePieceProcessor, kept out of this header
    std::unique_ptr<Library> lib_;
    std::string path_;
};

}  // namespace hs
