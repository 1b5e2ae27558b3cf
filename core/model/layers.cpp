#include "core/model/layers.h"

#include <cmath>
#include <initializer_list>
#include <string>
#include <string_view>
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
// erf(x / √2)), GELU-tanh, SiLU(x) = x·σ(x) (SwiGLU's gate), or ReLU(x) = max(0, x).
// Large blocks (the FFN's hidden layer) are split into one contiguous part per thread.
template <typename Block>
void activate_in_place(Block&& x, Activation act) {
    if (act == Activation::ReLU) {
        x = x.cwiseMax(0.0f);
        return;
    }
    const auto kernel = act == Activation::GELU       ? kernels::gelu_erf
                        : act == Activation::GELUTanh ? kernels::gelu_tanh
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

Matrix feed_forward(const Matrix& x, const FeedForwardWeights& w, Activation act,
                    const FeedForwardTap& tap) {
    // pre: (T, d_ff) = x · W1ᵀ + b1; hidden = act(pre)
    //   SwiGLU: hidden = silu(x · W_gateᵀ + b_g) ⊙ (x · W1ᵀ + b1)
    // out: (T, D) = hidden · W2ᵀ + b2
    // hidden (and the gate) live in per-thread scratch reused across layers and calls.
    thread_local Scratch hidden_buf, gate_buf;
    const Eigen::Index T = x.rows(), F = w.d_ff();
    Eigen::Map<Matrix> hidden = hidden_buf.get(T, F);
    matmul_nt(x, w.linear1_weight, bias_or_null(w.linear1_bias), hidden);
    if (tap) tap("ffn_pre", hidden);
    if (act == Activation::SwiGLU) {
        Eigen::Map<Matrix> gate = gate_buf.get(T, F);
        matmul_nt(x, w.gate_weight, bias_or_null(w.gate_bias), gate);
        if (tap) tap("ffn_gate", gate);
        activate_in_place(gate, act);
        hidden.array() *= gate.array();
    } else {
        activate_in_place(hidden, act);
    }
    if (tap) tap("ffn_hidden", hidden);
    Matrix out(T, w.d_model());
    matmul_nt(hidden, w.linear2_weight, bias_or_null(w.linear2_bias), out);
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

// The layer's named intermediate `what` (core/model/taps.h) to capture.tap, if any.
// Its name is tap_prefix + the parts, joined only when someone listens.
void emit(const LayerCapture& capture, std::initializer_list<std::string_view> parts,
          const Eigen::Ref<const Matrix>& value) {
    if (!capture.tap) return;
    std::string name = capture.tap_prefix;
    for (std::string_view p : parts) name += p;
    (*capture.tap)(name, value);
}

// Runs one attention sub-layer (self-attention when memory is null) and records its
// head maps; the block's ablated heads and the self-attention's rotation come from
// `capture`. The head counts are the config's, not w's: Model::with_heads shares weights.
// Taps: "<block>_in", "<block>.q/.k/.v/.concat", "<block>_out" (block "attn" or "cross").
Matrix attend(const AttentionWeights& w, const ModelConfig& c, const Matrix& q_in,
              const Matrix* memory, const AttentionMask& mask, const LayerCapture& capture,
              AttentionSteps* steps, HeadMaps& maps) {
    const char* block = memory ? "cross" : "attn";
    emit(capture, {block, "_in"}, q_in);
    const AttentionTap tap = [&](const char* name, const Eigen::Ref<const Matrix>& value) {
        emit(capture, {block, ".", name}, value);
    };
    AttentionOptions options;
    options.split = HeadSplit{c.heads, c.kv_head_count(), memory ? nullptr : capture.self_rope};
    options.mask = mask;
    options.weights = capture.weights;
    options.scores = capture.scores;
    options.steps = steps;
    options.ablated = memory ? capture.cross_ablated : capture.self_ablated;
    options.ablate_mode = capture.ablate_mode;
    options.tap = capture.tap ? &tap : nullptr;
    AttentionResult r = multi_head_attention(w, q_in, memory ? *memory : q_in, options);
    maps.weights = std::move(r.weights);
    maps.scores = std::move(r.scores);
    emit(capture, {block, "_out"}, r.output);
    return std::move(r.output);
}

// The feed-forward sub-layer with its taps "ffn_in", "ffn_pre", "ffn_gate" (SwiGLU),
// "ffn_hidden", "ffn_out".
Matrix ffn(const FeedForwardWeights& w, const ModelConfig& c, const Matrix& x, const LayerCapture& capture) {
    emit(capture, {"ffn_in"}, x);
    FeedForwardTap tap;
    if (capture.tap) tap = [&](const char* name, const Eigen::Ref<const Matrix>& value) { emit(capture, {name}, value); };
    Matrix out = feed_forward(x, w, c.activation, tap);
    emit(capture, {"ffn_out"}, out);
    return out;
}

// The layer's norm `which` ("norm1", "norm2", "norm3") of x, its input tapped as
// "<which>_in" (the backward recomputes the norm's statistics from it).
Matrix norm(const LayerNormWeights& w, const ModelConfig& c, const char* which, const Matrix& x,
            const LayerCapture& capture) {
    emit(capture, {which, "_in"}, x);
    return apply_norm(x, w, c.norm_kind, c.norm_eps);
}

// The layer's output, tapped as "out".
Matrix layer_output(Matrix out, const LayerCapture& capture) {
    emit(capture, {"out"}, out);
    return out;
}

}  // namespace

Matrix encoder_layer(const EncoderLayerWeights& w, const ModelConfig& c, const Matrix& x,
                     const AttentionMask& mask, const LayerCapture& capture,
                     LayerTrace& layer_trace) {
    const auto self_attention = [&](const Matrix& in) {
        return attend(w.self_attn, c, in, nullptr, mask, capture, capture.self_steps, layer_trace.self_attn);
    };
    if (c.attention_only) return layer_output(self_attention(x), capture);  // x = SA(x)
    if (c.norm == NormPlacement::PostLN) {
        // x = norm1(x + SA(x)); x = norm2(x + FF(x))
        const Matrix h = norm(w.norm1, c, "norm1", x + self_attention(x), capture);
        if (capture.maps_only) return h;
        return layer_output(norm(w.norm2, c, "norm2", h + ffn(w.ffn, c, h, capture), capture), capture);
    }
    // pre-LN: x = x + SA(norm1(x)); x = x + FF(norm2(x))
    const Matrix h = x + self_attention(norm(w.norm1, c, "norm1", x, capture));
    if (capture.maps_only) return h;
    return layer_output(h + ffn(w.ffn, c, norm(w.norm2, c, "norm2", h, capture), capture), capture);
}

Matrix decoder_layer(const DecoderLayerWeights& w, const ModelConfig& c, const Matrix& x,
                     const Matrix& memory, const AttentionMask& self_mask,
                     const AttentionMask& cross_mask, const LayerCapture& capture,
                     LayerTrace& layer_trace) {
    layer_trace.cross_attn.emplace();
    const auto self_attention = [&](const Matrix& in) {
        return attend(w.self_attn, c, in, nullptr, self_mask, capture, capture.self_steps, layer_trace.self_attn);
    };
    const auto cross_attention = [&](const Matrix& in) {
        return attend(w.cross_attn, c, in, &memory, cross_mask, capture, capture.cross_steps, *layer_trace.cross_attn);
    };
    if (c.norm == NormPlacement::PostLN) {
        // x = norm1(x + SA(x)); x = norm2(x + CA(x, mem)); x = norm3(x + FF(x))
        Matrix h = norm(w.norm1, c, "norm1", x + self_attention(x), capture);
        h = norm(w.norm2, c, "norm2", h + cross_attention(h), capture);
        if (capture.maps_only) return h;
        return layer_output(norm(w.norm3, c, "norm3", h + ffn(w.ffn, c, h, capture), capture), capture);
    }
    // pre-LN: x = x + SA(norm1(x)); x = x + CA(norm2(x), mem); x = x + FF(norm3(x))
    Matrix h = x + self_attention(norm(w.norm1, c, "norm1", x, capture));
    h += cross_attention(norm(w.norm2, c, "norm2", h, capture));
    if (capture.maps_only) return h;
    return layer_output(h + ffn(w.ffn, c, norm(w.norm3, c, "norm3", h, capture), capture), capture);
}

}  // namespace hs
