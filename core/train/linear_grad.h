#pragma once
// A linear layer for training, on the kernel layer's GEMM (core/kernels/matmul.h):
//   y (T, out) = x (T, in)·Wᵀ + b            W (out, in) as PyTorch stores it, b (out) or empty
//   backward: dW += dyᵀ·x, db += Σ_t dy_t, dx = dy·W
// The attention projections, the FFN and the LM head all go through these two.
#include <Eigen/Core>

#include "core/kernels/matmul.h"
#include "core/tensor.h"

namespace hs::train {

using ConstVectorView = Eigen::Ref<const Vector>;
using VectorView = Eigen::Ref<Vector>;

Matrix linear_forward(kernels::ConstMatrixView x, kernels::ConstMatrixView w, ConstVectorView b);
// Adds dW to `dw` and (when b has one) db to `db`; returns dx.
Matrix linear_backward(kernels::ConstMatrixView dy, kernels::ConstMatrixView x, kernels::ConstMatrixView w,
                       kernels::MatrixView dw, VectorView db);

}  // namespace hs::train
