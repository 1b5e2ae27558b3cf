#pragma once
// Hugging Face Llama directories written by HeadScope (DESIGN §4): a playground decoder
// built with the Llama options saves as config.json (model_type "llama") and
// model.safetensors under HF's names, which HeadScope reopens through its HF loader and
// LlamaForCausalLM-style readers load:
//   model.embed_tokens.weight (V, D)
//   model.layers.{i}.input_layernorm.weight (D)           norm1 (RMSNorm γ)
//   model.layers.{i}.self_attn.q_proj.weight (H·Dh, D)    rows 0..I of in_proj_weight
//   model.layers.{i}.self_attn.k_proj.weight (Hkv·Dh, D), v_proj.weight (Hkv·Dh, D)
//   model.layers.{i}.self_attn.o_proj.weight (D, H·Dh)    (+ q/k/v/o .bias: attention_bias)
//   model.layers.{i}.post_attention_layernorm.weight (D)  norm2
//   model.layers.{i}.mlp.gate_proj.weight (F, D), up_proj.weight (F, D) = linear1,
//   model.layers.{i}.mlp.down_proj.weight (D, F) = linear2
//   model.norm.weight (D); lm_head.weight (V, D) unless tie_word_embeddings
// HF Llama rotates "rotate-half" pairs (i, i + Dh/2). A model with interleaved pairs
// (2i, 2i+1) is saved with the rows of each head of W_q and W_k permuted
// (2i -> i, 2i+1 -> i + Dh/2), which gives the same scores under rotate-half, as Meta's
// conversion script does; it reopens with rope_layout rotate-half. A model with a sliding
// attention window saves as model_type "mistral" (the same names, plus sliding_window), one
// with qk-norm as "qwen3" (plus self_attn.q_norm.weight / k_norm.weight (Dh)).
#include <string>

#include "core/model/config.h"
#include "core/model/model.h"

namespace hs {

// Whether a config is a Llama decoder: decoder-only, causal, pre-norm RMSNorm, rotary
// positions, SwiGLU, no feed-forward biases, q/k/v and output biases both present or
// both absent, no embedding norm or token types; with a sliding window (a Mistral) no
// biases and no qk-norm; never a parallel block or partial rotary.
bool is_llama_shaped(const ModelConfig& config);

// Writes DIR/config.json and DIR/model.safetensors (creating DIR; atomic per file).
// A playground model (config.family empty) is marked "headscope_tokenizer": "playground"
// so that HeadScope reopens it with the playground tokenizer; a model without an LM head
// is marked "headscope_lm_head": "none" (HF readers see a tied head). Throws hs::Error
// when the model is not Llama-shaped or DIR cannot be written.
void save_hf_llama_dir(const Model& model, const std::string& dir);

}  // namespace hs
