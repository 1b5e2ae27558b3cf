#pragma once
// Hugging Face checkpoint directories -> Model (the one runtime, core/model.h).
//
// DIR/config.json (core/formats/hf_config.h) plus either DIR/model.safetensors or a
// sharded DIR/model.safetensors.index.json ({"weight_map": {tensor: shard file}}, every
// shard opened once). Tensor names per family (prefixes in brackets are optional):
//   gpt2   [transformer.]wte, wpe, h.{i}.ln_1, h.{i}.attn.c_attn (Conv1D (D, 3D),
//          transposed into in_proj_weight [W_q; W_k; W_v]), h.{i}.attn.c_proj, h.{i}.ln_2, h.{i}.mlp.c_fc,
//          h.{i}.mlp.c_proj, ln_f; attn.bias / attn.masked_bias buffers and lm_head ignored
//   bert   [bert.]embeddings.{word,position,token_type}_embeddings, embeddings.LayerNorm,
//          encoder.layer.{i}.attention.self.{query,key,value}, attention.output.dense,
//          attention.output.LayerNorm, intermediate.dense, output.dense, output.LayerNorm
//          (LayerNorm .weight/.bias or the legacy .gamma/.beta); pooler and cls.* ignored
//   gpt_neo  transformer.wte, wpe, h.{i}.ln_1, h.{i}.attn.attention.{q,k,v}_proj (no biases),
//          attn.attention.out_proj, h.{i}.ln_2, h.{i}.mlp.c_fc, mlp.c_proj (nn.Linear), ln_f;
//          lm_head only when not tied; mask buffers ignored
//   gpt_neox  gpt_neox.embed_in, gpt_neox.layers.{i}.{input,post_attention}_layernorm,
//          attention.query_key_value (each head's q, k, v rows together, reordered),
//          attention.dense, mlp.dense_h_to_4h, mlp.dense_4h_to_h, final_layer_norm, embed_out
//   llama, mistral, qwen2, qwen3  model.embed_tokens, model.layers.{i}.input_layernorm,
//          self_attn.{q,k,v,o}_proj (+ q/k/v biases for qwen2, q_norm/k_norm for qwen3),
//          post_attention_layernorm, mlp.{gate,up,down}_proj, model.norm, lm_head (unless
//          tie_word_embeddings); phi3 the same with self_attn.qkv_proj ([q; k; v]) and
//          mlp.gate_up_proj ([gate; up]) fused; gemma the Llama names, its RMSNorm weights w
//          read as γ = 1 + w
// q/k/v (query/key/value) are stacked into one in_proj_weight (and bias), as
// nn.MultiheadAttention holds them. Model::stored_dtype records what the file stored
// ("f32", "f16", "bf16", or e.g. "bf16+f32" when mixed).
#include <optional>
#include <string>

#include "core/io/memory_budget.h"
#include "core/model/model.h"

namespace hs {

// Throws hs::Error naming the problem: no config.json / unknown model_type (hf_config.h),
// no model.safetensors nor index, bad index, missing tensor (named), shape mismatch
// (expected vs found), unsupported dtype (from the safetensors reader).
// `progress(done, total)` is called after each layer's tensors are read; returning
// false throws hs::Cancelled.
// `residency`: in memory, or with the layers left in the files and read as the forward
// reaches them (their linear weights converted by the products a panel at a time, GPT-2's
// transposed Conv1D ones read as f32); by default as the memory plan says
// (core/io/memory_budget.h).
Model load_hf_model(const std::string& dir, const ProgressFn& progress = nullptr,
                    std::optional<WeightResidency> residency = std::nullopt);

// What `inspect` says of a checkpoint directory from config.json and the safetensors
// headers alone (no weight is read): the architecture, `tokenizer` (a description, or why
// there is none) of `tokenizer_vocab` tokens (-1: none), the tensors by dtype, the
// parameters, the bytes on disk and the memory plan on this machine.
std::string describe_hf_model(const std::string& dir, const std::string& tokenizer, int tokenizer_vocab);

}  // namespace hs
