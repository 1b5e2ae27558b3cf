#pragma once
// Model directories (DESIGN §4): config.json + model.safetensors.
#include <string>
#include <vector>

#include "core/model/model.h"

namespace hs {

// Writes DIR/config.json and DIR/model.safetensors (creating DIR). Atomic per file.
// A Llama-shaped decoder (core/io/hf_llama_dir.h) is written as a Hugging Face Llama
// directory; every other model in the nn.Transformer layout (core/io/state_dict.h).
// Throws hs::Error when DIR cannot be created or written.
void save_model_dir(const Model& model, const std::string& dir);

// The files of a model directory that a save writes or makes stale: config.json,
// model.safetensors, and a training checkpoint's trainer.json and optimizer moments. A
// save over an existing directory replaces every one of them (write_directory_atomic's
// `replaced`) and keeps any other file (a README, a tokenizer).
const std::vector<std::string>& model_dir_files();

// What a save into `dir` would replace: nothing (no such directory, or an empty one), a
// model (dir holds config.json), or other files. The CLI refuses the last two without
// --force; the Train view asks before replacing.
enum class SaveTarget { Free, HoldsModel, HoldsOtherFiles };
SaveTarget save_target(const std::string& dir);

// Loads and validates. Throws hs::Error: directory missing, config.json missing or bad
// JSON, invalid config (core validation messages), model.safetensors problems.
Model load_model_dir(const std::string& dir);

}  // namespace hs
