#pragma once
// Every parameter tensor of a ModelWeights as flat float spans, in one fixed order, so
// that weights, gradients and optimizer moments (all laid out as ModelWeights) line up
// index by index. Empty tensors (absent biases, a sinusoidal model's position table) are
// left out.
#include <cstddef>
#include <vector>

#include "core/model/weights.h"

namespace hs::train {

struct Parameter {
    float* data = nullptr;
    std::size_t size = 0;
    // Weight decay applies to matrices (projections, embeddings, the LM head), not to
    // biases or norm gains (as GPT-2 / nanoGPT train).
    bool decays = false;
};

std::vector<Parameter> parameters_of(ModelWeights& w);

// √(Σ g²) over every parameter (accumulated in double).
double global_norm(ModelWeights& g);

}  // namespace hs::train
