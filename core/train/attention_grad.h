#pragma once
// Multi-head self-attention for training, the math of core/model/attention.cpp with what
// the backward needs kept. H query heads, Hkv key/value heads (query head h reads K/V
// head g = h / (H/Hkv)), Dh per head, I = H·Dh, Ikv = Hkv·Dh:
//   [Q | K | V] = X·W_inᵀ + b_in        Q (T, I), K and V (T, Ikv); RoPE turns Q and K
//   P_h = softmax(Q_h K_gᵀ / √Dh + M)    (T, T), M = −∞ above the diagonal when causal
//   concat[:, h] = P_h V_g               (T, I)
//   out = concat·W_oᵀ + b_o              (T, D)
// Backward, per head: dP = dO_h V_gᵀ; dS = P ⊙ (dP − rowsum(dP ⊙ P)) / √Dh;
//   dQ_h = dS K_g, dK_g += dSᵀ Q_h, dV_g += P_hᵀ dO_h; RoPE's backward is the inverse
//   rotation; then dX = [dQ | dK | dV]·W_in.
#include <optional>
#include <vector>

#include "core/model/config.h"
#include "core/model/rope.h"
#include "core/model/weights.h"
#include "core/tensor.h"

namespace hs::train {

struct AttentionCache {
    Matrix x;                    // (T, D) input
    Matrix q, k, v;              // (T, I), (T, Ikv), (T, Ikv); q, k after RoPE
    std::vector<Matrix> probs;   // H × (T, T)
    Matrix concat;               // (T, I)
};

Matrix attention_forward(const Matrix& x, const AttentionWeights& w, const ModelConfig& config,
                         const std::optional<Rotary>& rope, AttentionCache& cache);
// Adds the weight gradients to `grad`; returns dx.
Matrix attention_backward(const Matrix& dout, const AttentionWeights& w, const ModelConfig& config,
                          const std::optional<Rotary>& rope, const AttentionCache& cache, AttentionWeights& grad);

}  // namespace hs::train
