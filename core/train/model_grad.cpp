#include "core/train/model_grad.h"

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/model/layers.h"
#include "core/model/rope.h"
#include "core/train/attention_grad.h"
#include "core/train/feed_forward_grad.h"
#include "core/train/norm_grad.h"

namespace hs::train {

namespace {

void zero(Matrix& m) { m.setZero(); }
void zero(Vector& v) { v.setZero(); }
void zero(LayerNormWeights& n) {
    zero(n.weight);
    zero(n.bias);
}

// What one layer's forward keeps for its backward.
struct LayerCache {
    NormCache norm1, norm2;
    AttentionCache attn;
    FeedForwardCache ffn;
};

Matrix layer_forward(const EncoderLayerWeights& w, const ModelConfig& c, const std::optional<Rotary>& rope,
                     const Matrix& x, LayerCache& k) {
    const NormKind kind = c.norm_kind;
    if (c.norm == NormPlacement::PreLN) {
        const Matrix a = attention_forward(norm_forward(x, w.norm1, kind, c.norm_eps, k.norm1), w.self_attn, c, rope, k.attn);
        const Matrix x2 = x + a;
        return x2 + feed_forward_forward(norm_forward(x2, w.norm2, kind, c.norm_eps, k.norm2), w.ffn, c.activation, k.ffn);
    }
    const Matrix x2 = norm_forward(x + attention_forward(x, w.self_attn, c, rope, k.attn), w.norm1, kind, c.norm_eps,
                                   k.norm1);
    return norm_forward(x2 + feed_forward_forward(x2, w.ffn, c.activation, k.ffn), w.norm2, kind, c.norm_eps, k.norm2);
}

// dy → dx, adding the layer's weight gradients to g.
Matrix layer_backward(const EncoderLayerWeights& w, const ModelConfig& c, const std::optional<Rotary>& rope,
                      const Matrix& dy, const LayerCache& k, EncoderLayerWeights& g) {
    const NormKind kind = c.norm_kind;
    if (c.norm == NormPlacement::PreLN) {
        // y = x2 + ffn(norm2(x2)), x2 = x + attn(norm1(x))
        const Matrix dx2 =
            dy + norm_backward(feed_forward_backward(dy, w.ffn, c.activation, k.ffn, g.ffn), w.norm2, kind, k.norm2, g.norm2);
        return dx2 + norm_backward(attention_backward(dx2, w.self_attn, c, rope, k.attn, g.self_attn), w.norm1, kind,
                                   k.norm1, g.norm1);
    }
    // y = norm2(x2 + ffn(x2)), x2 = norm1(x + attn(x))
    const Matrix ds2 = norm_backward(dy, w.norm2, kind, k.norm2, g.norm2);
    const Matrix dx2 = ds2 + feed_forward_backward(ds2, w.ffn, c.activation, k.ffn, g.ffn);
    const Matrix ds1 = norm_backward(dx2, w.norm1, kind, k.norm1, g.norm1);
    return ds1 + attention_backward(ds1, w.self_attn, c, rope, k.attn, g.self_attn);
}

void check_trainable(const ModelConfig& c, const ModelWeights& w, std::span<const int> ids) {
    if (c.arch == Arch::EncoderDecoder) throw Error("training an encoder–decoder model is not supported yet");
    if (c.embed_norm || c.type_vocab > 0 || w.embed_norm || w.type_embed.rows() > 0)
        throw Error("training a model with an embedding norm or token types (BERT) is not supported yet");
    if (c.lm_head == LmHead::None)
        throw Error("training needs a model with an LM head (lm_head=tied or lm_head=separate)");
    if (ids.size() < 2) throw Error("a training sequence needs at least 2 tokens (got " + std::to_string(ids.size()) + ")");
    if (static_cast<int>(ids.size()) > c.max_len)
        throw Error("a training sequence of " + std::to_string(ids.size()) + " tokens is longer than max_len " +
                    std::to_string(c.max_len));
    for (const int id : ids)
        if (id < 0 || id >= c.vocab)
            throw Error("token id " + std::to_string(id) + " is outside the vocabulary of " + std::to_string(c.vocab));
}

}  // namespace

ModelWeights zeros_like(const ModelWeights& w) {
    ModelWeights g = w;
    zero(g.embed);
    zero(g.pos_embed);
    zero(g.type_embed);
    zero(g.lm_head);
    if (g.embed_norm) zero(*g.embed_norm);
    if (g.final_norm) zero(*g.final_norm);
    if (g.decoder_final_norm) zero(*g.decoder_final_norm);
    for (EncoderLayerWeights& l : g.layers) {
        zero(l.self_attn.in_proj_weight);
        zero(l.self_attn.in_proj_bias);
        zero(l.self_attn.out_proj_weight);
        zero(l.self_attn.out_proj_bias);
        for (Matrix* m : {&l.ffn.linear1_weight, &l.ffn.linear2_weight, &l.ffn.gate_weight}) zero(*m);
        for (Vector* v : {&l.ffn.linear1_bias, &l.ffn.linear2_bias, &l.ffn.gate_bias}) zero(*v);
        zero(l.norm1);
        zero(l.norm2);
    }
    g.decoder_layers.clear();
    return g;
}

LossAndGrads next_token_loss(const ModelConfig& c, const ModelWeights& w, std::span<const int> ids,
                             int first_target) {
    check_trainable(c, w, ids);
    if (first_target < 1 || first_target >= static_cast<int>(ids.size()))
        throw Error("the first predicted position " + std::to_string(first_target) + " is outside 1 … " +
                    std::to_string(ids.size() - 1));
    const int T = static_cast<int>(ids.size());
    LossAndGrads out;
    out.grads = zeros_like(w);
    ModelWeights& g = out.grads;
    const std::optional<Rotary> rope = rotary_for(c, T);

    // Forward. x0: (T, D) = E[ids] + positions
    Matrix x(T, c.d_model);
    for (int t = 0; t < T; ++t) x.row(t) = w.embed.row(ids[static_cast<std::size_t>(t)]);
    if (c.pe == PosEncoding::Sinusoidal) x += sinusoidal_positions(T, c.d_model);
    if (c.pe == PosEncoding::Learned) x += w.pos_embed.topRows(T);
    std::vector<LayerCache> caches(w.layers.size());
    for (std::size_t l = 0; l < w.layers.size(); ++l) x = layer_forward(w.layers[l], c, rope, x, caches[l]);
    NormCache final_cache;
    const Matrix h = w.final_norm ? norm_forward(x, *w.final_norm, c.norm_kind, c.norm_eps, final_cache) : x;
    const Matrix& head = c.lm_head == LmHead::Separate ? w.lm_head : w.embed;  // (V, D)
    out.logits = h * head.transpose();                                           // (T, V)

    // Loss and d loss / d logits = (softmax − onehot(next)) / n on rows f−1 … T−2 (n of them).
    const int n = T - first_target;
    Matrix dlogits = Matrix::Zero(T, c.vocab);
    double loss = 0.0;
    for (int t = first_target - 1; t + 1 < T; ++t) {
        const auto row = out.logits.row(t);
        const float m = row.maxCoeff();
        const Eigen::ArrayXf e = (row.array() - m).exp().transpose();
        const double sum = e.cast<double>().sum();
        const int next = ids[static_cast<std::size_t>(t + 1)];
        loss += std::log(sum) - static_cast<double>(row(next) - m);
        dlogits.row(t) = (e / static_cast<float>(sum)).matrix().transpose();
        dlogits(t, next) -= 1.0f;
    }
    out.loss = loss / n;
    dlogits /= static_cast<float>(n);

    // Backward: logits = h·W_headᵀ
    Matrix& dhead = c.lm_head == LmHead::Separate ? g.lm_head : g.embed;
    dhead.noalias() += dlogits.transpose() * h;
    Matrix dx = dlogits * head;
    if (w.final_norm) dx = norm_backward(dx, *w.final_norm, c.norm_kind, final_cache, *g.final_norm);
    for (std::size_t l = w.layers.size(); l-- > 0;) dx = layer_backward(w.layers[l], c, rope, dx, caches[l], g.layers[l]);
    for (int t = 0; t < T; ++t) g.embed.row(ids[static_cast<std::size_t>(t)]) += dx.row(t);
    if (c.pe == PosEncoding::Learned) g.pos_embed.topRows(T) += dx;
    return out;
}

}  // namespace hs::train
