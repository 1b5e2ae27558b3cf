// The composition root of core/: turns a MODEL argument into a TraceSource by asking every
// reader (model directories, Hugging Face checkpoints, GGUF and llama2.c files, training
// checkpoints, worked examples, playground specs). It sits above every layer it reads, so
// the layers below never include each other upwards.
#include "core/open_source.h"

#include <filesystem>
#include <optional>

#include "core/error.h"
#include "core/formats/hf_config.h"
#include "core/formats/hf_loader.h"
#include "core/formats/gguf.h"
#include "core/formats/gguf_model.h"
#include "core/formats/llama2c.h"
#include "core/io/model_dir.h"
#include "core/pretrained_source.h"
#include "core/tokenize/hf_tokenizer.h"
#include "core/tokenize/hf_tokenizer_json.h"
#include "core/tokenize/sentencepiece_model.h"
#include "core/train/checkpoint.h"
#include "core/train/trained_source.h"
#include "core/worked_example.h"
#include "core/assets.h"

namespace hs {

std::string default_model_dir() { return assets_dir() + "/models/default"; }

// Every kind of MODEL open_source takes, for the errors that say what was expected.
constexpr const char* kModelKinds =
    "default, a model directory, a GGUF file, a llama2.c .bin checkpoint, a worked-example .json or a playground spec like "
    "random:d_model=64,heads=4,layers=2";

std::unique_ptr<TraceSource> open_source(const std::string& arg, const ProgressFn& progress) {
    namespace fs = std::filesystem;
    if (arg.empty()) throw Error(std::string("no model given (expected ") + kModelKinds + ")");
    if (arg == "default") {
        std::error_code ec;
        if (!fs::is_directory(default_model_dir(), ec))
            throw Error("the default model is missing: " + default_model_dir() +
                        " is not a directory (scripts/train_default_model.sh trains it)");
        return open_source(default_model_dir(), progress);
    }
    if (is_playground_spec(arg)) return open_playground(parse_playground_spec(arg), nullptr);
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
        if (is_hf_model_dir(arg)) {  // Hugging Face checkpoint: config.json names a model_type
            if (load_hf_config(arg).playground_tokenizer)  // a playground model saved as HF Llama
                return make_model_source(load_hf_model(arg, progress), "model directory");
            auto tokenizer = load_hf_tokenizer(arg);  // cheap, so a missing file fails first
            return make_pretrained_source(load_hf_model(arg, progress), std::move(tokenizer));
        }
        Model model = load_model_dir(arg);
        const bool is_default = fs::equivalent(arg, default_model_dir(), ec);
        const std::string name = is_default ? "default" : fs::path(arg).lexically_normal().string();
        model.set_name(name);
        // A training checkpoint reads its task's tokens; when its trainer.json or training
        // text cannot be read, the model still opens, with hashed words, and says why.
        if (fs::exists(fs::path(arg) / "trainer.json", ec)) {
            std::optional<train::TaskSpec> task;
            std::string why;
            try {
                task = train::checkpoint_task(arg);
            } catch (const Error& e) {
                why = e.what();
            }
            if (task) return train::make_trained_source(std::move(model), std::move(*task), name);
            return make_model_source(std::move(model),
                                                 "model directory; its task is unreadable, words are hashed: " + why);
        }
        return make_model_source(std::move(model), "model directory");
    }
    if (fs::is_regular_file(arg, ec)) {
        if (fs::path(arg).extension() == ".json")
            return make_worked_example_source(load_worked_example(arg), arg);
        if (fs::path(arg).extension() == ".gguf" || looks_like_gguf(arg)) {
            GgufCheckpoint ckpt = load_gguf(arg, progress);
            return make_pretrained_source(std::move(ckpt.model), std::move(ckpt.tokenizer));
        }
        if (fs::path(arg).extension() == ".bin") {  // llama2.c checkpoint + tokenizer beside it
            Llama2cCheckpoint ckpt = load_llama2c(arg);
            return make_pretrained_source(std::move(ckpt.model), std::move(ckpt.tokenizer));
        }
        throw Error("don't know how to open '" + arg + "' (expected " + kModelKinds + ")");
    }
    throw Error("'" + arg + "' does not exist (expected " + kModelKinds + ")");
}

std::string inspect_model(const std::string& arg) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::is_regular_file(arg, ec) && (fs::path(arg).extension() == ".gguf" || looks_like_gguf(arg)))
        return describe_gguf(*GgufFile::open(arg));
    if (fs::is_directory(arg, ec) && is_hf_model_dir(arg) && !load_hf_config(arg).playground_tokenizer) {
        std::string tokenizer;  // inspect needs none: a missing or broken one is described
        int vocab = -1;
        try {
            vocab = load_hf_tokenizer(arg)->vocab_size();
            tokenizer = std::to_string(vocab) + " tokens";
        } catch (const Error& e) {
            tokenizer = std::string("none: ") + e.what();
        }
        return describe_hf_model(arg, tokenizer, vocab);
    }
    return open_source(arg)->describe();
}

std::unique_ptr<Tokenizer> open_tokenizer_file(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) return nullptr;
    if (fs::path(path).extension() == ".gguf" || looks_like_gguf(path)) return gguf_tokenizer(*GgufFile::open(path));
    if (fs::path(path).extension() == ".model") return std::make_unique<SentencePieceModel>(path);
    if (fs::path(path).filename() == "tokenizer.json") {
        const fs::path config = fs::path(path).parent_path() / "tokenizer_config.json";
        return load_tokenizer_json(path, fs::exists(config, ec) ? config.string() : "");
    }
    return nullptr;
}

}  // namespace hs
