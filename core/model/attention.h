#pragma once
// Multi-head attention exactly as PyTorch nn.MultiheadAttention computes it (DESIGN §3),
// with grouped-query attention and rotary positions for the real-model families:
//   [Q|K|V] = X · W_inᵀ + b_in            one GEMM for all heads, W_in (I + 2·Ikv, D)
//   Q_h ← Q_h / √(mean(Q_h²) + ε) ⊙ γ_q   per row, likewise K_g with γ_k: qk-norm only
//   Q, K rotated by position               rotary positions only (core/rope.h)
//   Q_h = column block h of Q; K_g, V_g = column block g = h / (H/Hkv) of K, V   (views)
//   S_h = Q_h K_gᵀ · scale                 (T, S), scale = 1/√Dh unless score_scale
//   S_h ← cap · tanh(S_h / cap)            soft-capping (Gemma 2) only
//   A_h = softmax(S_h + mask)              (T, S)
//   head_h = A_h V_g                      (T, Dh)
//   out = [head_1 … head_H] · W_oᵀ + b_o  (T, D)
// I = H·Dh, Ikv = Hkv·Dh (= I without grouped-query attention). Masked positions are −∞
// before softmax (core/kernels/attention_mask.h); a row with every key masked gives zeros.
// A missing bias is an empty Vector. The first three lines run in kernels::attend
// (core/kernels/attend.h), the one entry point for their speed.
#include <vector>

#include "core/kernels/attention_mask.h"
#include "core/model/config.h"  // resolved_score_scale
#include "core/model/recorder.h"
#include "core/model/rope.h"
#include "core/tensor.h"
#include "core/model/trace.h"
#include "core/model/weights.h"

namespace hs {

// QK-norm of a column block (T, n_heads·Dh) of Q or K, in place: each head's row
// x ← x / √(mean(x²) + eps) ⊙ γ, γ: (Dh). Throws hs::Error when γ is not Dh long.
void normalize_heads(Eigen::Ref<Matrix> block, int n_heads, const Vector& gamma, float eps);

// Row-wise softmax that maps −∞ to exactly 0 and a fully masked row to zeros.
void softmax_rows(Matrix& m);

// Head ablation before W_o. concat: (T, H·Dh) = [head_1 | … | head_H]; for every h in
// `heads` the block head_h: (T, Dh) becomes 0 (Zero) or, in every row, its column mean
// over the T positions (Mean). Throws hs::Error for a head outside 0..H−1.
void ablate_heads(Eigen::Ref<Matrix> concat, const std::vector<int>& heads, int H,
                  AblationMode mode);

// Throws hs::Error naming the valid range if a head in `ablate` is outside `layers` ×
// `heads`, or names a decoder / cross-attention block the model does not have.
void check_ablation(const std::vector<HeadRef>& ablate, int layers, int heads,
                    bool has_decoder);

// How one block splits Q, K and V into heads, and the rotation of Q and K (self-attention
// with rotary positions; null otherwise). heads = 0: the weights' own (w.heads, w.kv_heads).
struct HeadSplit {
    int heads = 0;     // H
    int kv_heads = 0;  // Hkv; H % Hkv == 0
    const Rotary* rope = nullptr;
};
// The split `given` asks for, or (heads = 0) the weights' own.
HeadSplit split_of(const AttentionWeights& w, const HeadSplit& given);

// Everything a call of multi_head_attention takes besides the weights and inputs.
struct AttentionOptions {
    // The split given instead of w's: the fused projections do not depend on the head count
    // (heads only say how the columns of Q, K and V split into Dh blocks), so a Model runs
    // its layers with its config's and Model::with_heads shares one set of weights between
    // head counts.
    HeadSplit split{};
    AttentionMask mask{};
    float qk_norm_eps = 1e-6f;   // ε of qk-norm (w.q_norm / w.k_norm set): the config's norm_eps
    float score_scale = 0.0f;    // scores = Q_h K_gᵀ · score_scale; 0: 1/√Dh
    float softcap = 0.0f;        // scores → softcap · tanh(scores / softcap); 0: none
    std::vector<int> ablated{};  // heads replaced before W_o (ablate_heads)
    AblationMode ablate_mode = AblationMode::Zero;
    // Sees the block's named values (recorder.h) at `at` (its stack and layer; at.name is
    // the block, "attn" or "cross"): "<block>_in", "<block>.q/.k/.v" after any rotation,
    // "<block>.concat" after any ablation, "<block>_out", and the on-demand values
    // (per-head weights and scores, qkv before qk-norm and rotation, heads before
    // ablation, memory)
    // when the recorder wants them.
    Recorder* recorder = nullptr;
    TapPoint at{"", -1, "attn"};
};

// Self-attention: pass the same object as x_query and x_memory (detected by address, so
// the [Q|K|V] product runs once); cross-attention: keys/values from x_memory. Returns the
// output (T, D). Throws hs::Error when the split does not fit the weights or the inputs'
// widths are not d_model.
Matrix multi_head_attention(const AttentionWeights& w, const Matrix& x_query, const Matrix& x_memory,
                            const AttentionOptions& options = {});

struct AttentionResult {
    Matrix output;                // (T, D)
    std::vector<Matrix> weights;  // H × (T, S)
};

// Reference implementation: h separate per-head projections with (D, Dh) matrices, no
// fused GEMM, loops for the softmax, w.heads and w.kv_heads, no rotation. Tests compare
// the fast paths against it.
AttentionResult multi_head_attention_naive(const AttentionWeights& w, const Matrix& x_query,
                                           const Matrix& x_memory, const AttentionMask& mask);

}  // namespace hs
