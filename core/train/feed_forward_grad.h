#pragma once
// The position-wise feed-forward for training (core/model/layers.h feed_forward):
//   pre = x·W1ᵀ + b1                       (T, F)
//   hidden = act(pre)                      ReLU, GELU (erf), GELU-tanh
//   hidden = silu(x·Wgᵀ + bg) ⊙ pre        SwiGLU
//   out = hidden·W2ᵀ + b2                  (T, D)
// Backward: dhidden = dout·W2; dpre = dhidden ⊙ act'(pre) (SwiGLU: dhidden ⊙ silu(gate),
// dgate = dhidden ⊙ pre ⊙ silu'(gate)); dx = dpre·W1 (+ dgate·Wg).
#include "core/model/config.h"
#include "core/model/weights.h"
#include "core/tensor.h"

namespace hs::train {

struct FeedForwardCache {
    Matrix x;       // (T, D) input
    Matrix pre;     // (T, F) linear1(x)
    Matrix gate;    // (T, F) gate(x), SwiGLU only
    Matrix hidden;  // (T, F) what linear2 reads
};

Matrix feed_forward_forward(const Matrix& x, const FeedForwardWeights& w, Activation act, FeedForwardCache& cache);
// Adds the weight gradients to `grad`; returns dx.
Matrix feed_forward_backward(const Matrix& dout, const FeedForwardWeights& w, Activation act,
                             const FeedForwardCache& cache, FeedForwardWeights& grad);

// d act(z) / dz, element-wise (ReLU, GELU, GELU-tanh; SiLU for SwiGLU's gate).
Matrix activation_derivative(const Matrix& z, Activation act);

}  // namespace hs::train
