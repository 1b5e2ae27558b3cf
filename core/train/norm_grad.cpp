#include "core/train/norm_grad.h"

#include <cmath>

namespace hs::train {

Matrix norm_backward(const Matrix& dy, const LayerNormWeights& w, const ModelConfig& c, const Matrix& x,
                     LayerNormWeights& grad) {
    const bool layer_norm = c.norm_kind == NormKind::LayerNorm;
    const Eigen::Index T = x.rows(), D = x.cols();
    // x̂: (T, D) and r: (T), per row (vectorised float sums: the backward needs the
    // forward's x̂ to float precision, not its rounding)
    Matrix x_hat(T, D);
    Vector r(T);
    for (Eigen::Index t = 0; t < T; ++t) {
        const auto row = x.row(t).array();
        const float mean = layer_norm ? row.mean() : 0.0f;
        const float second = (row - mean).square().mean();  // var, or mean(x²)
        r(t) = 1.0f / std::sqrt(second + c.norm_eps);
        x_hat.row(t) = ((row - mean) * r(t)).matrix();
    }
    grad.weight += (dy.array() * x_hat.array()).colwise().sum().transpose().matrix();
    if (grad.bias.size() > 0) grad.bias += dy.colwise().sum().transpose();
    const Matrix g = dy.array().rowwise() * w.weight.transpose().array();
    Matrix dx(T, D);
    for (Eigen::Index t = 0; t < T; ++t) {
        const float gx = (g.row(t).array() * x_hat.row(t).array()).mean();
        const float gm = layer_norm ? g.row(t).mean() : 0.0f;
        dx.row(t) = r(t) * (g.row(t).array() - gm - x_hat.row(t).array() * gx);
    }
    return dx;
}

}  // namespace hs::train
