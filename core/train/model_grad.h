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
// An encoder–decoder (nn.Transformer) reads a source S and a target T:
//   M = encoder.norm(encoder layers(E[S] + positions))       every source token sees all
//   y_{l+1} = decoder layer_l(y_l, M)   self-attention (causal per config), then
//                                       cross-attention over M, then the FFN
//   logits = decoder.norm(y_L)·W_headᵀ, and the same next-token loss over T.
// The forward is the runtime's (core/model/model.h run_forward), recorded by
// record_forward (activations.h); the backward runs the same chain in reverse (norm_grad, attention_grad,
// feed_forward_grad); dM sums over every decoder layer's cross-attention. Gradients are
// laid out as the weights (ModelWeights).
#include <span>
#include <vector>

#include "core/model/config.h"
#include "core/model/weights.h"
#include "core/train/tasks.h"

namespace hs::train {

struct LossAndGrads {
    double loss = 0.0;   // mean cross-entropy over the predicted tokens (nats)
    Matrix logits;       // (T, V)
    ModelWeights grads;  // d loss / d weights, same shapes (sinusoidal tables have none)
};

// A single stack (decoder, or an encoder trained as a language model). `key_padding`:
// key positions no query sees (ForwardInput::key_padding). Throws hs::Error for what
// training does not cover (an encoder–decoder model: seq2seq_loss; a model without an LM
// head) and for ids outside the vocabulary, more than max_len or fewer than 2 tokens, or
// first_target outside [1, T).
LossAndGrads next_token_loss(const ModelConfig& config, const ModelWeights& weights, std::span<const int> ids,
                             int first_target = 1, const std::vector<int>& key_padding = {});

// An encoder–decoder model: the encoder reads `source`, the decoder `target` (its first
// token starts the answer), the loss is next_token_loss's over the decoder. logits: (T, V).
// `key_padding`: source positions no query sees.
LossAndGrads seq2seq_loss(const ModelConfig& config, const ModelWeights& weights, std::span<const int> source,
                          std::span<const int> target, int first_target = 1,
                          const std::vector<int>& key_padding = {});

// A task's example as the model reads it. A single stack reads the whole sequence; an
// encoder–decoder reads BOS x SEP as its source and decodes SEP y (first_target 1), so
// it needs a task with an answer (copy, reverse, sort); hs::Error otherwise.
struct ExampleSplit {
    std::vector<int> source;  // empty for a single stack
    std::vector<int> target;
    int first_target = 1;
};
ExampleSplit split_example(const ModelConfig& config, const Example& example);
// next_token_loss or seq2seq_loss of split_example(example).
LossAndGrads example_loss(const ModelConfig& config, const ModelWeights& weights, const Example& example);

// Zero tensors of the shapes of `w` (absent biases stay absent).
ModelWeights zeros_like(const ModelWeights& w);

}  // namespace hs::train
