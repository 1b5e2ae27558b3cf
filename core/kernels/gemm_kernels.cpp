// GEMM micro-kernels and transposes, compiled once per SIMD level: Highway's
// foreach_target.h includes this file again for each target in HWY_TARGETS, each time in
// its own namespace (hs::kernels::N_AVX3, N_AVX2, N_SCALAR) with that target's
// instructions enabled; core/kernels/dispatch.h picks one at run time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "core/kernels/gemm_kernels.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <algorithm>
#include <cstdint>

#include "core/kernels/scratch.h"
#include "hwy/cache_control.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace hs::kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
#include "core/kernels/transpose_8x8-inl.h"  // inside the namespace: once per target

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
// kStreamA: a comes from memory (a weight in gemm::nn_packing's transposed product) in
// runs too short for the hardware prefetcher: fetch the next tile's rows a tile ahead.
// next_block: `next_lines` cache lines requested into L2, one every k / next_lines steps
// (a share of the block of b the caller's next call reads; see nn_tiles).
// kRows (6, 4 or 2) rows of registers; rows past mr re-read a's last valid row and are not stored.
template <int kRows, bool kEdge, bool kStreamA>
HWY_INLINE void tile(int mr, int cols, int k, float alpha, const float* a, int lda,
                     const float* b, int ldb, const float* bias, float* c, int ldc,
                     bool accumulate, const float* next_block, long next_lines) {
    const DF d;
    const int N = static_cast<int>(hn::Lanes(d));
    int valid[kTileVecs];  // columns of each vector inside the tile
    for (int v = 0; v < kTileVecs; ++v) valid[v] = kEdge ? cols - v * N : N;
    const float* ar[kRows];
    for (int i = 0; i < kRows; ++i) ar[i] = a + static_cast<long>(std::min(i, mr - 1)) * lda;

    VF acc[kRows][kTileVecs];
    for (int i = 0; i < kRows; ++i)
        for (int v = 0; v < kTileVecs; ++v)
            acc[i][v] = accumulate ? load_cols(d, c + static_cast<long>(std::min(i, mr - 1)) * ldc + v * N, valid[v])
                                   : hn::Zero(d);
    const float* next_a = a + static_cast<long>(kRows) * lda;  // the next tile's rows of a
    const int every = next_lines > 0 ? std::max(1, static_cast<int>(k / next_lines)) : k + 1;
    int countdown = every;
    // Unrolled four times: avx2 took 0.73–0.90× the time of the plain loop, avx512 the same
    // (docs/PERFORMANCE.md, "Kept", 2026-11-27).
#pragma GCC unroll 4
    for (int kk = 0; kk < k; ++kk) {
        if (--countdown == 0) {
            countdown = every;
            if (next_lines > 0) {
                __builtin_prefetch(next_block, 0, 2);  // prefetcht1: into L2, not L1
                next_block += 16;
                --next_lines;
            }
        }
        if (kStreamA && kk % 16 == 0)  // a line (16 floats) of each row
            for (int i = 0; i < kRows; ++i) hwy::Prefetch(next_a + static_cast<long>(i) * lda + kk);
        const float* row = b + static_cast<long>(kk) * ldb;  // b[kk][0 … cols)
        const float* b_ahead = row + kPrefetchRows * ldb;  // weights stream from memory once (a copied strip is in L1 already)
        for (int v = 0; v < kTileVecs * N; v += 16) hwy::Prefetch(b_ahead + v);
        VF y[kTileVecs];
        for (int v = 0; v < kTileVecs; ++v)
            y[v] = kEdge ? load_cols(d, row + v * N, valid[v]) : hn::LoadU(d, row + v * N);
        for (int i = 0; i < kRows; ++i) {
            const VF x = hn::Set(d, ar[i][kk]);
            for (int v = 0; v < kTileVecs; ++v) acc[i][v] = hn::MulAdd(x, y[v], acc[i][v]);
        }
    }
    for (; next_lines > 0; --next_lines, next_block += 16) __builtin_prefetch(next_block, 0, 2);  // k < lines
    // c row = alpha · acc (+ bias)
    const VF s = hn::Set(d, accumulate ? 1.0f : alpha);
    VF add[kTileVecs];
    for (int v = 0; v < kTileVecs; ++v)
        add[v] = bias && !accumulate ? load_cols(d, bias + v * N, valid[v]) : hn::Zero(d);
    for (int i = 0; i < kRows && i < mr; ++i)
        for (int v = 0; v < kTileVecs; ++v)
            store_cols(d, hn::MulAdd(s, acc[i][v], add[v]), c + static_cast<long>(i) * ldc + v * N,
                       valid[v]);
}

// `next` (next_floats floats, may be null): what the caller's next call reads from memory,
// requested into L2 a little per tile. A packed weight's block (256 × 64 floats, 64 KB)
// otherwise arrives only as the first row tile reads it, and that tile waits on memory
// while the others find the block in L2.
//
// A strip of b narrower than b's rows (AVX2's 16 columns of a 64-column panel) is first
// copied into a contiguous buffer when more than one row tile reads it. In place its k
// rows lie 4·ldb bytes apart and share a few L1 sets (a 256-byte stride uses 16 of 64),
// so every row tile would fetch the strip from L2 again. Deeper strips (a long product of
// the training's matmul) are read in place, which bounds each buffer at 4096 × 64 floats
// (1 MB).
constexpr int kMaxCopiedRows = 4096;

// strip (k, width) = b[0:k, 0:cols], zero past cols. Aligned stores: strip is a Scratch,
// 64-byte aligned (core/tensor.h asserts it for every Eigen heap buffer).
HWY_INLINE void copy_strip(int k, int cols, const float* b, int ldb, float* strip) {
    const DF d;
    const int N = static_cast<int>(hn::Lanes(d));
    for (int kk = 0; kk < k; ++kk)
        for (int v = 0; v < kTileVecs; ++v)
            hn::Store(load_cols(d, b + static_cast<long>(kk) * ldb + v * N, cols - v * N), d,
                      strip + (static_cast<long>(kk) * kTileVecs + v) * N);
}

// A tile of mr ≤ 6 rows runs with 6, 4 or 2 rows of registers (mr rounded up to even): the
// last tile of 128 rows has 2, which a 6-row tile would compute three times over.
template <bool kEdge, bool kStreamA>
HWY_INLINE void tile_of(int mr, int cols, int k, float alpha, const float* a, int lda, const float* b, int ldb,
                        const float* bias, float* c, int ldc, bool accumulate, const float* next, long lines) {
    if (mr > 4)
        tile<kTileRows, kEdge, kStreamA>(mr, cols, k, alpha, a, lda, b, ldb, bias, c, ldc, accumulate, next, lines);
    else if (mr > 2)
        tile<4, kEdge, kStreamA>(mr, cols, k, alpha, a, lda, b, ldb, bias, c, ldc, accumulate, next, lines);
    else
        tile<2, kEdge, kStreamA>(mr, cols, k, alpha, a, lda, b, ldb, bias, c, ldc, accumulate, next, lines);
}

template <bool kStreamA>
void nn_tiles(int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
              const float* bias, float* c, int ldc, bool accumulate, const float* next, long next_floats) {
    const int width = kTileVecs * static_cast<int>(hn::Lanes(DF()));  // columns per tile
    const bool copy_strips = ldb > width && m > kTileRows && k <= kMaxCopiedRows;
    thread_local Scratch strip_buffer;  // 64-byte aligned, as every Eigen allocation here
    float* strip = copy_strips ? strip_buffer.get(k, width).data() : nullptr;
    const long tiles = static_cast<long>((n + width - 1) / width) * ((m + kTileRows - 1) / kTileRows);
    long lines = next && tiles > 0 ? (next_floats + 15) / 16 : 0;
    const long lines_per_tile = tiles > 0 ? (lines + tiles - 1) / tiles : 0;
    for (int j = 0; j < n; j += width) {  // strips of b and c, each used by every row tile
        const int cols = std::min(width, n - j);
        const float* bias_j = bias ? bias + j : nullptr;
        const float* b_j = b + j;
        int ldb_j = ldb;
        if (copy_strips) {
            copy_strip(k, cols, b + j, ldb, strip);
            b_j = strip;
            ldb_j = width;
        }
        for (int i = 0; i < m; i += kTileRows) {
            const int mr = std::min(kTileRows, m - i);
            const float* a_i = a + static_cast<long>(i) * lda;
            float* c_ij = c + static_cast<long>(i) * ldc + j;
            const long share = std::min(lines_per_tile, lines);  // of `next`, during this tile
            if (cols == width)
                tile_of<false, kStreamA>(mr, cols, k, alpha, a_i, lda, b_j, ldb_j, bias_j, c_ij, ldc, accumulate, next,
                                         share);
            else
                tile_of<true, kStreamA>(mr, cols, k, alpha, a_i, lda, b_j, ldb_j, bias_j, c_ij, ldc, accumulate, next,
                                        share);
            if (share > 0) next += share * 16;
            lines -= share;
        }
    }
}

void NnBlock(int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
             const float* bias, float* c, int ldc, bool accumulate, bool stream_a, const float* next,
             long next_floats) {
    if (stream_a)
        nn_tiles<true>(m, n, k, alpha, a, lda, b, ldb, bias, c, ldc, accumulate, next, next_floats);
    else
        nn_tiles<false>(m, n, k, alpha, a, lda, b, ldb, bias, c, ldc, accumulate, next, next_floats);
}

// c (m, n) (=|+=) a (m, k) · b (n, k)ᵀ for a few rows of a (m ≤ kDotRows): every c[i][j]
// is the dot product of two contiguous rows, a_i and b_j, read as vectors along k. This is
// the LM head's product (one row against the 50257 × 768 vocabulary): b is read as it lies
// (once per pair of rows of a), where the tiles above would need it transposed first (one more pass over b
// and a write of its size). kRows rows of a × kCols rows of b at a time, one accumulator
// each (2 × 4 + 2 + 1 registers fit AVX2's 16), each summed across lanes at the end.
template <int kRows, int kCols>
HWY_INLINE void dot_block(int k, const float* a, int lda, const float* b, int ldb, float* c, int ldc,
                          bool accumulate) {
    const DF d;
    const int N = static_cast<int>(hn::Lanes(d));
    VF acc[kRows][kCols];
    for (int i = 0; i < kRows; ++i)
        for (int j = 0; j < kCols; ++j) acc[i][j] = hn::Zero(d);
    for (int kk = 0; kk < k; kk += N) {
        const int valid = k - kk;  // load_cols reads min(valid, N) floats, zero past them
        VF x[kRows];
        for (int i = 0; i < kRows; ++i) x[i] = load_cols(d, a + static_cast<long>(i) * lda + kk, valid);
        for (int j = 0; j < kCols; ++j) {
            const VF y = load_cols(d, b + static_cast<long>(j) * ldb + kk, valid);
            for (int i = 0; i < kRows; ++i) acc[i][j] = hn::MulAdd(x[i], y, acc[i][j]);
        }
    }
    for (int i = 0; i < kRows; ++i)
        for (int j = 0; j < kCols; ++j) {
            const float dot = hn::GetLane(hn::SumOfLanes(d, acc[i][j]));
            float& out = c[static_cast<long>(i) * ldc + j];
            out = accumulate ? out + dot : dot;
        }
}

template <int kRows>
HWY_INLINE void dot_rows(int n, int k, const float* a, int lda, const float* b, int ldb, float* c, int ldc,
                         bool accumulate) {
    int j = 0;
    for (; j + 4 <= n; j += 4)
        dot_block<kRows, 4>(k, a, lda, b + static_cast<long>(j) * ldb, ldb, c + j, ldc, accumulate);
    for (; j < n; ++j) dot_block<kRows, 1>(k, a, lda, b + static_cast<long>(j) * ldb, ldb, c + j, ldc, accumulate);
}

void NtDots(int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c, int ldc,
            bool accumulate) {
    for (int i = 0; i < m; i += 2) {  // pairs of rows: b is read once per pair
        const float* a_i = a + static_cast<long>(i) * lda;
        float* c_i = c + static_cast<long>(i) * ldc;
        if (i + 1 < m)
            dot_rows<2>(n, k, a_i, lda, b, ldb, c_i, ldc, accumulate);
        else
            dot_rows<1>(n, k, a_i, lda, b, ldb, c_i, ldc, accumulate);
    }
}

// bt (k, n) = b (n, k)ᵀ in 16 × 16 blocks, each block's 16 source rows in L1 while its
// output rows are written. Inside a block, 8 × 8 sub-blocks go through 256-bit registers
// (avx2 and avx512: store_transposed_8x8; generic goes one float at a time): 24 shuffles
// and 16 memory operations per 64 floats (4 × 4 blocks in 128-bit registers took 32 and
// 32: docs/PERFORMANCE.md, "Less layout").
#if HWY_TARGET != HWY_SCALAR && HWY_MAX_BYTES >= 32
HWY_INLINE void transpose_8x8(const float* b, long ldb, float* bt, long ldbt) {
    const F8 d;
    hn::Vec<F8> r[8];
    for (int i = 0; i < 8; ++i) r[i] = hn::LoadU(d, b + i * ldb);
    store_transposed_8x8(r, bt, ldbt);
}
constexpr int kRegisterBlock = 8;
#endif

void Transpose(int n, int k, const float* b, int ldb, float* bt, int ldbt) {
    constexpr int kBlock = 16;
    for (int r0 = 0; r0 < n; r0 += kBlock) {
        const int rows = std::min(kBlock, n - r0);
        for (int k0 = 0; k0 < k; k0 += kBlock) {
            const int ks = std::min(kBlock, k - k0);
            int r8 = 0, k8 = 0;  // the part done in registers: rows [0, r8), inputs [0, k8)
#if HWY_TARGET != HWY_SCALAR && HWY_MAX_BYTES >= 32
            r8 = rows / kRegisterBlock * kRegisterBlock;
            k8 = ks / kRegisterBlock * kRegisterBlock;
            for (int r = 0; r < r8; r += kRegisterBlock)
                for (int kk = 0; kk < k8; kk += kRegisterBlock)
                    transpose_8x8(b + static_cast<long>(r0 + r) * ldb + k0 + kk, ldb,
                                  bt + static_cast<long>(k0 + kk) * ldbt + r0 + r, ldbt);
#endif
            for (int kk = 0; kk < ks; ++kk) {  // the rest one float at a time
                float* out = bt + static_cast<long>(k0 + kk) * ldbt + r0;
                const float* in = b + static_cast<long>(r0) * ldb + k0 + kk;
                for (int r = kk < k8 ? r8 : 0; r < rows; ++r) out[r] = in[static_cast<long>(r) * ldb];
            }
        }
    }
}

std::int64_t Target() { return HWY_TARGET; }

}  // namespace hs::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "core/kernels/dispatched.h"
#include "core/kernels/dispatch.h"

namespace hs::kernels::dispatched {


void nn_block(int m, int n, int k, float alpha, const float* a, int lda, const float* b,
              int ldb, const float* bias, float* c, int ldc, bool accumulate, bool stream_a,
              const float* next, long next_floats) {
    HS_KERNEL(NnBlock)(m, n, k, alpha, a, lda, b, ldb, bias, c, ldc, accumulate, stream_a, next, next_floats);
}

void nt_dots(int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c, int ldc,
             bool accumulate) {
    HS_KERNEL(NtDots)(m, n, k, a, lda, b, ldb, c, ldc, accumulate);
}

void transpose(int n, int k, const float* b, int ldb, float* bt, int ldbt) {
    HS_KERNEL(Transpose)(n, k, b, ldb, bt, ldbt);
}

std::int64_t target() {
    return HS_KERNEL(Target)();
}

}  // namespace hs::kernels::dispatched
#endif  // HWY_ONCE
