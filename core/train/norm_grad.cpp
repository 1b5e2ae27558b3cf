#include "core/train/norm_grad.h"

#include <cmath>

namespace hs::train {

Matrix norm_forward(const Matrix& x, const LayerNormWeights& w, NormKind kind, float eps, NormCache& cache) {
    const Eigen::Index T = x.rows(), D = x.cols();
    cache.x_hat.resize(T, D);
    cache.r.resize(T);
    for (Eigen::Index t = 0; t < T; ++t) {
        // Statistics in double, as the runtime's norms accumulate them.
        const auto row = x.row(t).cast<double>();
        const double mean = kind == NormKind::LayerNorm ? row.mean() : 0.0;
        const double second = (row.array() - mean).square().mean();  // var, or mean(x²)
        const double r = 1.0 / std::sqrt(second + static_cast<double>(eps));
        cache.r(t) = static_cast<float>(r);
        cache.x_hat.row(t) = ((row.array() - mean) * r).cast<float>().matrix();
    }
    Matrix y = cache.x_hat.array().rowwise() * w.weight.transpose().array();
    if (w.bias.size() > 0) y.array().rowwise() += w.bias.transpose().array();
    return y;
}

Matrix norm_backward(const Matrix& dy, const LayerNormWeights& w, NormKind kind, const NormCache& cache,
                     LayerNormWeights& grad) {
    grad.weight += (dy.array() * cache.x_hat.array()).colwise().sum().transpose().matrix();
    if (grad.bias.size() > 0) grad.bias += dy.colwise().sum().transpose();
    const Matrix g = dy.array().rowwise() * w.weight.transpose().array();
    Matrix dx(dy.rows(), dy.cols());
    for (Eigen::Index t = 0; t < dy.rows(); ++t) {
        const float gx = (g.row(t).array() * cache.x_hat.row(t).array()).mean();
        const float gm = kind == NormKind::LayerNorm ? g.row(t).mean() : 0.0f;
        dx.row(t) = cache.r(t) * (g.row(t).array() - gm - cache.x_hat.row(t).array() * gx);
    }
    return dx;
}

}  // namespace hs::train
