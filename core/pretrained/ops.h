#pragma once
// Element-wise and per-row building blocks of pretrained transformers (issue 4), kept
// apart from the forward pass so tests can check each formula on its own.
// Shapes: T tokens, D width, F d_ff; weights (out, in): y = x·Wᵀ + b.
#include "core/pretrained/transformer.h"
#include "core/tensor.h"

namespace hs {

// RMSNorm per row: y = x / √(mean(x²) + eps) · w           x: (T, D), w: (D)
Matrix rms_norm(const Matrix& x, const Vector& w, float eps);
// The config's norm: LayerNorm (w, b; b may be empty = 0) or RMSNorm (w).
Matrix apply_norm(const Matrix& x, const Vector& w, const Vector& b, NormKind kind, float eps);
// GELU, tanh approximation (GPT-2 "gelu_new"): ½x(1 + tanh(√(2/π)(x + 0.044715x³)))
Matrix gelu_tanh(const Matrix& x);
// SiLU: x·σ(x) = x / (1 + e^(−x))
Matrix silu(const Matrix& x);
// y = x·Wᵀ + b  (b empty: no bias)                         x: (T, in), W: (out, in)
Matrix linear(const Matrix& x, const Matrix& w, const Vector& b);
// Feed-forward block of one layer:                         x: (T, D) -> (T, D)
//   GeluTanh / GeluErf: down(gelu(up(x)))
//   SwiGLU:             down(silu(gate(x)) ⊙ up(x))
Matrix mlp_forward(const Matrix& x, const TransformerLayerWeights& w, MlpKind kind);

}  // namespace hs
