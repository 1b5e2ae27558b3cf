#pragma once
// Model directories (DESIGN §4): config.json + model.safetensors.
#include <string>

#include "core/model/model.h"

namespace hs {

// Writes DIR/config.json and DIR/model.safetensors (creating DIR). Atomic per file.
// A Llama-shaped decoder (core/io/hf_llama_dir.h) is written as a Hugging Face Llama
// directory; every other model in the nn.Transformer layout (core/io/state_dict.h).
// Throws hs::Error when DIR cannot be created or written.
void save_model_dir(const Model& model, const std::string& dir);

// Loads and validates. Throws hs::Error: directory missing, config.json missing or bad
// JSON, invalid config (core validation messages), model.safetensors problems.
Model load_model_dir(const std::string& dir);

}  // namespace hs
