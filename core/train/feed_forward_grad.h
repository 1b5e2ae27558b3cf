#pragma once
// The backward of the position-wise feed-forward (the forward is core/model/layers.h
// feed_forward; its taps fill FeedForwardActivations):
//   pre = x·W1ᵀ + b1                       (T, F)
//   hidden = act(pre)                      ReLU, GELU (erf), GELU-tanh
//   hidden = silu(x·Wgᵀ + bg) ⊙ pre        SwiGLU (GeGLU: gelu_tanh for silu)
//   out = hidden·W2ᵀ + b2                  (T, D)
// Backward: dhidden = dout·W2; dpre = dhidden ⊙ act'(pre) (SwiGLU: dhidden ⊙ silu(gate),
// dgate = dhidden ⊙ pre ⊙ silu'(gate)); dx = dpre·W1 (+ dgate·Wg).
#include "core/model/config.h"
#include "core/model/weights.h"
#include "core/tensor.h"
#include "core/train/activations.h"

namespace hs::train {

// Adds the weight gradients to `grad`; returns dx.
Matrix feed_forward_backward(const Matrix& dout, const FeedForwardWeights& w, Activation act,
                             const FeedForwardActivations& saved, FeedForwardWeights& grad);

// d act(z) / dz, element-wise (ReLU, GELU, GELU-tanh and GeGLU's gate; SiLU for SwiGLU's gate).
Matrix activation_derivative(const Matrix& z, Activation act);

}  // namespace hs::train
