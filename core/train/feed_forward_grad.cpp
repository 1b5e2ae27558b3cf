#include "core/train/feed_forward_grad.h"

#include <cmath>

#include "core/model/layers.h"
#include "core/train/linear_grad.h"

namespace hs::train {

namespace {

float sigmoid(float z) { return 1.0f / (1.0f + std::exp(-z)); }

}  // namespace

Matrix activation_derivative(const Matrix& z, Activation act) {
    constexpr float kInvSqrt2 = 0.70710678118654752f;
    constexpr float kInvSqrt2Pi = 0.39894228040143268f;  // φ(0)
    constexpr float kSqrt2OverPi = 0.79788456080286536f;
    return z.unaryExpr([act](float v) -> float {
        switch (act) {
            case Activation::ReLU:
                return v > 0.0f ? 1.0f : 0.0f;
            case Activation::GELU:  // Φ(v) + v·φ(v)
                return 0.5f * (1.0f + std::erf(v * kInvSqrt2)) + v * kInvSqrt2Pi * std::exp(-0.5f * v * v);
            case Activation::GELUTanh:  // u = √(2/π)(v + 0.044715 v³)
            case Activation::GeGLU: {   // its gate is GELU-tanh
                const float u = kSqrt2OverPi * (v + 0.044715f * v * v * v);
                const float th = std::tanh(u);
                return 0.5f * (1.0f + th) + 0.5f * v * (1.0f - th * th) * kSqrt2OverPi * (1.0f + 3.0f * 0.044715f * v * v);
            }
            case Activation::SwiGLU: {  // silu'(v) = σ(v)(1 + v(1 − σ(v)))
                const float s = sigmoid(v);
                return s * (1.0f + v * (1.0f - s));
            }
        }
        return 0.0f;
    });
}

Matrix feed_forward_backward(const Matrix& dout, const FeedForwardWeights& w, Activation act,
                             const FeedForwardActivations& saved, FeedForwardWeights& grad) {
    const Matrix dhidden = linear_backward(dout, saved.hidden, w.linear2_weight, grad.linear2_weight, grad.linear2_bias);
    if (!is_gated(act)) {
        const Matrix dpre = dhidden.cwiseProduct(activation_derivative(saved.pre, act));
        return linear_backward(dpre, saved.x, w.linear1_weight, grad.linear1_weight, grad.linear1_bias);
    }
    const Matrix dpre = dhidden.cwiseProduct(activate(saved.gate, act));
    const Matrix dgate = dhidden.cwiseProduct(saved.pre).cwiseProduct(activation_derivative(saved.gate, act));
    Matrix dx = linear_backward(dpre, saved.x, w.linear1_weight, grad.linear1_weight, grad.linear1_bias);
    dx += linear_backward(dgate, saved.x, w.gate_weight, grad.gate_weight, grad.gate_bias);
    return dx;
}

}  // namespace hs::train
