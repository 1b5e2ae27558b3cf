#pragma once
// The per-head fast path that core/attention.cpp's multi_head_attention runs (the
// function to read first is that one; this is how its step 3 is made fast).
#include <vector>

#include "core/model/attention.h"
#include "core/kernels/gemm.h"

namespace hs {

// W_in's panels when the fused per-head path applies to a self-attention block, else null:
// W_in in the packed-weight cache (core/kernels/packed_cache.h), one K/V head per query
// head, Dh a multiple of the 64-column panel, at least two heads per thread, enough work.
const gemm::PackedWeights* fused_heads_panels(const AttentionWeights& w, const HeadSplit& split,
                                              int T, int threads);

// Self-attention with one work item per head that projects its own
//   [Q_h | K_h | V_h]: (T, 3·Dh) = X · [W_Q,h; W_K,h; W_V,h]ᵀ + b   (panels of W_in)
// into qkv: (T, 3I), rotates Q_h and K_h (split.rope), then attends every block of query
// rows into concat: (T, I), so the threads meet once (before W_o) and X, W_h and the
// head's Q/K/V stay in cache. weights / scores as attend_heads. `qkv_unrotated`, when
// non-null ((T, 3I), for the Pipeline), receives [Q|K|V] before the rotation.
void fused_heads(const AttentionWeights& w, const gemm::PackedWeights& w_in_panels,
                 const HeadSplit& split, const Matrix& x,
                 const AttentionMask& mask, float scale, Eigen::Ref<Matrix> qkv,
                 Eigen::Ref<Matrix> concat, std::vector<Matrix>* weights,
                 std::vector<Matrix>* scores, Matrix* qkv_unrotated);

}  // namespace hs
