// The tokenizer a GGUF file carries (tokenizer.ggml.*, ggml's docs/gguf.md):
//   model "llama": SentencePiece BPE — tokens, scores, token_type; BOS/EOS/unknown ids;
//                  add_bos_token, add_eos_token, add_space_prefix (core/tokenize/sentencepiece_bpe.h)
//   model "gpt2":  byte-level BPE — tokens in byte-symbol form ("Ġthe"), merges "a b", and
//                  the pre-tokenizer named by tokenizer.ggml.pre: llama.cpp's regex splits for
//                  that type (core/tokenize/split_stages.h: gpt-2, llama-bpe, qwen2,
//                  deepseek-llm, deepseek-coder, falcon, mpt, starcoder, refact, default, the
//                  default when the key is absent); control and user-defined
//                  tokens (token_type 3, 4) are matched whole in the text; an HfBpeTokenizer
//                  built from these parts.
//   model "bert":  WordPiece (core/tokenize/wordpiece.h) over the vocabulary as llama.cpp's
//                  converter spells it: "▁x" (U+2581) is the word-start piece x, a control
//                  token (type 3) or one in brackets ("[CLS]", older converters) stays as it
//                  is, any other x is the continuation "##x"; unknown_token_id, cls_token_id,
//                  seperator_token_id (sic) name [UNK], [CLS], [SEP]. The file does not say
//                  whether the model is cased: the text is lower-cased and its accents
//                  stripped, as uncased BERT's (and llama.cpp's WPM tokenizer) do.
#include <unordered_set>

#include "core/error.h"
#include "core/formats/gguf.h"
#include "core/formats/gguf_model.h"
#include "core/tokenize/hf_tokenizer_json.h"
#include "core/tokenize/sentencepiece_bpe.h"
#include "core/tokenize/split_stages.h"
#include "core/tokenize/wordpiece.h"

namespace hs {

namespace {

const std::string kKey = "tokenizer.ggml.";

// A special id; one outside the vocabulary (converters write 4294967295 for "none") is −1.
int special_id(const GgufFile& file, const char* key, int fallback, std::size_t vocab) {
    const std::int64_t id = file.integer(kKey + key, fallback);
    return id >= 0 && id < static_cast<std::int64_t>(vocab) ? static_cast<int>(id) : -1;
}

std::vector<std::int64_t> token_types(const GgufFile& file, std::size_t n) {
    auto types = file.has(kKey + "token_type") ? file.integers(kKey + "token_type") : std::vector<std::int64_t>(n, 1);
    if (types.size() != n)
        throw Error(file.path() + ": " + std::to_string(n) + " tokens but " + std::to_string(types.size()) +
                    " token types");
    for (std::size_t i = 0; i < n; ++i)
        if (types[i] < 1 || types[i] > 6)
            throw Error(file.path() + ": token " + std::to_string(i) + " has type " + std::to_string(types[i]) +
                        " (SentencePiece types are 1..6)");
    return types;
}

std::unique_ptr<Tokenizer> sentencepiece_tokenizer(const GgufFile& file) {
    SentencePieceVocab v;
    v.pieces = file.strings(kKey + "tokens");
    const std::size_t n = v.pieces.size();
    const auto scores = file.has(kKey + "scores") ? file.numbers(kKey + "scores") : std::vector<double>(n, 0.0);
    if (scores.size() != n)
        throw Error(file.path() + ": " + std::to_string(n) + " tokens but " + std::to_string(scores.size()) + " scores");
    for (double s : scores) v.scores.push_back(static_cast<float>(s));
    for (std::int64_t t : token_types(file, n)) v.types.push_back(static_cast<PieceType>(t));
    v.bos_id = special_id(file, "bos_token_id", 1, n);
    v.eos_id = special_id(file, "eos_token_id", 2, n);
    v.unk_id = special_id(file, "unknown_token_id", 0, n);
    v.add_bos = file.boolean(kKey + "add_bos_token", true);
    v.add_eos = file.boolean(kKey + "add_eos_token", false);
    v.add_space_prefix = file.boolean(kKey + "add_space_prefix", true);
    return std::make_unique<SentencePieceBpe>(std::move(v));
}

// tokenizer.ggml.pre → its splits.
std::vector<SplitPattern> pre_splits_of(const GgufFile& file) {
    const std::string pre = file.string(kKey + "pre", "default");
    if (std::optional<std::vector<SplitPattern>> splits = gguf_pre_splits(pre)) return std::move(*splits);
    throw Error(file.path() + ": its byte-level BPE pre-tokenizer '" + pre +
                "' (tokenizer.ggml.pre) is not supported yet (HeadScope reads " + gguf_pre_names() + ")");
}

std::unique_ptr<Tokenizer> byte_level_tokenizer(const GgufFile& file) {
    const std::vector<std::string>& tokens = file.strings(kKey + "tokens");
    const std::size_t n = tokens.size();
    const std::vector<std::int64_t> types = token_types(file, n);
    ByteLevelBpeParts parts;
    parts.vocab.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        parts.vocab[tokens[i]] = static_cast<int>(i);  // a token listed twice: its last id
        if (types[i] == 3 || types[i] == 4) parts.added.emplace_back(tokens[i], static_cast<int>(i));
    }
    if (file.has(kKey + "merges")) {
        const std::vector<std::string>& merges = file.strings(kKey + "merges");
        parts.merges.reserve(merges.size());
        for (std::size_t r = 0; r < merges.size(); ++r)
            parts.merges.push_back(merge_of_text(merges[r], file.path() + ": " + kKey + "merges[" + std::to_string(r) + "]"));
    }
    parts.stages = pre_splits_of(file);
    // The file's BOS id (and only it) goes before a text when add_bos_token; a BOS or EOS id
    // the file lacks, or gives as none, is GPT-2's <|endoftext|> when that is a token.
    const int bos = special_id(file, "bos_token_id", -1, n), eos = special_id(file, "eos_token_id", -1, n);
    if (bos >= 0 && file.boolean(kKey + "add_bos_token", false)) parts.prefix_ids = {bos};
    const auto end_of_text = parts.vocab.find("<|endoftext|>");
    const int fallback = end_of_text == parts.vocab.end() ? -1 : end_of_text->second;
    parts.bos_id = bos >= 0 ? bos : fallback;
    parts.eos_id = eos >= 0 ? eos : fallback;
    return std::make_unique<HfBpeTokenizer>(std::move(parts), file.path());
}

// A token of llama.cpp's WordPiece spelling back in vocab.txt's.
std::string wordpiece_token(std::string token, std::int64_t type) {
    static const std::string kWordStart = "\xE2\x96\x81";  // U+2581
    if (token.empty() || type == 3 || (token.front() == '[' && token.back() == ']')) return token;
    if (token.rfind(kWordStart, 0) == 0) return token.substr(kWordStart.size());
    return "##" + token;
}

std::unique_ptr<Tokenizer> wordpiece_tokenizer(const GgufFile& file) {
    std::vector<std::string> vocab = file.strings(kKey + "tokens");
    const std::size_t n = vocab.size();
    const std::vector<std::int64_t> types = token_types(file, n);
    for (std::size_t i = 0; i < n; ++i) vocab[i] = wordpiece_token(std::move(vocab[i]), types[i]);
    WordPieceOptions options;  // uncased
    const auto name = [&](const char* key, std::string& token) {
        if (const int id = special_id(file, key, -1, n); id >= 0) token = vocab[static_cast<std::size_t>(id)];
    };
    name("unknown_token_id", options.unk_token);
    name("cls_token_id", options.cls_token);
    name("seperator_token_id", options.sep_token);
    try {
        return std::make_unique<WordPieceTokenizer>(std::move(vocab), std::move(options));
    } catch (const Error& e) {
        throw Error(file.path() + ": " + e.what());
    }
}

}  // namespace

std::unique_ptr<Tokenizer> gguf_tokenizer(const GgufFile& file) {
    if (!file.has(kKey + "model")) throw Error(file.path() + " holds no tokenizer (no tokenizer.ggml.model)");
    const std::string kind = file.string(kKey + "model");
    if (kind == "llama") return sentencepiece_tokenizer(file);
    if (kind == "gpt2") return byte_level_tokenizer(file);
    if (kind == "bert") return wordpiece_tokenizer(file);
    throw Error(file.path() + ": its tokenizer is '" + kind +
                "'; HeadScope reads GGUF tokenizers llama (SentencePiece), gpt2 (byte-level BPE) and bert (WordPiece) so far");
}

}  // namespace hs
