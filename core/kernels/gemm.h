#pragma once
// Single-threaded fp32 matrix-product kernels for the shapes attention has
// (docs/PERFORMANCE.md). All matrices are row-major, given as a pointer and a row stride
// (ld*, in floats), so column blocks of a fused [Q|K|V] buffer are used in place.
//
// Every call runs at the SIMD level in use (core/kernels/simd.h: AVX-512, AVX2+FMA or
// generic, chosen at run time): a tile of c (6 × 64 floats with AVX-512, 6 × 16 with
// AVX2) stays in registers while k runs; b is read a row at a time, so b must be
// row-major along n: V_g, or keys or a linear layer's weight laid out in panels (pack_panel).
// A tile's strip of a wider b (AVX2's 16 of a panel's 64 columns) is copied into a
// contiguous per-thread buffer before the row tiles that share it (L1 sets, see
// gemm_kernels.cpp), so b's stride costs nothing for strips up to 4096 deep.
// Callers parallelise over tiles of c (core/kernels/parallel.h). Operands 64-byte aligned
// are fastest: every Eigen heap allocation is (EIGEN_MAX_ALIGN_BYTES=64, core/CMakeLists.txt;
// docs/PERFORMANCE.md, "Alignment").
#include <Eigen/Core>

#include "core/kernels/stored_matrix.h"

namespace hs::gemm {

// c (m, n) = alpha · a (m, k) · b (k, n) (+ bias (n) on every row when non-null): rows of
// b are read as vectors, elements of a are broadcast. Used for A_h·V_g and for Q_h·K_gᵀ,
// one panel of 64 keys at a time (pack_panel of K_g).
void nn(int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
        const float* bias, float* c, int ldc);

// c (m, n) += a (m, k) · b (k, n).
void nn_accumulate(int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c, int ldc);

// A linear layer's weight W (n, k) (PyTorch (out, in) layout) laid out once for nn():
// panel q is the (k, 64) row-major block Wᵀ[:, 64q : 64q + 64], zero past n, so
// y = x·Wᵀ reads every panel front to back.
constexpr int kPanel = 64;
struct PackedWeights {
    int n = 0, k = 0;
    Eigen::VectorXf data;  // panels × k × 64 floats
    int panels() const { return (n + kPanel - 1) / kPanel; }
    const float* panel(int q) const { return data.data() + static_cast<long>(q) * k * kPanel; }
    float* panel(int q) { return data.data() + static_cast<long>(q) * k * kPanel; }
};
PackedWeights pack(const float* w, int n, int k, int ldw);

// Panel q of w (n, k) as pack() lays it out: out (k, 64) = Wᵀ[:, 64q : 64q + 64], zero past n.
void pack_panel(const float* w, int n, int k, int ldw, int q, float* out);

// c[:, 64·panel0 : 64·(panel0 + panels)] = a (m, k) · Wᵀ (+ bias) for those panels of w.
void nn_packed(int m, const float* a, int lda, const PackedWeights& w, int panel0, int panels,
               const float* bias, float* c, int ldc);

// The same product for a weight w (n, k) that has no packed panels. With `keep` (sized
// for w), each panel is packed into keep's panel q just before it is used, which leaves
// the weight packed. Without, nothing is kept and w is read from memory once: for 64,
// 128, 192 or 256 rows of a, as the transposed product (c[:, panel]ᵀ = W[panel rows] · aᵀ:
// W's elements are the broadcast operand, so it needs no layout; other row counts would
// leave its tiles part empty), for other counts up to 256 each panel packed into this
// thread's buffer just before use; more rows, the range's panels packed into this
// thread's buffer, then nn_packed's loop. Same arithmetic as nn_packed on pack(w), bit for bit.
void nn_packing(int m, const float* a, int lda, const float* w, int n, int k, int ldw, int panel0,
                int panels, const float* bias, float* c, int ldc, PackedWeights* keep = nullptr);

// The same product for a weight left as its file stores it (core/kernels/stored_matrix.h):
// each panel's rows read as stored where they lie in the file's map (or, without one, into
// this thread's buffer; gemm.cpp's with_panel) and laid out by
// StoredMatrix::convert_transposed just before its product (for more than 256 rows of a,
// groups of panels up to 4 MiB first), so neither W's stored bytes nor its f32 values pass
// through memory. The same floats as nn_packed on pack() of W converted to f32.
void nn_stored(int m, const float* a, int lda, const StoredMatrix& w, int panel0, int panels, const float* bias,
               float* c, int ldc);

// c (m, n) = a (m, k) · b (n, k)ᵀ (c += with `accumulate`) for m ≤ kDotRows (asserted):
// each element the dot product of a row of a and a row of b, both contiguous, so b is read
// as it lies (the LM head: one row against the vocabulary), never transposed first; once
// per pair of rows of a.
constexpr int kDotRows = 4;
void nt_dots(int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c, int ldc,
             bool accumulate = false);

// c[:, 64·panel0 : 64·(panel0 + panels)] (+ bias) = a (m, k) · Wᵀ for m ≤ kDotRows
// (asserted), W left as stored: each panel's rows read and converted 16 at a time, row by
// row as they lie, and dotted with a's rows (nt_dots), never laid out: the LM head of a
// model read layer by layer, one row against the vocabulary. The same floats as nt_dots
// on W converted to f32.
void nt_stored(int m, const float* a, int lda, const StoredMatrix& w, int panel0, int panels, const float* bias,
               float* c, int ldc);

// bt (k, n) = b (n, k)ᵀ (the Pipeline's per-head weights, matmul_nt's BLAS-free path).
void transpose(int n, int k, const float* b, int ldb, float* bt, int ldbt);

}  // namespace hs::gemm
