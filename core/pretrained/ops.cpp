#include "core/pretrained/ops.h"

#include <cmath>

#include "core/layers.h"
#include "core/kernels/activations.h"
#include "core/kernels/norms.h"
#include "core/kernels/parallel.h"

namespace hs {

Matrix rms_norm(const Matrix& x, const Vector& w, float eps) {
    // inv_rms: (T) = 1 / √(mean_j x_ij² + eps); y = (x ⊙ inv_rms) ⊙ w
    Matrix y(x.rows(), x.cols());
    for (Eigen::Index i = 0; i < x.rows(); ++i)
        kernels::rms_norm_row(x.row(i).data(), y.row(i).data(), w.data(), int(x.cols()), eps);
    return y;
}

Matrix apply_norm(const Matrix& x, const Vector& w, const Vector& b, NormKind kind, float eps) {
    if (kind == NormKind::RMSNorm) return rms_norm(x, w, eps);
    // per row: y = (x − μ) / √(σ² + eps) · γ (+ β when the family has a bias)
    Matrix y(x.rows(), x.cols());
    for (Eigen::Index i = 0; i < x.rows(); ++i)
        kernels::layer_norm_row(x.row(i).data(), y.row(i).data(), w.data(), b.size() ? b.data() : nullptr,
                                int(x.cols()), eps);
    return y;
}

Matrix gelu_tanh(const Matrix& x) {
    // gelu(v) = ½·v·(1 + tanh(√(2/π)·(v + 0.044715·v³))) (core/kernels/activations.h)
    Matrix y = x;
    kernels::gelu_tanh(y.data(), static_cast<long>(y.size()));
    return y;
}

Matrix silu(const Matrix& x) {
    // silu(v) = v / (1 + e^(−v)) (core/kernels/activations.h)
    Matrix y = x;
    kernels::silu(y.data(), static_cast<long>(y.size()));
    return y;
}

Matrix linear(const Matrix& x, const Matrix& w, const Vector& b) {
    // y: (T, out) = x · Wᵀ + b, column blocks spread over the thread pool
    Matrix y(x.rows(), w.rows());
    matmul_nt(x, w, b.size() ? &b : nullptr, y);
    return y;
}

Matrix mlp_forward(const Matrix& x, const TransformerLayerWeights& w, MlpKind kind) {
    if (kind == MlpKind::SwiGLU) {
        // hidden: (T, F) = silu(x·W_gateᵀ) ⊙ (x·W_upᵀ); out: (T, D) = hidden·W_downᵀ
        Matrix hidden = silu(linear(x, w.w_gate, Vector()));
        hidden.array() *= linear(x, w.w_up, w.b_up).array();
        return linear(hidden, w.w_down, w.b_down);
    }
    // hidden: (T, F) = gelu(x·W_upᵀ + b_up); out: (T, D) = hidden·W_downᵀ + b_down
    Matrix hidden = linear(x, w.w_up, w.b_up);
    hidden = kind == MlpKind::GeluTanh ? gelu_tanh(hidden) : activate(hidden, Activation::GELU);
    return linear(hidden, w.w_down, w.b_down);
}

}  // namespace hs
