#pragma once
// Hugging Face config.json -> ModelConfig for the families HeadScope runs:
//   gpt2        pre-LN, learned positions, GELU-tanh ("gelu_new"), Conv1D weights, tied head
//   bert        post-LN, learned positions + token types, embedding LayerNorm, GELU-erf,
//               bidirectional, no LM head
//   gpt_neo     pre-LN, learned positions, unscaled scores, global/local layers, tied head
//   gpt_neox    parallel attention + MLP, partial rotary, LayerNorm with biases
//   llama, mistral, qwen2, qwen3, phi3, gemma  pre-RMSNorm, RoPE rotate-half with
//               rope_theta, SwiGLU ("silu"; gemma GeGLU and embeddings × √D), GQA, causal;
//               qwen2 adds q/k/v biases, qwen3 qk-norm, mistral/phi3 (and qwen's
//               use_sliding_window, any layer_types) sliding windows; tied or separate lm_head
// Every failure throws hs::Error naming the file and the key (or the unknown model_type
// together with the supported ones).
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/model/config.h"

namespace hs {

// model_type values load_hf_config understands, in the order error messages list them.
const std::vector<std::string>& supported_hf_model_types();
// The same, joined: "gpt2, llama, …".
std::string supported_hf_model_types_text();

// What config.json says: the model's exact ModelConfig (family set to the model_type;
// q/k/v biases for qwen2 always and for llama when "attention_bias" is true, which also
// biases o_proj).
struct HfConfig {
    ModelConfig config;
    // "headscope_tokenizer": "playground" (a playground model HeadScope saved in HF
    // layout, core/io/hf_llama_dir.h): reopen with the playground tokenizer.
    bool playground_tokenizer = false;
};

// Parses an already-read config.json object; `where` names it in errors (the path).
HfConfig parse_hf_config(const nlohmann::json& config, const std::string& where);

// The "model_type" of a config.json object (what marks a Hugging Face config), or "" when
// it has none; one that is not a string is an error naming `where`.
std::string hf_model_type(const nlohmann::json& config, const std::string& where);

// Reads DIR/config.json. Throws hs::Error: file missing, not JSON, not an object, no
// model_type, unknown model_type, missing or ill-typed required key, bad values.
HfConfig load_hf_config(const std::string& dir);

// True when DIR/config.json exists, is a JSON object and has a string "model_type"
// (a Hugging Face checkpoint rather than a HeadScope playground directory). Never throws.
bool is_hf_model_dir(const std::string& dir);

}  // namespace hs
