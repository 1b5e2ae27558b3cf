#pragma once
// Named intermediates of a forward, ggml style: the forward hands every value it makes at a
// named point to a tap, so a reader (or a researcher) can look at any of them without a
// second code path. Names follow the state_dict prefixes (DESIGN §4):
//
//   [S]embed                       (T, D) embeddings + positions (+ token types, embedding
//                                  norm): the input to layer 0
//   [S]layers.N.norm1_in, norm2_in, norm3_in (decoder layers)
//                                  (T, D) what each of the layer's norms reads: before its
//                                  sub-layer pre-LN (x), after it post-LN (x + sub-layer(x))
//   [S]layers.N.attn_in            (T, D) what self-attention reads (norm1(x) pre-LN, x post-LN)
//   [S]layers.N.attn.q / .k / .v   (T, I) / (T, Ikv) / (T, Ikv) projections, Q and K rotated
//                                  (rotary positions)
//   [S]layers.N.attn.concat        (T, I) [head_1 | … | head_H] after any ablation
//   [S]layers.N.attn_out           (T, D) concat · W_oᵀ + b_o
//   decoder.layers.N.cross_in, .cross.q/.k/.v/.concat, .cross_out   (decoder of an
//                                  encoder–decoder; k, v: (S, Ikv) from the encoder)
//   [S]layers.N.ffn_in             (T, D) what the feed-forward reads
//   [S]layers.N.ffn_pre            (T, F) x·W1ᵀ + b1
//   [S]layers.N.ffn_gate           (T, F) x·W_gᵀ + b_g before its SiLU / GELU (SwiGLU, GeGLU)
//   [S]layers.N.ffn_hidden         (T, F) act(pre) (SwiGLU: silu(gate) ⊙ pre; GeGLU: gelu_tanh(gate) ⊙ pre)
//   [S]layers.N.ffn_out            (T, D) hidden · W2ᵀ + b2
//   [S]layers.N.out                (T, D) the layer's output
//   [S]norm_in, [S]norm            (T, D) the final norm's input and output (models that
//                                  have one)
//   logits                         (1, V) after the last position (models with an LM head)
//
// [S] is empty for a single stack, "encoder." / "decoder." for an encoder–decoder.
#include <string>
#include <vector>

#include "core/model/config.h"
#include "core/tensor.h"

namespace hs {

// Every name a forward of `config` taps, in the order it taps them.
std::vector<std::string> tap_names(const ModelConfig& config);

// Whether `name` matches `pattern`: equal, or with each '*' standing for any run of
// characters ("layers.*.attn_out", "*.q").
bool tap_matches(const std::string& pattern, const std::string& name);

// Throws hs::Error when a pattern matches no name of `config` (naming the pattern and a
// few valid names), or when keeping every match for `tokens` tokens would take more than
// 4 GB (each value counted as tokens × the widest of D, I, d_ff floats).
void check_tap_patterns(const std::vector<std::string>& patterns, const ModelConfig& config,
                        long long tokens);

}  // namespace hs
