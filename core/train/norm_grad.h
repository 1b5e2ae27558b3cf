#pragma once
// The backward of LayerNorm and RMSNorm (the forward is the runtime's apply_norm):
//   LayerNorm  x̂ = (x − μ)·r,  r = 1/√(var + eps),  y = x̂ ⊙ γ + β
//   RMSNorm    x̂ = x·r,        r = 1/√(mean(x²) + eps), y = x̂ ⊙ γ
// per row of x (T, D). With g = dy ⊙ γ, the input gradient is
//   LayerNorm  dx = r · (g − mean(g) − x̂ · mean(g ⊙ x̂))
//   RMSNorm    dx = r · (g − x̂ · mean(g ⊙ x̂))
// and dγ = Σ_t dy ⊙ x̂, dβ = Σ_t dy. x̂ and r are recomputed from the norm's input x (the
// forward's "normN_in" tap).
#include "core/model/config.h"
#include "core/model/weights.h"
#include "core/tensor.h"

namespace hs::train {

// Adds dγ (and dβ) to `grad`; returns dx. x: the norm's input (T, D).
Matrix norm_backward(const Matrix& dy, const LayerNormWeights& w, const ModelConfig& config, const Matrix& x,
                     LayerNormWeights& grad);

}  // namespace hs::train
