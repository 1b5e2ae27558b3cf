#include "tests/train_reference_loss.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include <Eigen/Dense>

namespace hs::test {

namespace {

using Mat = Eigen::MatrixXd;
using Vec = Eigen::VectorXd;

// The reference's view of the weights: every tensor in double, one entry nudged.
struct Reader {
    const Nudge& nudge;
    Mat operator()(const Matrix& m) const {
        Mat d = m.cast<double>();
        if (m.data() == nudge.tensor) d(static_cast<Eigen::Index>(nudge.index) / m.cols(), static_cast<Eigen::Index>(nudge.index) % m.cols()) += nudge.delta;
        return d;
    }
    Vec operator()(const Vector& v) const {
        Vec d = v.cast<double>();
        if (v.size() > 0 && v.data() == nudge.tensor) d(static_cast<Eigen::Index>(nudge.index)) += nudge.delta;
        return d;
    }
};

// y = x·Wᵀ + b
Mat linear(const Mat& x, const Mat& w, const Vec& b) {
    Mat y = x * w.transpose();
    if (b.size() > 0) y.rowwise() += b.transpose();
    return y;
}

Mat norm(const Mat& x, const LayerNormWeights& n, const ModelConfig& c, const Reader& r) {
    const Vec g = r(n.weight), b = r(n.bias);
    Mat y(x.rows(), x.cols());
    for (Eigen::Index t = 0; t < x.rows(); ++t) {
        const Eigen::RowVectorXd row = x.row(t);
        const double mean = c.norm_kind == NormKind::LayerNorm ? row.mean() : 0.0;
        const Eigen::RowVectorXd centred = row.array() - mean;
        const double var = centred.squaredNorm() / static_cast<double>(x.cols());
        y.row(t) = centred / std::sqrt(var + static_cast<double>(c.norm_eps));
        y.row(t) = y.row(t).cwiseProduct(g.transpose());
        if (b.size() > 0) y.row(t) += b.transpose();
    }
    return y;
}

// QK-norm: every head's row of x (T, n·Dh) divided by its RMS over Dh, times γ (Dh).
void normalize_heads(Mat& x, int heads, const Vec& gamma, const ModelConfig& c) {
    const int dh = static_cast<int>(x.cols()) / heads;
    for (Eigen::Index t = 0; t < x.rows(); ++t)
        for (int h = 0; h < heads; ++h) {
            auto head = x.row(t).segment(h * dh, dh);
            const double rms = std::sqrt(head.squaredNorm() / dh + static_cast<double>(c.norm_eps));
            head = (head / rms).cwiseProduct(gamma.transpose());
        }
}

// RoPE on every head of x (T, n·Dh): pair i (of the first R dims, R = rotary dims or Dh)
// of position p turns by p·theta^(−2i/R).
void rotate(Mat& x, int heads, const ModelConfig& c, double theta) {
    const int dh = static_cast<int>(x.cols()) / heads, rd = c.rotary_dims > 0 ? c.rotary_dims : dh;
    for (Eigen::Index p = 0; p < x.rows(); ++p)
        for (int h = 0; h < heads; ++h)
            for (int i = 0; i < rd / 2; ++i) {
                const double angle = static_cast<double>(p) * std::pow(theta, -2.0 * i / rd);
                const int ia = h * dh + (c.rope_layout == RopeLayout::Interleaved ? 2 * i : i);
                const int ib = h * dh + (c.rope_layout == RopeLayout::Interleaved ? 2 * i + 1 : i + rd / 2);
                const double a = x(p, ia), b = x(p, ib);
                x(p, ia) = a * std::cos(angle) - b * std::sin(angle);
                x(p, ib) = a * std::sin(angle) + b * std::cos(angle);
            }
}

// Multi-head attention: queries from x, keys and values from m (= x for self-attention);
// query t sees key j unless causal and j > t, causal with a window and j ≤ t − window,
// or j is a padded key. Scores are scaled by attn_scale, or 1/√dh when it is 0, then
// soft-capped to cap·tanh(s / cap) when attn_softcap is set. q and k turn by positions of
// base `theta` (0: no rotation).
Mat attention(const Mat& x, const Mat& m, const AttentionWeights& w, const ModelConfig& c, bool causal, int window,
              double theta, const std::vector<int>& padded, const Reader& r) {
    const int H = c.heads, Hkv = c.kv_head_count(), dh = c.d_h(), I = H * dh, Ikv = Hkv * dh;
    const Mat win = r(w.in_proj_weight);
    const Vec bin = r(w.in_proj_bias);
    const auto bias = [&](int start, int n) { return bin.size() > 0 ? Vec(bin.segment(start, n)) : Vec(); };
    Mat q = linear(x, win.topRows(I), bias(0, I));
    Mat k = linear(m, win.middleRows(I, Ikv), bias(I, Ikv));
    const Mat v = linear(m, win.bottomRows(Ikv), bias(I + Ikv, Ikv));
    if (w.q_norm.size() > 0) {
        normalize_heads(q, H, r(w.q_norm), c);
        normalize_heads(k, Hkv, r(w.k_norm), c);
    }
    if (theta > 0.0) {
        rotate(q, H, c, theta);
        rotate(k, Hkv, c, theta);
    }
    Mat concat(x.rows(), I);
    for (int h = 0; h < H; ++h) {
        const int g = h / (H / Hkv);
        const double scale = c.attn_scale > 0.0f ? double(c.attn_scale) : 1.0 / std::sqrt(static_cast<double>(dh));
        Mat s = q.middleCols(h * dh, dh) * k.middleCols(g * dh, dh).transpose() * scale;
        const double cap = c.attn_softcap;
        if (cap > 0.0) s = s.unaryExpr([cap](double v) { return cap * std::tanh(v / cap); });
        for (Eigen::Index t = 0; t < s.rows(); ++t) {
            const auto sees = [&](Eigen::Index j) {
                return !(causal && (j > t || (window > 0 && j <= t - window))) &&
                       std::find(padded.begin(), padded.end(), j) == padded.end();
            };
            double top = -INFINITY;
            for (Eigen::Index j = 0; j < s.cols(); ++j)
                if (sees(j)) top = std::max(top, s(t, j));
            double sum = 0.0;
            for (Eigen::Index j = 0; j < s.cols(); ++j) sum += s(t, j) = sees(j) ? std::exp(s(t, j) - top) : 0.0;
            s.row(t) /= sum;
        }
        concat.middleCols(h * dh, dh) = s * v.middleCols(g * dh, dh);
    }
    return linear(concat, r(w.out_proj_weight), r(w.out_proj_bias));
}

Mat feed_forward(const Mat& x, const FeedForwardWeights& w, const ModelConfig& c, const Reader& r) {
    const Mat pre = linear(x, r(w.linear1_weight), r(w.linear1_bias));
    Mat hidden = pre;
    constexpr double kPi = 3.14159265358979323846;
    const auto gelu = [](double v) { return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))); };
    const auto gelu_tanh = [&](double v) {
        return 0.5 * v * (1.0 + std::tanh(std::sqrt(2.0 / kPi) * (v + 0.044715 * v * v * v)));
    };
    const auto silu = [](double v) { return v / (1.0 + std::exp(-v)); };
    if (c.activation == Activation::SwiGLU) {
        const Mat gate = linear(x, r(w.gate_weight), r(w.gate_bias));
        hidden = gate.unaryExpr(silu).cwiseProduct(pre);
    } else if (c.activation == Activation::GeGLU) {  // Gemma: the gate through GELU-tanh
        const Mat gate = linear(x, r(w.gate_weight), r(w.gate_bias));
        hidden = gate.unaryExpr(gelu_tanh).cwiseProduct(pre);
    } else if (c.activation == Activation::ReLU) {
        hidden = pre.cwiseMax(0.0);
    } else if (c.activation == Activation::GELU) {
        hidden = pre.unaryExpr(gelu);
    } else {
        hidden = pre.unaryExpr(gelu_tanh);
    }
    return linear(hidden, r(w.linear2_weight), r(w.linear2_bias));
}

Mat embed(const std::vector<int>& ids, const ModelConfig& c, const ModelWeights& w, const Reader& r) {
    const Mat e = r(w.embed);
    Mat x(static_cast<Eigen::Index>(ids.size()), c.d_model);
    for (std::size_t t = 0; t < ids.size(); ++t) x.row(static_cast<Eigen::Index>(t)) = e.row(ids[t]);
    if (c.embed_scale) x *= std::sqrt(static_cast<double>(c.d_model));  // Gemma
    if (c.pe == PosEncoding::Learned) x += r(w.pos_embed).topRows(x.rows());
    if (c.pe == PosEncoding::Sinusoidal)
        for (Eigen::Index p = 0; p < x.rows(); ++p)
            for (int i = 0; i < c.d_model; ++i) {
                const double angle = static_cast<double>(p) / std::pow(10000.0, static_cast<double>(i - i % 2) / c.d_model);
                x(p, i) += i % 2 == 0 ? std::sin(angle) : std::cos(angle);
            }
    if (w.type_embed.rows() > 0) x.rowwise() += r(w.type_embed).row(0);  // token type 0
    if (w.embed_norm) x = norm(x, *w.embed_norm, c, r);                    // BERT's embedding norm
    return x;
}

// Sandwich norms: x2 = x + n(attn(norm1(x))), y = x2 + n(ffn(norm2(x2))) with the layer's
// post-attention and post-feed-forward norms.
Mat encoder_layer(const Mat& x, const EncoderLayerWeights& w, const ModelConfig& c, bool causal, int window,
                  double theta, const std::vector<int>& padded, const Reader& r) {
    if (c.sandwich_norm) {
        const Mat n1 = norm(x, w.norm1, c, r);
        const Mat x2 = x + norm(attention(n1, n1, w.self_attn, c, causal, window, theta, padded, r), *w.post_attn_norm, c, r);
        return x2 + norm(feed_forward(norm(x2, w.norm2, c, r), w.ffn, c, r), *w.post_ffn_norm, c, r);
    }
    if (c.norm == NormPlacement::PreLN) {
        const Mat n1 = norm(x, w.norm1, c, r);
        const Mat x2 = x + attention(n1, n1, w.self_attn, c, causal, window, theta, padded, r);
        if (c.parallel_block) return x2 + feed_forward(norm(x, w.norm2, c, r), w.ffn, c, r);  // both from x
        return x2 + feed_forward(norm(x2, w.norm2, c, r), w.ffn, c, r);
    }
    const Mat x2 = norm(x + attention(x, x, w.self_attn, c, causal, window, theta, padded, r), w.norm1, c, r);
    return norm(x2 + feed_forward(x2, w.ffn, c, r), w.norm2, c, r);
}

// Cross-attention skips the source's padded keys.
Mat decoder_layer(const Mat& x, const Mat& memory, const DecoderLayerWeights& w, const ModelConfig& c, int window,
                  double theta, const std::vector<int>& source_padded, const Reader& r) {
    const bool causal = c.mask == MaskKind::Causal;
    if (c.norm == NormPlacement::PreLN) {
        const Mat n1 = norm(x, w.norm1, c, r);
        const Mat x2 = x + attention(n1, n1, w.self_attn, c, causal, window, theta, {}, r);
        const Mat x3 =
            x2 + attention(norm(x2, w.norm2, c, r), memory, w.cross_attn, c, false, 0, 0.0, source_padded, r);
        return x3 + feed_forward(norm(x3, w.norm3, c, r), w.ffn, c, r);
    }
    const Mat x2 = norm(x + attention(x, x, w.self_attn, c, causal, window, theta, {}, r), w.norm1, c, r);
    const Mat x3 = norm(x2 + attention(x2, memory, w.cross_attn, c, false, 0, 0.0, source_padded, r), w.norm2, c, r);
    return norm(x3 + feed_forward(x3, w.ffn, c, r), w.norm3, c, r);
}

// Layer il's window: the config's, unless its letter in the repeating window_layers
// pattern is G (global).
int window_of_layer(const ModelConfig& c, std::size_t il) {
    if (c.window_layers.empty()) return c.window;
    return c.window_layers[il % c.window_layers.size()] == 'G' ? 0 : c.window;
}

// Layer il's rope base: rope_local_theta in a local layer when set (Gemma 3), else
// rope_theta; 0 without rotary positions.
double theta_of_layer(const ModelConfig& c, std::size_t il) {
    if (c.pe != PosEncoding::Rotary) return 0.0;
    return c.rope_local_theta > 0.0f && window_of_layer(c, il) > 0 ? c.rope_local_theta : c.rope_theta;
}

}  // namespace

double reference_loss(const ModelConfig& c, const ModelWeights& w, const std::vector<int>& source,
                      const std::vector<int>& target, const Nudge& nudge, const std::vector<int>& key_padding) {
    const Reader r{nudge};
    Mat h;
    if (c.arch == Arch::EncoderDecoder) {
        Mat m = embed(source, c, w, r);
        for (std::size_t il = 0; il < w.layers.size(); ++il)
            m = encoder_layer(m, w.layers[il], c, false, 0, theta_of_layer(c, il), key_padding, r);
        if (w.final_norm) m = norm(m, *w.final_norm, c, r);
        h = embed(target, c, w, r);
        for (std::size_t il = 0; il < w.decoder_layers.size(); ++il)
            h = decoder_layer(h, m, w.decoder_layers[il], c, window_of_layer(c, il), theta_of_layer(c, il), key_padding, r);
        if (w.decoder_final_norm) h = norm(h, *w.decoder_final_norm, c, r);
    } else {
        h = embed(target, c, w, r);
        for (std::size_t il = 0; il < w.layers.size(); ++il)
            h = encoder_layer(h, w.layers[il], c, c.mask == MaskKind::Causal, window_of_layer(c, il),
                              theta_of_layer(c, il), key_padding, r);
        if (w.final_norm) h = norm(h, *w.final_norm, c, r);
    }
    Mat logits = h * r(c.lm_head == LmHead::Separate ? w.lm_head : w.embed).transpose();
    const double cap = c.logit_softcap;  // Gemma 2: logits → cap·tanh(logits / cap)
    if (cap > 0.0) logits = logits.unaryExpr([cap](double v) { return cap * std::tanh(v / cap); });
    double loss = 0.0;
    for (std::size_t t = 0; t + 1 < target.size(); ++t) {
        const Eigen::RowVectorXd row = logits.row(static_cast<Eigen::Index>(t));
        const double top = row.maxCoeff();
        loss += std::log((row.array() - top).exp().sum()) + top - row(target[t + 1]);
    }
    return loss / static_cast<double>(target.size() - 1);
}

}  // namespace hs::test
