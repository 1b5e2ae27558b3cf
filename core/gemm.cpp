#include "core/gemm.h"

#include <algorithm>

#include "core/tensor.h"

#if defined(__AVX512F__)
#include <immintrin.h>
#define HEADSCOPE_GEMM_AVX512 1
#endif

namespace hs::gemm {

namespace {

using Stride = Eigen::OuterStride<>;
using ConstView = Eigen::Map<const Matrix, 0, Stride>;
using View = Eigen::Map<Matrix, 0, Stride>;

#ifdef HEADSCOPE_GEMM_AVX512

// A tile is 6 rows × 64 columns of c in 24 registers; each step of k broadcasts a[i][k]
// and multiplies it into row k of b (4 vectors). Rows past mr re-read the last valid row
// of a and are not stored; columns past the panel are masked off.
constexpr int kNnRows = 6;
// Rows of b requested ahead of use (prefetch never faults, so reading past b is harmless).
// Measured on the 12-layer GPT-2-shaped forward: 85 ms without, 67–72 ms with 8.
constexpr long kPrefetchRows = 8;

void nn_tile(int mr, int k, float alpha, const float* a, int lda, const float* b, int ldb,
             const float* bias, float* c, int ldc, const __mmask16 mask[4], bool accumulate) {
    const float* ar[kNnRows];
    for (int i = 0; i < kNnRows; ++i) ar[i] = a + static_cast<long>(std::min(i, mr - 1)) * lda;
    const float *a0 = ar[0], *a1 = ar[1], *a2 = ar[2], *a3 = ar[3], *a4 = ar[4], *a5 = ar[5];
    const __mmask16 m0 = mask[0], m1 = mask[1], m2 = mask[2], m3 = mask[3];
    __m512 c00 = _mm512_setzero_ps(), c01 = c00, c02 = c00, c03 = c00;
    __m512 c10 = c00, c11 = c00, c12 = c00, c13 = c00;
    __m512 c20 = c00, c21 = c00, c22 = c00, c23 = c00;
    __m512 c30 = c00, c31 = c00, c32 = c00, c33 = c00;
    __m512 c40 = c00, c41 = c00, c42 = c00, c43 = c00;
    __m512 c50 = c00, c51 = c00, c52 = c00, c53 = c00;
    if (accumulate) {  // continue a sum over an earlier block of k: start from c
        const auto load_row = [&](int i, __m512& v0, __m512& v1, __m512& v2, __m512& v3) {
            const float* in = c + static_cast<long>(std::min(i, mr - 1)) * ldc;
            v0 = _mm512_maskz_loadu_ps(m0, in);
            v1 = _mm512_maskz_loadu_ps(m1, in + 16);
            v2 = _mm512_maskz_loadu_ps(m2, in + 32);
            v3 = _mm512_maskz_loadu_ps(m3, in + 48);
        };
        load_row(0, c00, c01, c02, c03);
        load_row(1, c10, c11, c12, c13);
        load_row(2, c20, c21, c22, c23);
        load_row(3, c30, c31, c32, c33);
        load_row(4, c40, c41, c42, c43);
        load_row(5, c50, c51, c52, c53);
    }
    for (int kk = 0; kk < k; ++kk) {
        const float* row = b + static_cast<long>(kk) * ldb;  // b[kk][0…63]
        // Weights stream from memory once per call: fetch rows ahead (4 lines each).
        const float* ahead = row + kPrefetchRows * ldb;
        _mm_prefetch(reinterpret_cast<const char*>(ahead), _MM_HINT_T0);
        _mm_prefetch(reinterpret_cast<const char*>(ahead + 16), _MM_HINT_T0);
        _mm_prefetch(reinterpret_cast<const char*>(ahead + 32), _MM_HINT_T0);
        _mm_prefetch(reinterpret_cast<const char*>(ahead + 48), _MM_HINT_T0);
        const __m512 y0 = _mm512_maskz_loadu_ps(m0, row), y1 = _mm512_maskz_loadu_ps(m1, row + 16);
        const __m512 y2 = _mm512_maskz_loadu_ps(m2, row + 32), y3 = _mm512_maskz_loadu_ps(m3, row + 48);
        __m512 x = _mm512_set1_ps(a0[kk]);
        c00 = _mm512_fmadd_ps(x, y0, c00); c01 = _mm512_fmadd_ps(x, y1, c01);
        c02 = _mm512_fmadd_ps(x, y2, c02); c03 = _mm512_fmadd_ps(x, y3, c03);
        x = _mm512_set1_ps(a1[kk]);
        c10 = _mm512_fmadd_ps(x, y0, c10); c11 = _mm512_fmadd_ps(x, y1, c11);
        c12 = _mm512_fmadd_ps(x, y2, c12); c13 = _mm512_fmadd_ps(x, y3, c13);
        x = _mm512_set1_ps(a2[kk]);
        c20 = _mm512_fmadd_ps(x, y0, c20); c21 = _mm512_fmadd_ps(x, y1, c21);
        c22 = _mm512_fmadd_ps(x, y2, c22); c23 = _mm512_fmadd_ps(x, y3, c23);
        x = _mm512_set1_ps(a3[kk]);
        c30 = _mm512_fmadd_ps(x, y0, c30); c31 = _mm512_fmadd_ps(x, y1, c31);
        c32 = _mm512_fmadd_ps(x, y2, c32); c33 = _mm512_fmadd_ps(x, y3, c33);
        x = _mm512_set1_ps(a4[kk]);
        c40 = _mm512_fmadd_ps(x, y0, c40); c41 = _mm512_fmadd_ps(x, y1, c41);
        c42 = _mm512_fmadd_ps(x, y2, c42); c43 = _mm512_fmadd_ps(x, y3, c43);
        x = _mm512_set1_ps(a5[kk]);
        c50 = _mm512_fmadd_ps(x, y0, c50); c51 = _mm512_fmadd_ps(x, y1, c51);
        c52 = _mm512_fmadd_ps(x, y2, c52); c53 = _mm512_fmadd_ps(x, y3, c53);
    }
    // c row = alpha · acc (+ bias)
    const __m512 s = _mm512_set1_ps(alpha);
    const __m512 z = _mm512_setzero_ps();
    const __m512 d0 = bias ? _mm512_maskz_loadu_ps(m0, bias) : z;
    const __m512 d1 = bias ? _mm512_maskz_loadu_ps(m1, bias + 16) : z;
    const __m512 d2 = bias ? _mm512_maskz_loadu_ps(m2, bias + 32) : z;
    const __m512 d3 = bias ? _mm512_maskz_loadu_ps(m3, bias + 48) : z;
    const auto store_row = [&](int i, __m512 v0, __m512 v1, __m512 v2, __m512 v3) {
        if (i >= mr) return;
        float* out = c + static_cast<long>(i) * ldc;
        _mm512_mask_storeu_ps(out, m0, _mm512_fmadd_ps(s, v0, d0));
        _mm512_mask_storeu_ps(out + 16, m1, _mm512_fmadd_ps(s, v1, d1));
        _mm512_mask_storeu_ps(out + 32, m2, _mm512_fmadd_ps(s, v2, d2));
        _mm512_mask_storeu_ps(out + 48, m3, _mm512_fmadd_ps(s, v3, d3));
    };
    store_row(0, c00, c01, c02, c03);
    store_row(1, c10, c11, c12, c13);
    store_row(2, c20, c21, c22, c23);
    store_row(3, c30, c31, c32, c33);
    store_row(4, c40, c41, c42, c43);
    store_row(5, c50, c51, c52, c53);
}

#endif  // HEADSCOPE_GEMM_AVX512

}  // namespace

bool vectorised() {
#ifdef HEADSCOPE_GEMM_AVX512
    return true;
#else
    return false;
#endif
}

namespace {

// nn() with `accumulate`: c += a · b (alpha must be 1; the bias is not added again).
void nn_block(int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
              const float* bias, float* c, int ldc, bool accumulate) {
#ifdef HEADSCOPE_GEMM_AVX512
    for (int j = 0; j < n; j += kPanel) {  // 64-column panels of b and c
        const int cols = std::min(kPanel, n - j);
        __mmask16 mask[4];  // columns of each 16-wide vector inside the panel
        for (int v = 0; v < 4; ++v) {
            const int in = std::clamp(cols - 16 * v, 0, 16);
            mask[v] = static_cast<__mmask16>(in == 16 ? 0xFFFF : (1u << in) - 1);
        }
        for (int i = 0; i < m; i += kNnRows)
            nn_tile(std::min(kNnRows, m - i), k, alpha, a + static_cast<long>(i) * lda, lda, b + j,
                    ldb, bias ? bias + j : nullptr, c + static_cast<long>(i) * ldc + j, ldc, mask,
                    accumulate);
    }
#else
    View cm(c, m, n, Stride(ldc));
    const auto product = alpha * (ConstView(a, m, k, Stride(lda)) * ConstView(b, k, n, Stride(ldb)));
    if (accumulate) {
        cm.noalias() += product;
    } else {
        cm.noalias() = product;
        if (bias) cm.rowwise() += Eigen::Map<const Eigen::RowVectorXf>(bias, n);
    }
#endif
}

}  // namespace

void nn(int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
        const float* bias, float* c, int ldc) {
    nn_block(m, n, k, alpha, a, lda, b, ldb, bias, c, ldc, false);
}

PackedWeights pack(const float* w, int n, int k, int ldw) {
    PackedWeights p;
    p.n = n;
    p.k = k;
    const int panels = (n + kPanel - 1) / kPanel;
    p.data.resize(static_cast<Eigen::Index>(panels) * k * kPanel);  // every float written below
    for (int q = 0; q < panels; ++q) {
        const int rows = std::min(kPanel, n - q * kPanel);
        transpose(rows, k, w + static_cast<long>(q) * kPanel * ldw, ldw, p.panel(q), kPanel);
        if (rows < kPanel)  // the last panel's missing outputs read as zero weights
            for (int i = 0; i < k; ++i)
                std::fill(p.panel(q) + static_cast<long>(i) * kPanel + rows, p.panel(q) + (static_cast<long>(i) + 1) * kPanel, 0.0f);
    }
    return p;
}

void unpack(const PackedWeights& p, float* w, int ldw) {
    for (int q = 0; q < p.panels(); ++q) {
        const int rows = std::min(kPanel, p.n - q * kPanel);
        transpose(p.k, rows, p.panel(q), kPanel, w + static_cast<long>(q) * kPanel * ldw, ldw);
    }
}

void nn_packed(int m, const float* a, int lda, const PackedWeights& w, int panel0, int panels,
               const float* bias, float* c, int ldc) {
    // Blocks of kKBlock inputs: a block of a (≤ 256 rows × kKBlock, in L2) meets each panel's
    // kKBlock × 64 block once, so with two threads streaming different panels each weight is
    // read from memory once per call (not once per row block); later blocks add onto c.
    constexpr int kKBlock = 256, kRowBlock = 256;
    for (int k0 = 0; k0 < w.k; k0 += kKBlock) {
        const int kn = std::min(kKBlock, w.k - k0);
        for (int i = 0; i < m; i += kRowBlock) {
            const int rows = std::min(kRowBlock, m - i);
            for (int q = panel0; q < panel0 + panels; ++q) {
                const int col = q * kPanel, cols = std::min(kPanel, w.n - col);
                nn_block(rows, cols, kn, 1.0f, a + static_cast<long>(i) * lda + k0, lda,
                         w.panel(q) + static_cast<long>(k0) * kPanel, kPanel,
                         bias && k0 == 0 ? bias + col : nullptr,
                         c + static_cast<long>(i) * ldc + col, ldc, k0 > 0);
            }
        }
    }
}

#ifdef HEADSCOPE_GEMM_AVX512
namespace {

// bt[c][r] = b[r][c] for a 16 × 16 block, in registers:
//   1. unpack{lo,hi}_ps of row pairs: 2 × 2 blocks within each 128-bit lane;
//   2. unpack{lo,hi}_pd of those: in lane L of u[4i + c], rows 4i..4i+3 of column 4L + c;
//   3-4. a 4 × 4 transpose of 128-bit lanes (shuffle_f32x4) gathers column 4L + c.
void transpose_16x16(const float* b, long ldb, float* bt, long ldbt) {
    __m512 r[16], t[16], u[16];
    for (int i = 0; i < 16; ++i) r[i] = _mm512_loadu_ps(b + i * ldb);
    for (int i = 0; i < 8; ++i) {
        t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int i = 0; i < 4; ++i) {
        const __m512d a = _mm512_castps_pd(t[4 * i]), b2 = _mm512_castps_pd(t[4 * i + 2]);
        const __m512d c = _mm512_castps_pd(t[4 * i + 1]), d = _mm512_castps_pd(t[4 * i + 3]);
        u[4 * i + 0] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, b2));
        u[4 * i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, b2));
        u[4 * i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(c, d));
        u[4 * i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(c, d));
    }
    for (int c = 0; c < 4; ++c) {  // v_i = u[4i + c]; out[4L + c] = (v_0.L, v_1.L, v_2.L, v_3.L)
        const __m512 w0 = _mm512_shuffle_f32x4(u[c], u[4 + c], _MM_SHUFFLE(1, 0, 1, 0));
        const __m512 w1 = _mm512_shuffle_f32x4(u[c], u[4 + c], _MM_SHUFFLE(3, 2, 3, 2));
        const __m512 w2 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], _MM_SHUFFLE(1, 0, 1, 0));
        const __m512 w3 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], _MM_SHUFFLE(3, 2, 3, 2));
        _mm512_storeu_ps(bt + (0 + c) * ldbt, _mm512_shuffle_f32x4(w0, w2, _MM_SHUFFLE(2, 0, 2, 0)));
        _mm512_storeu_ps(bt + (4 + c) * ldbt, _mm512_shuffle_f32x4(w0, w2, _MM_SHUFFLE(3, 1, 3, 1)));
        _mm512_storeu_ps(bt + (8 + c) * ldbt, _mm512_shuffle_f32x4(w1, w3, _MM_SHUFFLE(2, 0, 2, 0)));
        _mm512_storeu_ps(bt + (12 + c) * ldbt, _mm512_shuffle_f32x4(w1, w3, _MM_SHUFFLE(3, 1, 3, 1)));
    }
}

}  // namespace
#endif  // HEADSCOPE_GEMM_AVX512

void transpose(int n, int k, const float* b, int ldb, float* bt, int ldbt) {
    // 16 rows of b at a time: full 16 × 16 blocks in registers, the rest element by
    // element (each k writes 16 neighbouring floats of bt).
    for (int r0 = 0; r0 < n; r0 += 16) {
        const int rows = std::min(16, n - r0);
        int kk = 0;
#ifdef HEADSCOPE_GEMM_AVX512
        if (rows == 16)
            for (; kk + 16 <= k; kk += 16)
                transpose_16x16(b + static_cast<long>(r0) * ldb + kk, ldb, bt + static_cast<long>(kk) * ldbt + r0, ldbt);
#endif
        for (; kk < k; ++kk) {
            float* out = bt + static_cast<long>(kk) * ldbt + r0;
            for (int r = 0; r < rows; ++r) out[r] = b[static_cast<long>(r0 + r) * ldb + kk];
        }
    }
}

}  // namespace hs::gemm
