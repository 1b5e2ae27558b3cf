#pragma once
// Grouped-query attention (Ainslie et al. 2023) after the projections: H query heads
// share Hkv key/value heads, query head h reads KV head h / (H / Hkv). With Hkv = H it
// is ordinary multi-head attention.
//   Q_h: (T, Dh) column block h of q;  K_g, V_g: (T, Dh) column block g = kv(h) of k, v
//   scores_h: (T, T) = Q_h K_gᵀ / √Dh (+ −∞ above the diagonal when causal)
//   A_h = softmax(scores_h) per row;  head_h: (T, Dh) = A_h V_g
//   concat: (T, H·Dh) = [head_1 | … | head_H]
#include <vector>

#include "core/tensor.h"
#include "core/trace.h"

namespace hs {

// KV head read by query head h; throws hs::Error unless heads % kv_heads == 0.
int kv_head_of(int h, int heads, int kv_heads);

struct GqaResult {
    Matrix concat;                 // (T, H·Dh)
    std::vector<Matrix> weights;   // H × (T, T) when want_weights
    std::vector<Matrix> scores;    // H × (T, T) scaled, pre-mask, when want_scores
};

// q: (T, H·Dh); k, v: (T, Hkv·Dh). `steps`, when non-null, receives the per-head
// intermediates (K/V heads repeated per query head), the scale and concat. `ablated`
// query heads' outputs are replaced in concat per `ablate_mode` (hs::ablate_heads); the
// other heads, and every head's weights, are unaffected.
GqaResult gqa_attention(const Matrix& q, const Matrix& k, const Matrix& v, int heads,
                        int kv_heads, bool causal, bool want_weights, bool want_scores,
                        AttentionSteps* steps = nullptr, const std::vector<int>& ablated = {},
                        AblationMode ablate_mode = AblationMode::Zero);

}  // namespace hs
