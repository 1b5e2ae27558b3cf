#pragma once
// Next-token loss and its gradient for every parameter of a single-stack model of the
// one runtime (core/model/: ModelConfig + ModelWeights, the playground's options):
//   x0 = E[ids] + positions (sinusoidal, learned, none; rotary inside attention)
//   x_{l+1} = layer_l(x_l)      pre-norm:  x + attn(norm1(x)), then + ffn(norm2(·))
//                               post-norm: norm1(x + attn(x)), then norm2(· + ffn(·))
//   h = final_norm(x_L) when the model has one
//   logits = h·W_headᵀ          (T, V); W_head = lm_head or the tied token embedding
//   loss = 1/(T−f) Σ_{f−1 ≤ t < T−1} −log softmax(logits_t)[ids_{t+1}]
//   (f = first_target: the first position whose token is predicted; 1 = every next token)
// The backward runs the same chain in reverse (norm_grad, attention_grad,
// feed_forward_grad). Gradients are laid out as the weights (ModelWeights).
#include <span>

#include "core/model/config.h"
#include "core/model/weights.h"

namespace hs::train {

struct LossAndGrads {
    double loss = 0.0;   // mean cross-entropy over the predicted tokens (nats)
    Matrix logits;       // (T, V)
    ModelWeights grads;  // d loss / d weights, same shapes (sinusoidal tables have none)
};

// Throws hs::Error for what training does not cover yet (encoder–decoder models, BERT's
// embedding norm and token types, a model without an LM head) and for ids outside the
// vocabulary, fewer than 2 tokens or first_target outside [1, T).
LossAndGrads next_token_loss(const ModelConfig& config, const ModelWeights& weights, std::span<const int> ids,
                             int first_target = 1);

// Zero tensors of the shapes of `w` (absent biases stay absent).
ModelWeights zeros_like(const ModelWeights& w);

}  // namespace hs::train
