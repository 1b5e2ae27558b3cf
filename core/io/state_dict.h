#pragma once
// Mapping between ModelWeights and PyTorch state_dict names (DESIGN §4):
//   embed.weight (vocab, D); pos_embed.weight (max_len, D) for learned PE
//   single stack:   layers.{i}.self_attn.in_proj_weight (3D, D), …in_proj_bias (3D),
//                   layers.{i}.self_attn.out_proj.weight (D, D), …out_proj.bias (D),
//                   layers.{i}.linear1.weight (d_ff, D), .bias; linear2.weight (D, d_ff), .bias;
//                   layers.{i}.norm1.weight/.bias, norm2.weight/.bias; norm.weight/.bias (pre-LN)
//   encoder-decoder: encoder.layers.{i}.… as above, encoder.norm.*,
//                   decoder.layers.{i}.self_attn.*, .multihead_attn.*, .linear1/2.*,
//                   .norm1/2/3.*, decoder.norm.*
//   modern options (ModelConfig): absent biases and RMSNorm's β are not stored; SwiGLU adds
//                   layers.{i}.gate.weight (d_ff, D) (+ .bias); grouped-query attention
//                   makes in_proj_weight (I + 2·Ikv, D); type_embed.weight (type_vocab, D),
//                   embed_norm.*, lm_head.weight (vocab, D) when the config has them;
//                   sandwich norms add layers.{i}.post_attn_norm.* and post_ffn_norm.*
#include <map>
#include <string>
#include <vector>

#include "core/model/config.h"
#include "core/io/safetensors.h"
#include "core/model/weights.h"

namespace hs {

// Every tensor name and shape a model with this config has, in a stable order.
std::vector<std::pair<std::string, std::vector<std::int64_t>>> expected_tensors(
    const ModelConfig& config);

// Flattens weights to named f32 tensors.
std::vector<NamedTensor> to_state_dict(const ModelConfig& config, const ModelWeights& weights);

// Reads weights from a validated file. Throws hs::Error for a missing tensor (named), a
// shape mismatch ("layers.0.linear1.weight has shape [64, 32], expected [128, 32]") or
// extra tensors (named, first few).
ModelWeights from_safetensors(const ModelConfig& config, const SafetensorsFile& file);

// Throws hs::Error naming the first tensor (by its state_dict name) that holds a NaN or an
// infinity, and where: such weights compute NaN maps, or all-zero ones, without failing.
// `what` names the file or directory for the message. The loaders of HeadScope directories
// and llama2.c files call it last; the Hugging Face loader checks each tensor as it reads
// it (require_finite_tensor), under the file's own names.
void require_finite_weights(const ModelConfig& config, const ModelWeights& weights, const std::string& what);

// The same check for one tensor as a file holds it: `values` (n floats, row-major `shape`)
// named `name` in that file (a Hugging Face checkpoint's own names, so the message points
// into the file the user has).
void require_finite_tensor(const float* values, std::int64_t n, const std::vector<std::int64_t>& shape, const std::string& name,
                           const std::string& what);
// "holds NaN at [5, 3]; weights that are not finite numbers …": what every such check says
// of a `value` that is not finite at `at`, after the tensor's name.
std::string not_finite_weight(float value, const std::string& at);

}  // namespace hs
