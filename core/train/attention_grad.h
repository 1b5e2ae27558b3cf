#pragma once
// The backward of multi-head attention (the forward is core/model/attention.cpp; its taps
// and maps fill AttentionActivations). H query heads, Hkv key/value heads (query head h reads K/V head
// g = h / (H/Hkv)), Dh per head, I = H·Dh, Ikv = Hkv·Dh. Queries come from X (T, D); keys
// and values from X itself (self-attention) or from the encoder's output M (S, D)
// (cross-attention). W_in = [W_Q; W_K; W_V] (I + 2·Ikv, D):
//   Q = X·W_Qᵀ + b_Q                     (T, I); RoPE turns Q and K (self-attention only)
//   [K | V] = M·[W_K; W_V]ᵀ + b_KV       (S, Ikv) each; M = X for self-attention
//   P_h = softmax(C(Q_h K_gᵀ · s) + Mask) (T, S), s = score_scale() (1/√Dh unless the model's),
//   C(x) = cap · tanh(x / cap) with cap = attn_softcap (Gemma 2), else C(x) = x,
//   Mask = −∞ above the diagonal when causal and behind a local layer's window
//   concat[:, h] = P_h V_g               (T, I)
//   out = concat·W_oᵀ + b_o              (T, D)
// Backward, per head: dP = dO_h V_gᵀ; dS = P ⊙ (dP − rowsum(dP ⊙ P)) ⊙ C′ · s, with
//   C′ = 1 − tanh²(Q_h K_gᵀ · s / cap) recomputed from the saved Q and K (1 without a cap);
//   dQ_h = dS K_g, dK_g += dSᵀ Q_h, dV_g += P_hᵀ dO_h; RoPE's backward is the inverse
//   rotation; qk-norm's (self-attention) each head's RMSNorm backward; then dX = dQ·W_Q (+ [dK | dV]·[W_K; W_V] for self-attention) and, for
//   cross-attention, dM = [dK | dV]·[W_K; W_V].
#include <optional>
#include <vector>

#include "core/model/config.h"
#include "core/model/rope.h"
#include "core/model/weights.h"
#include "core/tensor.h"
#include "core/train/activations.h"

namespace hs::train {

// Self-attention (memory null; `rope` turned Q and K) or cross-attention over *memory
// (S, D), the encoder's output. Adds the weight gradients to `grad`; returns dx. For
// cross-attention, adds dM to *dmemory (required then).
Matrix attention_backward(const Matrix& dout, const AttentionWeights& w, const ModelConfig& config,
                          const std::optional<Rotary>& rope, const AttentionActivations& saved, AttentionWeights& grad,
                          const Matrix* memory = nullptr, Matrix* dmemory = nullptr);

}  // namespace hs::train
