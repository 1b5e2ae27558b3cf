#pragma once
// Multi-head attention exactly as PyTorch nn.MultiheadAttention computes it (DESIGN §3),
// with grouped-query attention and rotary positions for the real-model families:
//   [Q|K|V] = X · W_inᵀ + b_in            one GEMM for all heads, W_in (I + 2·Ikv, D)
//   Q, K rotated by position               rotary positions only (core/rope.h)
//   Q_h = column block h of Q; K_g, V_g = column block g = h / (H/Hkv) of K, V   (views)
//   A_h = softmax(Q_h K_gᵀ / √Dh + mask)  (T, S)
//   head_h = A_h V_g                      (T, Dh)
//   out = [head_1 … head_H] · W_oᵀ + b_o  (T, D)
// I = H·Dh, Ikv = Hkv·Dh (= I without grouped-query attention). Masked positions are −∞
// before softmax; a row with every key masked gives zeros. A missing bias is an empty Vector.
#include <atomic>
#include <functional>
#include <vector>

#include "core/model/rope.h"
#include "core/tensor.h"
#include "core/model/trace.h"
#include "core/model/weights.h"

namespace hs {

// Which keys each query may see.
struct AttentionMask {
    bool causal = false;             // key j > query i is masked
    std::vector<int> key_padding;    // key positions masked for every query
    // True if query i may attend to key j.
    bool allowed(int i, int j) const;
};

// Row-wise softmax that maps −∞ to exactly 0 and a fully masked row to zeros.
void softmax_rows(Matrix& m);

// scores: (T, S); sets −∞ wherever the mask forbids query i from seeing key j.
void apply_mask(Matrix& scores, const AttentionMask& mask);

// All heads of one attention block after the projections (step 3 of
// multi_head_attention; attention_heads.cpp). Work is spread over the thread pool in items
// of (head, block of query rows), after every K_g and V_g is laid out once for the GEMM kernel.
//   q: (T, H·Dh); k, v: (S, H_kv·Dh); query head h reads key/value head h / (H / H_kv)
//   A_h: (T, S) = softmax(Q_h K_gᵀ · scale + mask)   (causal: keys j > i are never computed)
//   concat: (T, H·Dh) receives head_h = A_h V_g in block h
// `weights` / `scores`, when non-null, are resized to H × (T, S) and receive A_h and the
// scaled pre-mask scores Q_h K_gᵀ · scale; otherwise A_h lives in per-thread scratch.
void attend_heads(const Eigen::Ref<const Matrix>& q, const Eigen::Ref<const Matrix>& k,
                  const Eigen::Ref<const Matrix>& v, int heads, int kv_heads, float scale,
                  const AttentionMask& mask, Eigen::Ref<Matrix> concat,
                  std::vector<Matrix>* weights, std::vector<Matrix>* scores);

// Head ablation before W_o. concat: (T, H·Dh) = [head_1 | … | head_H]; for every h in
// `heads` the block head_h: (T, Dh) becomes 0 (Zero) or, in every row, its column mean
// over the T positions (Mean). Throws hs::Error for a head outside 0..H−1.
void ablate_heads(Eigen::Ref<Matrix> concat, const std::vector<int>& heads, int H,
                  AblationMode mode);

// Throws hs::Error naming the valid range if a head in `ablate` is outside `layers` ×
// `heads`, or names a decoder / cross-attention block the model does not have.
void check_ablation(const std::vector<HeadRef>& ablate, int layers, int heads,
                    bool has_decoder);

struct AttentionResult {
    Matrix output;                 // (T, D)
    std::vector<Matrix> weights;   // H × (T, S), filled when want_weights
    std::vector<Matrix> scores;    // H × (T, S) scaled scores, filled when want_scores
};

// Self-attention: pass the same object as x_query and x_memory (detected by address, so
// the fused [Q|K|V] GEMM runs once). Cross-attention: keys/values from x_memory.
// `steps`, when non-null, receives every intermediate of the same computation (head_outputs
// before the ablation, concat after it). `ablated` heads are replaced per `ablate_mode`
// (see ablate_heads). This overload splits with w.heads and w.kv_heads.
AttentionResult multi_head_attention(const AttentionWeights& w, const Matrix& x_query,
                                     const Matrix& x_memory, const AttentionMask& mask,
                                     bool want_weights, bool want_scores,
                                     AttentionSteps* steps = nullptr,
                                     const std::vector<int>& ablated = {},
                                     AblationMode ablate_mode = AblationMode::Zero);
// How one block splits Q, K and V into heads, and the rotation of Q and K (self-attention
// with rotary positions; null otherwise).
struct HeadSplit {
    int heads = 1;     // H
    int kv_heads = 1;  // Hkv; H % Hkv == 0
    const Rotary* rope = nullptr;
};

// The same with the split given instead of w's. The fused projections do not depend on
// the head count (heads only say how the columns of Q, K and V split into Dh blocks), so
// a Model runs its layers with its config's and Model::with_heads shares one set of
// weights between head counts. Throws hs::Error when the split does not fit the weights.
// `tap`, when non-null, sees the block's named intermediates (core/model/taps.h): "q",
// "k", "v" after any rotation and "concat" after any ablation.
using AttentionTap = std::function<void(const char* name, const Eigen::Ref<const Matrix>& value)>;
AttentionResult multi_head_attention(const AttentionWeights& w, const HeadSplit& split,
                                     const Matrix& x_query,
                                     const Matrix& x_memory, const AttentionMask& mask,
                                     bool want_weights, bool want_scores,
                                     AttentionSteps* steps = nullptr,
                                     const std::vector<int>& ablated = {},
                                     AblationMode ablate_mode = AblationMode::Zero,
                                     const AttentionTap* tap = nullptr);

// Reference implementation: h separate per-head projections with (D, Dh) matrices, no
// fused GEMM, loops for the softmax, w.heads and w.kv_heads, no rotation. Tests compare
// the fast paths against it.
AttentionResult multi_head_attention_naive(const AttentionWeights& w, const Matrix& x_query,
                                           const Matrix& x_memory, const AttentionMask& mask);

}  // namespace hs
