#pragma once
// General matrix products on Eigen matrices, single-threaded, by the fastest code measured
// at the SIMD level in use (matmul.cpp: the kernel layer's GEMM, gemm.h, with AVX-512;
// OpenBLAS through Eigen below it when linked; callers parallelise, as the trainer does over its
// example groups; the forward's linear layers use parallel.h's matmul_nt, which splits
// one product over the pool). Either operand may be read transposed; a transposed operand is laid out
// once in this thread's scratch, so c = a·Wᵀ costs one pass over W before the product
// (except a few rows of a against Wᵀ, gemm::kDotRows: dot products of rows, W as it lies).
//   c (m, n) = op(a) (m, k) · op(b) (k, n),   op(x) = x or xᵀ
// or, with `accumulate`, c += op(a)·op(b). Views may be column blocks of a wider
// row-major matrix (Q_h inside [Q | K | V]).
#include <Eigen/Core>

#include "core/tensor.h"

namespace hs::kernels {

using ConstMatrixView = Eigen::Ref<const Matrix, 0, Eigen::OuterStride<>>;
using MatrixView = Eigen::Ref<Matrix, 0, Eigen::OuterStride<>>;

enum class Op { Plain, Transposed };

// c must already have the product's shape (m, n); throws nothing (shapes are the caller's).
void matmul(ConstMatrixView a, Op op_a, ConstMatrixView b, Op op_b, MatrixView c, bool accumulate = false);

// The product as a new matrix.
Matrix matmul(ConstMatrixView a, Op op_a, ConstMatrixView b, Op op_b);

// Whether matmul hands products of more than gemm::kDotRows rows to BLAS at the SIMD level
// in use (below AVX-512, when HeadScope links OpenBLAS); otherwise it runs gemm::nn on a
// transposed operand laid out first.
bool hands_products_to_blas();

}  // namespace hs::kernels
