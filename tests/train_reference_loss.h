#pragma once
// An independent double-precision implementation of the trainer's loss (core/train/
// model_grad.h), written from the math for the finite-difference gradient check: every
// option the playground offers (LayerNorm / RMSNorm pre or post, sinusoidal / learned /
// rotary positions in both layouts, GQA, the four activations, biases or none, tied or
// separate head, key padding, BERT's token type and embedding norm, Gemma's sandwich
// norms, soft-caps and local rope base) for a single stack, and the encoder–decoder with
// cross-attention.
// Every weight is read in double, and one entry can be moved by `delta` in double, so a
// central difference (L(w + ε) − L(w − ε)) / 2ε with ε = 1e-5 errs by ~1e-10, not by the
// ~1e-4 a float32 loss allows.
#include <cstddef>
#include <vector>

#include "core/model/config.h"
#include "core/model/weights.h"

namespace hs::test {

struct Nudge {
    const float* tensor = nullptr;  // data() of the weight tensor to move (null: none)
    std::size_t index = 0;
    double delta = 0.0;
};

// Mean next-token cross-entropy over `target` (every next token): for a single stack the
// model reads `target` alone; for an encoder–decoder the encoder reads `source`.
// `key_padding`: key positions of the main stack (the source) that no query sees.
double reference_loss(const ModelConfig& c, const ModelWeights& w, const std::vector<int>& source,
                      const std::vector<int>& target, const Nudge& nudge = {},
                      const std::vector<int>& key_padding = {});

}  // namespace hs::test
