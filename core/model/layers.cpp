#include "core/model/layers.h"

#include <cmath>
#include <string>
#include <vector>

#include "core/kernels/activations.h"
#include "core/kernels/norms.h"
#include "core/kernels/parallel.h"
#include "core/kernels/scratch.h"

namespace hs {

Matrix layer_norm(const Matrix& x, const LayerNormWeights& w, float eps) {
    // per row: y = (x − μ) / √(σ² + eps) · γ + β  (core/kernels/norms.h)
    Matrix y(x.rows(), x.cols());
    for (Eigen::Index i = 0; i < x.rows(); ++i)
        kernels::layer_norm_row(x.row(i).data(), y.row(i).data(), w.weight.data(),
                                w.bias.size() ? w.bias.data() : nullptr, int(x.cols()), eps);
    return y;
}

Matrix rms_norm(const Matrix& x, const LayerNormWeights& w, float eps) {
    // per row: y = x / √(mean(x²) + eps) · γ  (core/kernels/norms.h)
    Matrix y(x.rows(), x.cols());
    for (Eigen::Index i = 0; i < x.rows(); ++i)
        kernels::rms_norm_row(x.row(i).data(), y.row(i).data(), w.weight.data(), int(x.cols()), eps);
    return y;
}

Matrix apply_norm(const Matrix& x, const LayerNormWeights& w, NormKind kind, float eps) {
    return kind == NormKind::RMSNorm ? rms_norm(x, w, eps) : layer_norm(x, w, eps);
}

namespace {

// In place over a contiguous matrix (core/kernels/activations.h): GELU(x) = ½ x (1 +
// erf(x / √2)), GELU-tanh (also GeGLU's gate), SiLU(x) = x·σ(x) (SwiGLU's gate), or
// ReLU(x) = max(0, x).
// Large blocks (the FFN's hidden layer) are split into one contiguous part per thread.
template <typename Block>
void activate_in_place(Block&& x, Activation act) {
    if (act == Activation::ReLU) {
        x = x.cwiseMax(0.0f);
        return;
    }
    const auto kernel = act == Activation::GELU                                     ? kernels::gelu_erf
                        : act == Activation::GELUTanh || act == Activation::GeGLU ? kernels::gelu_tanh
                                                                                    : kernels::silu;
    const long n = static_cast<long>(x.size());
    const int parts = n < (1 << 16) ? 1 : thread_count();
    parallel_for(parts, [&](int p) {
        const long begin = n * p / parts, end = n * (p + 1) / parts;
        kernel(x.data() + begin, end - begin);
    });
}

const Vector* bias_or_null(const Vector& b) { return b.size() ? &b : nullptr; }

}  // namespace

Matrix activate(const Matrix& x, Activation act) {
    Matrix y = x;
    activate_in_place(y, act);
    return y;
}

Matrix feed_forward(const Matrix& x, const FeedForwardWeights& w, Activation act, Recorder* recorder,
                    const TapPoint& at) {
    const auto record = [&](const char* name, const Eigen::Ref<const Matrix>& value) {
        if (recorder) recorder->record(TapPoint{at.stack, at.layer, name}, value);
    };
    // pre: (T, d_ff) = x · W1ᵀ + b1; hidden = act(pre)
    //   SwiGLU: hidden = silu(x · W_gateᵀ + b_g) ⊙ (x · W1ᵀ + b1); GeGLU: gelu_tanh for silu
    // out: (T, D) = hidden · W2ᵀ + b2
    // hidden (and the gate) live in per-thread scratch reused across layers and calls.
    thread_local Scratch hidden_buf, gate_buf;
    const Eigen::Index T = x.rows(), F = w.d_ff();
    record("ffn_in", x);
    Eigen::Map<Matrix> hidden = hidden_buf.get(T, F);
    linear(x, w.linear1_weight, w.linear1_stored, bias_or_null(w.linear1_bias), hidden);
    record("ffn_pre", hidden);
    if (is_gated(act)) {
        Eigen::Map<Matrix> gate = gate_buf.get(T, F);
        linear(x, w.gate_weight, w.gate_stored, bias_or_null(w.gate_bias), gate);
        record("ffn_gate", gate);
        activate_in_place(gate, act);
        hidden.array() *= gate.array();
    } else {
        activate_in_place(hidden, act);
    }
    record("ffn_hidden", hidden);
    Matrix out(T, w.d_model());
    linear(hidden, w.linear2_weight, w.linear2_stored, bias_or_null(w.linear2_bias), out);
    record("ffn_out", out);
    return out;
}

Matrix sinusoidal_positions(int T, int D) {
    // PE[p, 2i] = sin(p / 10000^(2i/D)), PE[p, 2i+1] = cos(p / 10000^(2i/D)); computed in double.
    // The D/2 denominators 10000^(2i/D) once, not per position.
    std::vector<double> denominator(static_cast<std::size_t>(D));
    for (int c = 0; c < D; ++c) denominator[c] = std::pow(10000.0, static_cast<double>(c - c % 2) / D);
    Matrix pe(T, D);
    for (int p = 0; p < T; ++p)
        for (int c = 0; c < D; ++c) {
            const double angle = p / denominator[c];
            pe(p, c) = static_cast<float>(c % 2 == 0 ? std::sin(angle) : std::cos(angle));
        }
    return pe;
}

namespace {

// One attention sub-layer (self-attention when memory is null) with the block's ablated
// heads and, for self-attention, the rotation. The head counts are the config's, not w's:
// Model::with_heads shares weights. Its named values go to the layer's recorder under the
// block's name ("attn" or "cross").
Matrix attend(const AttentionWeights& w, const ModelConfig& c, const Matrix& q_in, const Matrix* memory,
              const AttentionMask& mask, const LayerContext& context) {
    AttentionOptions options;
    options.split = HeadSplit{c.heads, c.kv_head_count(), memory ? nullptr : context.self_rope};
    options.mask = mask;
    options.qk_norm_eps = c.norm_eps;
    options.score_scale = c.score_scale();
    options.softcap = c.attn_softcap;
    options.ablated = memory ? context.cross_ablated : context.self_ablated;
    options.ablate_mode = context.ablate_mode;
    options.recorder = context.recorder;
    options.at = TapPoint{context.stack, context.layer, memory ? "cross" : "attn"};
    return multi_head_attention(w, q_in, memory ? *memory : q_in, options);
}

// The feed-forward sub-layer; its values go to the layer's recorder.
Matrix ffn(const FeedForwardWeights& w, const ModelConfig& c, const Matrix& x, const LayerContext& context) {
    return feed_forward(x, w, c.activation, context.recorder, TapPoint{context.stack, context.layer, {}});
}

// The layer's norm `which` ("norm1", "norm2", "norm3") of x, its input recorded as
// "<which>_in" (the backward recomputes the norm's statistics from it).
Matrix norm(const LayerNormWeights& w, const ModelConfig& c, const char* which, const Matrix& x,
            const LayerContext& context) {
    if (context.recorder) context.recorder->record(TapPoint{context.stack, context.layer, std::string(which) + "_in"}, x);
    return apply_norm(x, w, c.norm_kind, c.norm_eps);
}

// The layer's output, recorded as "out".
Matrix layer_output(Matrix out, const LayerContext& context) {
    if (context.recorder) context.recorder->record(TapPoint{context.stack, context.layer, "out"}, out);
    return out;
}

}  // namespace

Matrix encoder_layer(const EncoderLayerWeights& w, const ModelConfig& c, const Matrix& x,
                     const AttentionMask& mask, const LayerContext& context) {
    const auto self_attention = [&](const Matrix& in) { return attend(w.self_attn, c, in, nullptr, mask, context); };
    if (c.attention_only) return layer_output(self_attention(x), context);  // x = SA(x)
    if (c.norm == NormPlacement::PostLN) {
        // x = norm1(x + SA(x)); x = norm2(x + FF(x))
        const Matrix h = norm(w.norm1, c, "norm1", x + self_attention(x), context);
        if (context.maps_only) return h;
        return layer_output(norm(w.norm2, c, "norm2", h + ffn(w.ffn, c, h, context), context), context);
    }
    if (c.parallel_block) {
        // GPT-NeoX: x = x + SA(norm1(x)) + FF(norm2(x)), both from the layer's input
        const Matrix h = x + self_attention(norm(w.norm1, c, "norm1", x, context));
        if (context.maps_only) return h;
        return layer_output(h + ffn(w.ffn, c, norm(w.norm2, c, "norm2", x, context), context), context);
    }
    if (c.sandwich_norm) {
        // Gemma 2/3: x = x + post_attn(SA(norm1(x))); x = x + post_ffn(FF(norm2(x))), the
        // post norms reading attn_out and ffn_out
        const Matrix h =
            x + apply_norm(self_attention(norm(w.norm1, c, "norm1", x, context)), *w.post_attn_norm, c.norm_kind, c.norm_eps);
        if (context.maps_only) return h;
        const Matrix f = ffn(w.ffn, c, norm(w.norm2, c, "norm2", h, context), context);
        return layer_output(h + apply_norm(f, *w.post_ffn_norm, c.norm_kind, c.norm_eps), context);
    }
    // pre-LN: x = x + SA(norm1(x)); x = x + FF(norm2(x))
    const Matrix h = x + self_attention(norm(w.norm1, c, "norm1", x, context));
    if (context.maps_only) return h;
    return layer_output(h + ffn(w.ffn, c, norm(w.norm2, c, "norm2", h, context), context), context);
}

Matrix decoder_layer(const DecoderLayerWeights& w, const ModelConfig& c, const Matrix& x,
                     const Matrix& memory, const AttentionMask& self_mask,
                     const AttentionMask& cross_mask, const LayerContext& context) {
    const auto self_attention = [&](const Matrix& in) { return attend(w.self_attn, c, in, nullptr, self_mask, context); };
    const auto cross_attention = [&](const Matrix& in) {
        return attend(w.cross_attn, c, in, &memory, cross_mask, context);
    };
    if (c.norm == NormPlacement::PostLN) {
        // x = norm1(x + SA(x)); x = norm2(x + CA(x, mem)); x = norm3(x + FF(x))
        Matrix h = norm(w.norm1, c, "norm1", x + self_attention(x), context);
        h = norm(w.norm2, c, "norm2", h + cross_attention(h), context);
        if (context.maps_only) return h;
        return layer_output(norm(w.norm3, c, "norm3", h + ffn(w.ffn, c, h, context), context), context);
    }
    // pre-LN: x = x + SA(norm1(x)); x = x + CA(norm2(x), mem); x = x + FF(norm3(x))
    Matrix h = x + self_attention(norm(w.norm1, c, "norm1", x, context));
    h += cross_attention(norm(w.norm2, c, "norm2", h, context));
    if (context.maps_only) return h;
    return layer_output(h + ffn(w.ffn, c, norm(w.norm3, c, "norm3", h, context), context), context);
}

}  // namespace hs
