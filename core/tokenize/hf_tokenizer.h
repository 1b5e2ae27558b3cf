#pragma once
// Picks the tokenizer of a Hugging Face model directory: tokenizer.json (BPE or
// WordPiece, hf_tokenizer_json.h), else tokenizer.model (SentencePiece's own model file,
// sentencepiece_model.h), else vocab.json + merges.txt (GPT-2 BPE), else
// vocab.txt (BERT WordPiece with tokenizer_config.json's options). tokenizer_config.json
// is read when present. Throws hs::Error listing the files it looked for.
#include <memory>
#include <string>

#include "core/tokenize/tokenizer.h"

namespace hs {

std::unique_ptr<Tokenizer> load_hf_tokenizer(const std::string& dir);

}  // namespace hs
