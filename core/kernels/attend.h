#pragma once
// Steps 1–3 of multi-head attention (core/model/attention.h, the function to read first),
// the one entry point for their speed. The math, for H query heads and Hkv key/value heads
// of Dh columns (I = H·Dh, Ikv = Hkv·Dh), queries X (T, D) and keys/values from M (S, D),
// M = X for self-attention:
//   1. Q = X·W_Qᵀ + b_Q (T, I); [K | V] = M·[W_K; W_V]ᵀ + b_KV (S, Ikv) each
//      (self-attention: one product [Q|K|V] = X·W_inᵀ + b_in, W_in = [W_Q; W_K; W_V])
//   2. Q and K prepared per head (the caller's `prepare_qk`: qk-norm, then the rotation
//      by position)
//   3. per query head h, g = h / (H / Hkv) its K/V head:
//        S_h = Q_h K_gᵀ · scale (T, S), soft-capped to cap · tanh(S_h / cap) when cap > 0
//        A_h = softmax(S_h + mask): (T, S);  concat[:, h] = A_h V_g: (T, Dh)
// How it runs is this file's detail: every K_g and V_g laid out once for the GEMM kernel,
// then one work item per (head, block of query rows) on the pool; or, for self-attention
// whose W_in the packed-weight cache holds, with enough heads per thread and Dh a multiple
// of 64, one work item per head that also projects its own Q_h, K_h, V_h (the threads
// meet once). Both give the same numbers to float rounding; the Pipeline's capture and
// the heatmaps run whichever applies, at every size.
#include <functional>
#include <vector>

#include "core/kernels/attention_mask.h"
#include "core/kernels/stored_matrix.h"
#include "core/tensor.h"

namespace hs::kernels {

// Prepares every head of a column block (T, n·Dh) of Q (is_key false) or K in place:
// normalises each head's row (qk-norm), then turns it by position (rotary positions).
using PrepareQkFn = std::function<void(Eigen::Ref<Matrix> block, int n_heads, bool is_key)>;

// How the scores S_h come from Q_h K_gᵀ: S_h = Q_h K_gᵀ · scale (1/√Dh in the paper), then,
// when softcap > 0, S_h ← softcap · tanh(S_h / softcap) (Gemma 2's soft-capping, which
// keeps every score within ±softcap).
struct ScoreMath {
    float scale = 1.0f;
    float softcap = 0.0f;
};

struct AttendInput {
    const Matrix& x_query;   // X (T, D)
    const Matrix& x_memory;  // M (S, D): the same object as x_query for self-attention
    const Matrix& w_in;      // [W_Q; W_K; W_V] (I + 2·Ikv, D), PyTorch's in_proj_weight
    const Vector& b_in;      // (I + 2·Ikv), or empty: no bias
    int heads = 1, kv_heads = 1;
    const AttentionMask& mask;
    ScoreMath score;         // scores = Q_h K_gᵀ · scale, soft-capped
    PrepareQkFn prepare_qk;  // null: Q and K as projected
    // W_in left as stored (a layer read for its products only; self-attention only), w_in
    // then empty; null: w_in.
    const StoredMatrix* w_in_stored = nullptr;
    Eigen::Index w_in_rows() const { return w_in_stored ? w_in_stored->rows : w_in.rows(); }
};

// Q (T, I), K and V (S, Ikv) as steps 1–2 left them: views into this thread's scratch,
// valid until its next attend.
struct Attended {
    Eigen::Ref<Matrix> q, k, v;
};

// Steps 1–3 into concat (T, I). `weights` / `scores`, when non-null, are resized to
// H × (T, S) and receive A_h and the pre-mask scores S_h (scaled, soft-capped); otherwise A_h
// lives in per-thread scratch (and a causal row's unseen keys are not computed).
// `qkv_unrotated`, when non-null, receives step 1's product before step 2
// (self-attention (T, I + 2·Ikv), cross-attention Q (T, I)).
Attended attend(const AttendInput& in, Eigen::Ref<Matrix> concat, std::vector<Matrix>* weights,
                std::vector<Matrix>* scores, Matrix* qkv_unrotated);

// Step 3 alone, from given Q (T, H·Dh), K and V (S, Hkv·Dh); scores as `score` says.
void attend_heads(const Eigen::Ref<const Matrix>& q, const Eigen::Ref<const Matrix>& k,
                  const Eigen::Ref<const Matrix>& v, int heads, int kv_heads, ScoreMath score,
                  const AttentionMask& mask, Eigen::Ref<Matrix> concat,
                  std::vector<Matrix>* weights, std::vector<Matrix>* scores);

// Whether attend takes the per-head path for this self-attention block on `threads`
// threads (for tests): W_in in the packed-weight cache with its panels made, one K/V head
// per query head, Dh a multiple of 64, at least two heads per thread, T·|W_in| ≥ 1e6.
bool attends_per_head(const Matrix& w_in, int heads, int kv_heads, int T, int threads);

}  // namespace hs::kernels
