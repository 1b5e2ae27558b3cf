#pragma once
// The GGUF architectures whose layers use LayerNorm with biases and one fused [q; k; v]
// projection (the llama-shaped ones are gguf_model.cpp's):
//   gpt2    — learned positions (position_embd), pre-norm, GELU-tanh (GPT-2's gelu_new),
//             biases everywhere, the head tied to token_embd unless `output` is stored.
//   gptneox — Pythia: rotary positions on the first rope.dimension_count dims of each head
//             (NEOX halves), attention and feed-forward side by side when
//             use_parallel_residual (default true), GELU with erf (Pythia's "gelu"),
//             output separate. llama.cpp's converter reorders Hugging Face's per-head
//             [q_h k_h v_h] rows into [q; k; v], as attn_qkv holds them here.
// Keys ({arch}. prefix): embedding_length, block_count, feed_forward_length,
// attention.head_count, attention.layer_norm_epsilon, context_length; gptneox also
// rope.dimension_count, rope.freq_base (10000), use_parallel_residual.
// Tensors: token_embd (V, D), gpt2 position_embd (context_length, D); per layer blk.N.
// {attn_norm, ffn_norm} (D) weight and bias, attn_qkv (3D, D) + bias, attn_output (D, D) +
// bias, ffn_up (F, D) + bias, ffn_down (D, F) + bias; output_norm (D) weight and bias;
// output (V, D) when stored.
#include <string>

#include "core/model/config.h"
#include "core/model/model.h"
#include "core/model/weights.h"

namespace hs {

class GgufFile;
class GgufTensorReader;

// The config from the file's metadata (vocab and head from token_embd and output).
ModelConfig gguf_layernorm_config(const GgufFile& file, const std::string& arch);
// Every weight outside the layers (embeddings, final norm, head), read and shape-checked
// through r; `layers` left empty.
void gguf_layernorm_outside(const ModelConfig& c, GgufTensorReader& r, ModelWeights& w);
// Layer il's weights into l (its matrices reused when shaped alike), read and
// shape-checked through r.
void gguf_layernorm_layer(const ModelConfig& c, GgufTensorReader& r, int il, EncoderLayerWeights& l);

}  // namespace hs
