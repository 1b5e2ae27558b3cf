#pragma once
// Opening a MODEL argument (DESIGN §5): the one place that knows every reader.
#include <memory>
#include <string>

#include "core/source.h"
#include "core/tokenize/tokenizer.h"

namespace hs {

// Opens MODEL as in DESIGN §5: "default" (default_model_dir()), "random:…" spec, a directory with config.json (HeadScope's
// nn.Transformer layout or a Hugging Face checkpoint), a GGUF file, a llama2.c .bin or a .json worked
// example. `progress(done, total)` is called per layer while a Hugging Face checkpoint
// loads (returning false throws hs::Cancelled). Throws hs::Error saying what was wrong.
std::unique_ptr<TraceSource> open_source(const std::string& model_arg,
                                         const ProgressFn& progress = nullptr);
// What `headscope inspect MODEL` prints: for a GGUF file its header alone (no weight read,
// no tokenizer needed), for anything else open_source(MODEL)->describe().
std::string inspect_model(const std::string& model_arg);
// The tokenizer of a tokenizer-only file, read without any weights: a GGUF file (a
// vocab-only one too), a tokenizer.json or a SentencePiece .model file. nullptr for any other path (open MODEL with
// open_source and use its tokenizer). Throws hs::Error for a file of those kinds that
// cannot be read.
std::unique_ptr<Tokenizer> open_tokenizer_file(const std::string& path);
// The model the project trains itself with scripts/train_default_model.sh
// (docs/DEFAULT_MODEL.md): assets/models/default, what MODEL "default" names.
std::string default_model_dir();

}  // namespace hs
