#pragma once
// The kernels compiled once per SIMD level (core/kernels/simd.h) by Highway; each call
// runs the level in use. Only core/kernels/ calls these: the rest of core goes through
// gemm.h.
#include <cstdint>

namespace hs::kernels::dispatched {

// c (m, n) = alpha · a (m, k) · b (k, n) (+ bias (n) on every row when non-null), or with
// `accumulate` c += a · b (alpha 1, no bias). Row-major with row strides lda, ldb, ldc.
// Tiles of 6 rows × (4 vectors at avx512, 2 below) of c stay in registers while k runs.
// stream_a: a is read from memory once (not from cache) and is prefetched a tile ahead.
// next (next_floats floats): what the caller reads next, requested into L2 meanwhile.
void nn_block(int m, int n, int k, float alpha, const float* a, int lda, const float* b,
              int ldb, const float* bias, float* c, int ldc, bool accumulate, bool stream_a = false,
              const float* next = nullptr, long next_floats = 0);

// c (m, n) = a (m, k) · b (n, k)ᵀ (c += with `accumulate`) as dot products of contiguous
// rows: for a few rows of a (gemm::kDotRows), b read once as it lies.
void nt_dots(int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c, int ldc,
             bool accumulate);

// bt (k, n) = b (n, k)ᵀ.
void transpose(int n, int k, const float* b, int ldb, float* bt, int ldbt);

// The Highway target (HWY_AVX3, HWY_AVX2, HWY_SCALAR, …) of the code the calls above run.
std::int64_t target();

}  // namespace hs::kernels::dispatched
