#include "core/kernels/matmul.h"

#include <cassert>

#include "core/kernels/gemm.h"
#include "core/kernels/scratch.h"
#include "core/kernels/simd.h"

namespace hs::kernels {

namespace {

// x, or xᵀ laid out in `scratch`: a row-major (rows, cols) operand with its row stride.
struct Operand {
    const float* data;
    int ld;
};

Operand laid_out(const ConstMatrixView& x, Op op, Scratch& scratch) {
    if (op == Op::Plain) return {x.data(), static_cast<int>(x.outerStride())};
    // xᵀ: (x.cols(), x.rows())
    Eigen::Map<Matrix> t = scratch.get(x.cols(), x.rows());
    gemm::transpose(static_cast<int>(x.rows()), static_cast<int>(x.cols()), x.data(), static_cast<int>(x.outerStride()),
                    t.data(), static_cast<int>(x.rows()));
    return {t.data(), static_cast<int>(x.rows())};
}

}  // namespace

// Which code multiplies, per SIMD level, as measured on the trainer's shapes (T ≈ 40 rows,
// 128 … 512 columns; docs/PERFORMANCE.md, "Training"): with AVX-512 the Highway kernel is
// 6 % faster than OpenBLAS; at AVX2 OpenBLAS's Haswell kernels are 10 % faster than ours,
// so below AVX-512 the product goes to Eigen, and OpenBLAS behind it, when HeadScope links
// OpenBLAS (which picks its own kernels at run time). Without OpenBLAS: always the kernel.
bool hands_products_to_blas() {
#ifdef HEADSCOPE_HAVE_OPENBLAS
    return simd_level() != SimdLevel::AVX512;
#else
    return false;
#endif
}

namespace {

void blas_matmul(const ConstMatrixView& a, Op op_a, const ConstMatrixView& b, Op op_b, MatrixView& c, bool accumulate) {
    const auto product = [&](const auto& x, const auto& y) {
        if (accumulate) c.noalias() += x * y;
        else c.noalias() = x * y;
    };
    if (op_a == Op::Plain && op_b == Op::Plain) product(a, b);
    else if (op_a == Op::Plain) product(a, b.transpose());
    else if (op_b == Op::Plain) product(a.transpose(), b);
    else product(a.transpose(), b.transpose());
}

}  // namespace

void matmul(ConstMatrixView a, Op op_a, ConstMatrixView b, Op op_b, MatrixView c, bool accumulate) {
    const Eigen::Index m = op_a == Op::Plain ? a.rows() : a.cols(), k = op_a == Op::Plain ? a.cols() : a.rows();
    const Eigen::Index n = op_b == Op::Plain ? b.cols() : b.rows();
    assert(k == (op_b == Op::Plain ? b.rows() : b.cols()) && c.rows() == m && c.cols() == n);
    if (m == 0 || n == 0) return;
    if (k == 0) {
        if (!accumulate) c.setZero();
        return;
    }
    const int M = static_cast<int>(m), N = static_cast<int>(n), K = static_cast<int>(k);
    const int ldc = static_cast<int>(c.outerStride());
    if (op_a == Op::Plain && op_b == Op::Transposed && m <= gemm::kDotRows) {
        // A few rows against bᵀ (the LM head's one row against the vocabulary): dot
        // products of rows, b read as it lies (once per pair of rows), at every level.
        gemm::nt_dots(M, N, K, a.data(), static_cast<int>(a.outerStride()), b.data(),
                      static_cast<int>(b.outerStride()), c.data(), ldc, accumulate);
        return;
    }
    if (hands_products_to_blas()) {
        blas_matmul(a, op_a, b, op_b, c, accumulate);
        return;
    }
    thread_local Scratch scratch_a, scratch_b;
    const Operand pa = laid_out(a, op_a, scratch_a), pb = laid_out(b, op_b, scratch_b);
    if (accumulate) gemm::nn_accumulate(M, N, K, pa.data, pa.ld, pb.data, pb.ld, c.data(), ldc);
    else gemm::nn(M, N, K, 1.0f, pa.data, pa.ld, pb.data, pb.ld, nullptr, c.data(), ldc);
}

Matrix matmul(ConstMatrixView a, Op op_a, ConstMatrixView b, Op op_b) {
    Matrix c(op_a == Op::Plain ? a.rows() : a.cols(), op_b == Op::Plain ? b.cols() : b.rows());
    matmul(a, op_a, b, op_b, c);
    return c;
}

}  // namespace hs::kernels
