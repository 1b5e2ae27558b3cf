#pragma once
// Building blocks around attention: LayerNorm / RMSNorm, feed-forward (ReLU, GELU,
// GELU-tanh, SwiGLU), positional encodings, and the encoder / decoder layers of
// nn.TransformerEncoderLayer / DecoderLayer, which are also the layers of GPT-2, BERT
// and Llama (post-norm: x = norm(x + sublayer(x)); pre-norm: x = x + sublayer(norm(x))).
#include "core/model/attention.h"
#include "core/model/config.h"
#include "core/model/recorder.h"
#include "core/model/trace.h"
#include "core/model/weights.h"

namespace hs {

// y = (x − mean) / √(var + eps) · γ + β, per row; var is the biased variance.
// An empty w.bias means no β.
Matrix layer_norm(const Matrix& x, const LayerNormWeights& w, float eps);
// RMSNorm per row: y = x / √(mean(x²) + eps) · γ.
Matrix rms_norm(const Matrix& x, const LayerNormWeights& w, float eps);
// The config's norm: layer_norm or rms_norm.
Matrix apply_norm(const Matrix& x, const LayerNormWeights& w, NormKind kind, float eps);
// Element-wise: ReLU = max(0, x); GELU with erf (PyTorch's default "gelu"); GELU-tanh
// (GPT-2's "gelu_new"; also GeGLU's gate); for SwiGLU the gate's SiLU x·σ(x).
Matrix activate(const Matrix& x, Activation act);
// (T, D) -> (T, d_ff) -> (T, D):
//   linear2(act(linear1(x)))                     ReLU, GELU, GELU-tanh
//   linear2(silu(gate(x)) ⊙ linear1(x))          SwiGLU (GeGLU: gelu_tanh for silu)
// `recorder`, when set, sees the named values (T, d_ff) of taps.h at `at`'s stack and
// layer: "ffn_pre" = x·W1ᵀ + b1, "ffn_gate" = x·W_gᵀ + b_g before its SiLU or GELU (gated only),
// "ffn_hidden" after the activation.
Matrix feed_forward(const Matrix& x, const FeedForwardWeights& w, Activation act,
                    Recorder* recorder = nullptr, const TapPoint& at = {});
// Sinusoidal table (T, D): PE[p, 2i] = sin(p / 10000^(2i/D)), PE[p, 2i+1] = cos(same).
Matrix sinusoidal_positions(int T, int D);

// What one layer call needs besides its weights and input.
struct LayerContext {
    // Sees every named value of the layer (recorder.h), at (stack, layer).
    Recorder* recorder = nullptr;
    const char* stack = "";  // "", "encoder." or "decoder."
    int layer = 0;
    std::vector<int> self_ablated, cross_ablated;  // heads replaced before W_o (ablation)
    AblationMode ablate_mode = AblationMode::Zero;
    // The self-attention's rotation by position (rotary positions); null otherwise.
    const Rotary* self_rope = nullptr;
    // Recomputing maps only (recompute_layer_maps): stop after the attention blocks; the
    // feed-forward is skipped, so the returned matrix is not the layer's output.
    bool maps_only = false;
};

// One encoder layer; returns (T, D).
Matrix encoder_layer(const EncoderLayerWeights& w, const ModelConfig& config, const Matrix& x,
                     const AttentionMask& mask, const LayerContext& context);

// One decoder layer: masked self-attention, cross-attention over `memory` (S, D), FFN.
Matrix decoder_layer(const DecoderLayerWeights& w, const ModelConfig& config, const Matrix& x,
                     const Matrix& memory, const AttentionMask& self_mask,
                     const AttentionMask& cross_mask, const LayerContext& context);

}  // namespace hs
