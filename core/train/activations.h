#pragma once
// What the one forward (core/model/model.h run_forward) keeps for training's backward,
// llm.c's ActivationTensors in spirit: every saved activation with its shape, each filled
// from the named intermediate (core/model/taps.h) it is. Shape letters: T tokens of the
// stack, S keys (T for self-attention, the encoder's T_enc for cross-attention), D
// d_model, F d_ff, V vocabulary, H heads, I = H·Dh, Ikv = Hkv·Dh.
#include <vector>

#include "core/model/config.h"
#include "core/model/model.h"
#include "core/model/weights.h"
#include "core/tensor.h"

namespace hs::train {

struct AttentionActivations {
    Matrix x;                   // (T, D)  attn_in / cross_in: what the queries are made from
    Matrix q, k, v;             // (T, I), (S, Ikv), (S, Ikv)  .q, .k, .v (Q and K rotated)
    Matrix qkv;                 // (T, I + 2·Ikv)  .qkv: before qk-norm and rotation (qk-norm only)
    std::vector<Matrix> probs;  // H × (T, S)  softmax(C(Q_h K_gᵀ · scale) + mask), C the soft-cap (if any)
    Matrix concat;              // (T, I)  .concat = [head_1 | … | head_H]
};

struct FeedForwardActivations {
    Matrix x;       // (T, D)  ffn_in
    Matrix pre;     // (T, F)  ffn_pre = x·W1ᵀ + b1
    Matrix gate;    // (T, F)  ffn_gate = x·W_gᵀ + b_g (SwiGLU, GeGLU)
    Matrix hidden;  // (T, F)  ffn_hidden: what linear2 reads
};

struct LayerActivations {
    Matrix norm1_in, norm2_in, norm3_in;  // (T, D)  each norm's input (norm3: decoder layers)
    Matrix attn_out, ffn_out;             // (T, D)  the sandwich norms' inputs (sandwich_norm only)
    AttentionActivations attn;            // self-attention
    AttentionActivations cross;           // cross-attention over the encoder (decoder layers)
    FeedForwardActivations ffn;
};

struct StackActivations {
    std::vector<LayerActivations> layers;  // L
    Matrix norm_in;                        // (T, D)  the final norm's input (empty without one)
    Matrix output;                         // (T, D)  the stack's final output
};

struct Activations {
    StackActivations main;     // the only stack, or the encoder of an encoder–decoder
    StackActivations decoder;  // encoder–decoder only
    Matrix logits;             // (T, V)  the predicting stack's LM head at every position
};

// Runs run_forward(config, weights, input) — the forward Model::forward runs — with a
// recorder on its named intermediates that keeps what the backward reads, the attention
// maps and the logits of every position. Throws what run_forward throws.
Activations record_forward(const ModelConfig& config, const ModelWeights& weights, const ForwardInput& input);

}  // namespace hs::train
