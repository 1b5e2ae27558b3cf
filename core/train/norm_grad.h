#pragma once
// LayerNorm and RMSNorm for training: the forward keeps what the backward needs.
//   LayerNorm  x̂ = (x − μ)·r,  r = 1/√(var + eps),  y = x̂ ⊙ γ + β
//   RMSNorm    x̂ = x·r,        r = 1/√(mean(x²) + eps), y = x̂ ⊙ γ
// per row of x (T, D). With g = dy ⊙ γ, the input gradient is
//   LayerNorm  dx = r · (g − mean(g) − x̂ · mean(g ⊙ x̂))
//   RMSNorm    dx = r · (g − x̂ · mean(g ⊙ x̂))
// and dγ = Σ_t dy ⊙ x̂, dβ = Σ_t dy.
#include "core/model/config.h"
#include "core/model/weights.h"
#include "core/tensor.h"

namespace hs::train {

struct NormCache {
    Matrix x_hat;  // (T, D)
    Vector r;      // (T) 1/√(var + eps) or 1/√(mean(x²) + eps)
};

Matrix norm_forward(const Matrix& x, const LayerNormWeights& w, NormKind kind, float eps, NormCache& cache);
// Adds dγ (and dβ) to `grad`; returns dx.
Matrix norm_backward(const Matrix& dy, const LayerNormWeights& w, NormKind kind, const NormCache& cache,
                     LayerNormWeights& grad);

}  // namespace hs::train
