#include "core/train/linear_grad.h"

namespace hs::train {

using kernels::Op;

Matrix linear_forward(kernels::ConstMatrixView x, kernels::ConstMatrixView w, ConstVectorView b) {
    Matrix y = kernels::matmul(x, Op::Plain, w, Op::Transposed);  // (T, out) = x·Wᵀ
    if (b.size() > 0) y.rowwise() += b.transpose();
    return y;
}

Matrix linear_backward(kernels::ConstMatrixView dy, kernels::ConstMatrixView x, kernels::ConstMatrixView w,
                       kernels::MatrixView dw, VectorView db) {
    kernels::matmul(dy, Op::Transposed, x, Op::Plain, dw, /*accumulate=*/true);  // dW += dyᵀ·x
    if (db.size() > 0) db += dy.colwise().sum().transpose();
    return kernels::matmul(dy, Op::Plain, w, Op::Plain);  // dx = dy·W
}

}  // namespace hs::train
