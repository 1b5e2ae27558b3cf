// Tokenizer file discovery for Hugging Face model directories (see hf_tokenizer.h).
#include "core/tokenize/hf_tokenizer.h"

#include <filesystem>

#include "core/error.h"
#include "core/tokenize/gpt2_bpe.h"
#include "core/tokenize/hf_tokenizer_json.h"
#include "core/tokenize/sentencepiece_model.h"
#include "core/tokenize/wordpiece.h"

namespace hs {

std::unique_ptr<Tokenizer> load_hf_tokenizer(const std::string& dir) {
    namespace fs = std::filesystem;
    const fs::path d(dir);
    auto has = [&](const char* name) { return fs::is_regular_file(d / name); };
    const std::string config = (d / "tokenizer_config.json").string();
    if (has("tokenizer.json")) return load_tokenizer_json((d / "tokenizer.json").string(), config);
    if (has("tokenizer.model")) return std::make_unique<SentencePieceModel>((d / "tokenizer.model").string());
    if (has("vocab.json") && has("merges.txt"))
        return std::make_unique<Gpt2BpeTokenizer>((d / "vocab.json").string(), (d / "merges.txt").string());
    if (has("vocab.txt"))
        return std::make_unique<WordPieceTokenizer>(read_vocab_txt((d / "vocab.txt").string()),
                                                    read_wordpiece_options(config));
    std::string found;
    if (has("vocab.json")) found = " (vocab.json is there but merges.txt is missing)";
    else if (has("merges.txt")) found = " (merges.txt is there but vocab.json is missing)";
    throw Error("No tokenizer found in '" + dir +
                "': looked for tokenizer.json, tokenizer.model, vocab.json + merges.txt, and vocab.txt" + found + ".");
}

}  // namespace hs
