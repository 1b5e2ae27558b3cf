#include "core/layers.h"

#include <cmath>
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

namespace {

// In place over a contiguous matrix: GELU(x) = ½ x (1 + erf(x / √2)) (core/kernels/
// activations.h), or ReLU(x) = max(0, x).
// Large blocks (the FFN's hidden layer) are split into one contiguous part per thread.
template <typename Block>
void activate_in_place(Block&& x, Activation act) {
    if (act == Activation::ReLU) {
        x = x.cwiseMax(0.0f);
        return;
    }
    const long n = static_cast<long>(x.size());
    const int parts = n < (1 << 16) ? 1 : thread_count();
    parallel_for(parts, [&](int p) {
        const long begin = n * p / parts, end = n * (p + 1) / parts;
        kernels::gelu_erf(x.data() + begin, end - begin);
    });
}

}  // namespace

Matrix activate(const Matrix& x, Activation act) {
    Matrix y = x;
    activate_in_place(y, act);
    return y;
}

Matrix feed_forward(const Matrix& x, const FeedForwardWeights& w, Activation act) {
    // hidden: (T, d_ff) = act(x · W1ᵀ + b1); out: (T, D) = hidden · W2ᵀ + b2
    // hidden lives in per-thread scratch reused across layers and calls.
    thread_local Scratch hidden_buf;
    const Eigen::Index T = x.rows(), F = w.d_ff();
    Eigen::Map<Matrix> hidden = hidden_buf.get(T, F);
    matmul_nt(x, w.linear1_weight, &w.linear1_bias, hidden, w.linear1_packed.get());
    activate_in_place(hidden, act);
    Matrix out(T, w.d_model());
    matmul_nt(hidden, w.linear2_weight, &w.linear2_bias, out, w.linear2_packed.get());
    return out;
}

Matrix sinusoidal_positions(int T, int D) {
    // PE[p, 2i] = sin(p / 10000^(2i/D)), PE[p, 2i+1] = cos(p / 10000^(2i/D)); computed in double.
    Matrix pe(T, D);
    for (int p = 0; p < T; ++p)
        for (int c = 0; c < D; ++c) {
            const int two_i = c - (c % 2);
            const double angle = p / std::pow(10000.0, static_cast<double>(two_i) / D);
            pe(p, c) = static_cast<float>(c % 2 == 0 ? std::sin(angle) : std::cos(angle));
        }
    return pe;
}

namespace {

// Runs one attention sub-layer (self-attention when memory is null) and records its
// head maps; the block's ablated heads come from `capture`.
// The head count is the config's, not w.heads: Model::with_heads shares weights.
Matrix attend(const AttentionWeights& w, int heads, const Matrix& q_in, const Matrix* memory,
              const AttentionMask& mask, const LayerCapture& capture, AttentionSteps* steps,
              HeadMaps& maps) {
    const std::vector<int>& ablated = memory ? capture.cross_ablated : capture.self_ablated;
    AttentionResult r = multi_head_attention(w, heads, q_in, memory ? *memory : q_in, mask,
                                             capture.weights, capture.scores, steps, ablated,
                                             capture.ablate_mode);
    maps.weights = std::move(r.weights);
    maps.scores = std::move(r.scores);
    return std::move(r.output);
}

}  // namespace

Matrix encoder_layer(const EncoderLayerWeights& w, const ModelConfig& c, const Matrix& x,
                     const AttentionMask& mask, const LayerCapture& capture,
                     LayerTrace& layer_trace) {
    const float eps = c.norm_eps;
    if (c.norm == NormPlacement::PostLN) {
        // x = norm1(x + SA(x)); x = norm2(x + FF(x))
        Matrix sa = attend(w.self_attn, c.heads, x, nullptr, mask, capture, capture.self_steps,
                           layer_trace.self_attn);
        Matrix h = layer_norm(x + sa, w.norm1, eps);
        if (capture.maps_only) return h;
        return layer_norm(h + feed_forward(h, w.ffn, c.activation), w.norm2, eps);
    }
    // pre-LN: x = x + SA(norm1(x)); x = x + FF(norm2(x))
    const Matrix n1 = layer_norm(x, w.norm1, eps);
    Matrix h = x + attend(w.self_attn, c.heads, n1, nullptr, mask, capture, capture.self_steps,
                          layer_trace.self_attn);
    if (capture.maps_only) return h;
    return h + feed_forward(layer_norm(h, w.norm2, eps), w.ffn, c.activation);
}

Matrix decoder_layer(const DecoderLayerWeights& w, const ModelConfig& c, const Matrix& x,
                     const Matrix& memory, const AttentionMask& self_mask,
                     const AttentionMask& cross_mask, const LayerCapture& capture,
                     LayerTrace& layer_trace) {
    const float eps = c.norm_eps;
    layer_trace.cross_attn.emplace();
    HeadMaps& cross_maps = *layer_trace.cross_attn;
    if (c.norm == NormPlacement::PostLN) {
        // x = norm1(x + SA(x)); x = norm2(x + CA(x, mem)); x = norm3(x + FF(x))
        Matrix h = layer_norm(x + attend(w.self_attn, c.heads, x, nullptr, self_mask, capture,
                                         capture.self_steps, layer_trace.self_attn),
                              w.norm1, eps);
        h = layer_norm(h + attend(w.cross_attn, c.heads, h, &memory, cross_mask, capture,
                                  capture.cross_steps, cross_maps),
                       w.norm2, eps);
        if (capture.maps_only) return h;
        return layer_norm(h + feed_forward(h, w.ffn, c.activation), w.norm3, eps);
    }
    // pre-LN: x = x + SA(norm1(x)); x = x + CA(norm2(x), mem); x = x + FF(norm3(x))
    const Matrix n1 = layer_norm(x, w.norm1, eps);
    Matrix h = x + attend(w.self_attn, c.heads, n1, nullptr, self_mask, capture, capture.self_steps,
                          layer_trace.self_attn);
    const Matrix n2 = layer_norm(h, w.norm2, eps);
    h += attend(w.cross_attn, c.heads, n2, &memory, cross_mask, capture, capture.cross_steps, cross_maps);
    if (capture.maps_only) return h;
    return h + feed_forward(layer_norm(h, w.norm3, eps), w.ffn, c.activation);
}

}  // namespace hs
