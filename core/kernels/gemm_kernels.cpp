// GEMM micro-kernels and transposes, compiled once per SIMD level: Highway's
// foreach_target.h includes this file again for each target in HWY_TARGETS, each time in
// its own namespace (hs::kernels::N_AVX3, N_AVX2, N_SCALAR) with that target's
// instructions enabled; HWY_DYNAMIC_DISPATCH picks one at run time (core/kernels/simd.h).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "core/kernels/gemm_kernels.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <algorithm>

#include "hwy/cache_control.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace hs::kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

// A tile of c is kTileRows rows × kTileVecs vectors, all in registers while k runs, plus
// one row of b (kTileVecs vectors) and one broadcast element of a:
//   AVX-512, 32 registers of 16 floats: 6 × 4 + 4 + 1 = 29 → a 6 × 64 tile
//   AVX2,    16 registers of 8 floats:  6 × 2 + 2 + 1 = 15 → a 6 × 16 tile
//   scalar:  6 × 2 floats
constexpr int kTileRows = 6;
constexpr int kTileVecs = (HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL) ? 4 : 2;
// Rows of b requested ahead of use (a prefetch never faults, so reading past b is
// harmless). Measured on the 12-layer GPT-2-shaped forward with AVX-512: 85 ms without,
// 67–72 ms with 8.
constexpr long kPrefetchRows = 8;

// Loads `valid` leading floats of p (0 past them) without reading past them.
HWY_INLINE VF load_cols(DF d, const float* p, int valid) {
    const int N = static_cast<int>(hn::Lanes(d));
    if (valid >= N) return hn::LoadU(d, p);
    if (valid <= 0) return hn::Zero(d);
    return hn::MaskedLoad(hn::FirstN(d, static_cast<size_t>(valid)), d, p);
}

HWY_INLINE void store_cols(DF d, VF v, float* p, int valid) {
    const int N = static_cast<int>(hn::Lanes(d));
    if (valid >= N)
        hn::StoreU(v, d, p);
    else if (valid > 0)
        hn::BlendedStore(v, hn::FirstN(d, static_cast<size_t>(valid)), d, p);
}

// One tile: c[0:mr, 0:cols] (=|+=) alpha · a[0:mr, :] · b[:, 0:cols] (+ bias).
// kEdge: fewer than kTileVecs full vectors of columns (masked loads and stores).
// Rows past mr re-read a's last valid row and are not stored.
template <bool kEdge>
HWY_INLINE void tile(int mr, int cols, int k, float alpha, const float* a, int lda,
                     const float* b, int ldb, const float* bias, float* c, int ldc,
                     bool accumulate) {
    const DF d;
    const int N = static_cast<int>(hn::Lanes(d));
    int valid[kTileVecs];  // columns of each vector inside the tile
    for (int v = 0; v < kTileVecs; ++v) valid[v] = kEdge ? cols - v * N : N;
    const float* ar[kTileRows];
    for (int i = 0; i < kTileRows; ++i) ar[i] = a + static_cast<long>(std::min(i, mr - 1)) * lda;

    VF acc[kTileRows][kTileVecs];
    for (int i = 0; i < kTileRows; ++i)
        for (int v = 0; v < kTileVecs; ++v)
            acc[i][v] = accumulate ? load_cols(d, c + static_cast<long>(std::min(i, mr - 1)) * ldc + v * N, valid[v])
                                   : hn::Zero(d);
    for (int kk = 0; kk < k; ++kk) {
        const float* row = b + static_cast<long>(kk) * ldb;  // b[kk][0 … cols)
        const float* ahead = row + kPrefetchRows * ldb;     // weights stream from memory once
        for (int v = 0; v < kTileVecs * N; v += 16) hwy::Prefetch(ahead + v);
        VF y[kTileVecs];
        for (int v = 0; v < kTileVecs; ++v)
            y[v] = kEdge ? load_cols(d, row + v * N, valid[v]) : hn::LoadU(d, row + v * N);
        for (int i = 0; i < kTileRows; ++i) {
            const VF x = hn::Set(d, ar[i][kk]);
            for (int v = 0; v < kTileVecs; ++v) acc[i][v] = hn::MulAdd(x, y[v], acc[i][v]);
        }
    }
    // c row = alpha · acc (+ bias)
    const VF s = hn::Set(d, accumulate ? 1.0f : alpha);
    VF add[kTileVecs];
    for (int v = 0; v < kTileVecs; ++v)
        add[v] = bias && !accumulate ? load_cols(d, bias + v * N, valid[v]) : hn::Zero(d);
    for (int i = 0; i < kTileRows && i < mr; ++i)
        for (int v = 0; v < kTileVecs; ++v)
            store_cols(d, hn::MulAdd(s, acc[i][v], add[v]), c + static_cast<long>(i) * ldc + v * N,
                       valid[v]);
}

void NnBlock(int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
             const float* bias, float* c, int ldc, bool accumulate) {
    const int width = kTileVecs * static_cast<int>(hn::Lanes(DF()));  // columns per tile
    for (int j = 0; j < n; j += width) {  // strips of b and c, each used by every row tile
        const int cols = std::min(width, n - j);
        const float* bias_j = bias ? bias + j : nullptr;
        for (int i = 0; i < m; i += kTileRows) {
            const int mr = std::min(kTileRows, m - i);
            const float* a_i = a + static_cast<long>(i) * lda;
            float* c_ij = c + static_cast<long>(i) * ldc + j;
            if (cols == width)
                tile<false>(mr, cols, k, alpha, a_i, lda, b + j, ldb, bias_j, c_ij, ldc, accumulate);
            else
                tile<true>(mr, cols, k, alpha, a_i, lda, b + j, ldb, bias_j, c_ij, ldc, accumulate);
        }
    }
}

// bt (k, n) = b (n, k)ᵀ in 16 × 16 blocks: each block's 16 source rows stay in L1 while
// its 16 output rows are written, 16 neighbouring floats at a time.
void Transpose(int n, int k, const float* b, int ldb, float* bt, int ldbt) {
    constexpr int kBlock = 16;
    for (int r0 = 0; r0 < n; r0 += kBlock) {
        const int rows = std::min(kBlock, n - r0);
        for (int k0 = 0; k0 < k; k0 += kBlock) {
            const int ks = std::min(kBlock, k - k0);
            for (int kk = k0; kk < k0 + ks; ++kk) {
                float* out = bt + static_cast<long>(kk) * ldbt + r0;
                const float* in = b + static_cast<long>(r0) * ldb + kk;
                for (int r = 0; r < rows; ++r) out[r] = in[static_cast<long>(r) * ldb];
            }
        }
    }
}

std::int64_t Target() { return HWY_TARGET; }

}  // namespace hs::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "core/kernels/dispatched.h"
#include "core/kernels/simd.h"

namespace hs::kernels::dispatched {

HWY_EXPORT(NnBlock);
HWY_EXPORT(Transpose);
HWY_EXPORT(Target);

void nn_block(int m, int n, int k, float alpha, const float* a, int lda, const float* b,
              int ldb, const float* bias, float* c, int ldc, bool accumulate) {
    (void)simd_level();  // HEADSCOPE_SIMD is applied before the first dispatch
    HWY_DYNAMIC_DISPATCH(NnBlock)(m, n, k, alpha, a, lda, b, ldb, bias, c, ldc, accumulate);
}

void transpose(int n, int k, const float* b, int ldb, float* bt, int ldbt) {
    (void)simd_level();
    HWY_DYNAMIC_DISPATCH(Transpose)(n, k, b, ldb, bt, ldbt);
}

std::int64_t target() {
    (void)simd_level();
    return HWY_DYNAMIC_DISPATCH(Target)();
}

}  // namespace hs::kernels::dispatched
#endif  // HWY_ONCE
