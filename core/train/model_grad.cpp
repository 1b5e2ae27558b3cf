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
#include "core/train/linear_grad.h"
#include "core/train/norm_grad.h"

namespace hs::train {

namespace {

void zero(Matrix& m) { m.setZero(); }
void zero(Vector& v) { v.setZero(); }
void zero(LayerNormWeights& n) {
    zero(n.weight);
    zero(n.bias);
}

// What one layer's forward keeps for its backward (cross-attention and norm3: decoder layers).
struct LayerCache {
    NormCache norm1, norm2, norm3;
    AttentionCache attn, cross;
    FeedForwardCache ffn;
};

Matrix layer_forward(const EncoderLayerWeights& w, const ModelConfig& c, const std::optional<Rotary>& rope, bool causal,
                     const Matrix& x, LayerCache& k) {
    const NormKind kind = c.norm_kind;
    if (c.norm == NormPlacement::PreLN) {
        const Matrix a =
            attention_forward(norm_forward(x, w.norm1, kind, c.norm_eps, k.norm1), nullptr, w.self_attn, c, rope, causal, k.attn);
        const Matrix x2 = x + a;
        return x2 + feed_forward_forward(norm_forward(x2, w.norm2, kind, c.norm_eps, k.norm2), w.ffn, c.activation, k.ffn);
    }
    const Matrix x2 = norm_forward(x + attention_forward(x, nullptr, w.self_attn, c, rope, causal, k.attn), w.norm1, kind,
                                   c.norm_eps, k.norm1);
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

// A decoder layer (nn.TransformerDecoderLayer): masked self-attention, cross-attention
// over the encoder's output M, feed-forward.
Matrix decoder_layer_forward(const DecoderLayerWeights& w, const ModelConfig& c, const std::optional<Rotary>& rope,
                             bool causal, const Matrix& x, const Matrix& memory, LayerCache& k) {
    const NormKind kind = c.norm_kind;
    const float eps = c.norm_eps;
    if (c.norm == NormPlacement::PreLN) {
        // x2 = x + SA(norm1(x)); x3 = x2 + CA(norm2(x2), M); y = x3 + FF(norm3(x3))
        const Matrix x2 =
            x + attention_forward(norm_forward(x, w.norm1, kind, eps, k.norm1), nullptr, w.self_attn, c, rope, causal, k.attn);
        const Matrix x3 = x2 + attention_forward(norm_forward(x2, w.norm2, kind, eps, k.norm2), &memory, w.cross_attn, c,
                                                 std::nullopt, false, k.cross);
        return x3 + feed_forward_forward(norm_forward(x3, w.norm3, kind, eps, k.norm3), w.ffn, c.activation, k.ffn);
    }
    // x2 = norm1(x + SA(x)); x3 = norm2(x2 + CA(x2, M)); y = norm3(x3 + FF(x3))
    const Matrix x2 =
        norm_forward(x + attention_forward(x, nullptr, w.self_attn, c, rope, causal, k.attn), w.norm1, kind, eps, k.norm1);
    const Matrix x3 = norm_forward(x2 + attention_forward(x2, &memory, w.cross_attn, c, std::nullopt, false, k.cross),
                                   w.norm2, kind, eps, k.norm2);
    return norm_forward(x3 + feed_forward_forward(x3, w.ffn, c.activation, k.ffn), w.norm3, kind, eps, k.norm3);
}

// dy → dx, adding the layer's weight gradients to g and dM to dmemory.
Matrix decoder_layer_backward(const DecoderLayerWeights& w, const ModelConfig& c, const std::optional<Rotary>& rope,
                              const Matrix& dy, const LayerCache& k, DecoderLayerWeights& g, Matrix& dmemory) {
    const NormKind kind = c.norm_kind;
    if (c.norm == NormPlacement::PreLN) {
        const Matrix dx3 =
            dy + norm_backward(feed_forward_backward(dy, w.ffn, c.activation, k.ffn, g.ffn), w.norm3, kind, k.norm3, g.norm3);
        const Matrix dx2 = dx3 + norm_backward(attention_backward(dx3, w.cross_attn, c, std::nullopt, k.cross, g.cross_attn,
                                                                  &dmemory),
                                               w.norm2, kind, k.norm2, g.norm2);
        return dx2 + norm_backward(attention_backward(dx2, w.self_attn, c, rope, k.attn, g.self_attn), w.norm1, kind,
                                   k.norm1, g.norm1);
    }
    const Matrix ds3 = norm_backward(dy, w.norm3, kind, k.norm3, g.norm3);
    const Matrix dx3 = ds3 + feed_forward_backward(ds3, w.ffn, c.activation, k.ffn, g.ffn);
    const Matrix ds2 = norm_backward(dx3, w.norm2, kind, k.norm2, g.norm2);
    const Matrix dx2 = ds2 + attention_backward(ds2, w.cross_attn, c, std::nullopt, k.cross, g.cross_attn, &dmemory);
    const Matrix ds1 = norm_backward(dx2, w.norm1, kind, k.norm1, g.norm1);
    return ds1 + attention_backward(ds1, w.self_attn, c, rope, k.attn, g.self_attn);
}

// x0: (T, D) = E[ids] + positions (sinusoidal or learned; rotary acts inside attention)
Matrix embed_forward(const ModelConfig& c, const ModelWeights& w, std::span<const int> ids) {
    const int T = static_cast<int>(ids.size());
    Matrix x(T, c.d_model);
    for (int t = 0; t < T; ++t) x.row(t) = w.embed.row(ids[static_cast<std::size_t>(t)]);
    if (c.pe == PosEncoding::Sinusoidal) x += sinusoidal_positions(T, c.d_model);
    if (c.pe == PosEncoding::Learned) x += w.pos_embed.topRows(T);
    return x;
}

void embed_backward(const ModelConfig& c, std::span<const int> ids, const Matrix& dx, ModelWeights& g) {
    const int T = static_cast<int>(ids.size());
    for (int t = 0; t < T; ++t) g.embed.row(ids[static_cast<std::size_t>(t)]) += dx.row(t);
    if (c.pe == PosEncoding::Learned) g.pos_embed.topRows(T) += dx;
}

// loss = 1/n Σ_{f−1 ≤ t < T−1} −log softmax(logits_t)[ids_{t+1}], n = T − f; fills
// dlogits = (softmax − onehot(next)) / n on those rows, 0 elsewhere.
double cross_entropy(const Matrix& logits, std::span<const int> ids, int first_target, Matrix& dlogits) {
    const int T = static_cast<int>(ids.size()), n = T - first_target;
    dlogits = Matrix::Zero(logits.rows(), logits.cols());
    double loss = 0.0;
    for (int t = first_target - 1; t + 1 < T; ++t) {
        const auto row = logits.row(t);
        const float m = row.maxCoeff();
        const Eigen::ArrayXf e = (row.array() - m).exp().transpose();
        const double sum = e.cast<double>().sum();
        const int next = ids[static_cast<std::size_t>(t + 1)];
        loss += std::log(sum) - static_cast<double>(row(next) - m);
        dlogits.row(t) = (e / static_cast<float>(sum)).matrix().transpose();
        dlogits(t, next) -= 1.0f;
    }
    dlogits /= static_cast<float>(n);
    return loss / n;
}

// The LM head: logits (T, V) = h·W_headᵀ, W_head (V, D) the separate head or the tied
// token embedding.
const Matrix& head_weight(const ModelConfig& c, const ModelWeights& w) {
    return c.lm_head == LmHead::Separate ? w.lm_head : w.embed;
}

// Adds dW_head = dlogitsᵀ·h to g; returns dh = dlogits·W_head.
Matrix head_backward(const ModelConfig& c, const ModelWeights& w, const Matrix& h, const Matrix& dlogits, ModelWeights& g) {
    Vector no_bias;
    return linear_backward(dlogits, h, head_weight(c, w), c.lm_head == LmHead::Separate ? g.lm_head : g.embed, no_bias);
}

void check_ids(const ModelConfig& c, std::span<const int> ids, const char* what) {
    if (static_cast<int>(ids.size()) > c.max_len)
        throw Error(std::string(what) + " of " + std::to_string(ids.size()) + " tokens is longer than max_len " +
                    std::to_string(c.max_len));
    for (const int id : ids)
        if (id < 0 || id >= c.vocab)
            throw Error("token id " + std::to_string(id) + " is outside the vocabulary of " + std::to_string(c.vocab));
}

void check_trainable(const ModelConfig& c, const ModelWeights& w, std::span<const int> ids, int first_target) {
    if (c.embed_norm || c.type_vocab > 0 || w.embed_norm || w.type_embed.rows() > 0)
        throw Error("training a model with an embedding norm or token types (BERT) is not supported yet");
    if (c.lm_head == LmHead::None)
        throw Error("training needs a model with an LM head (lm_head=tied or lm_head=separate)");
    if (ids.size() < 2) throw Error("a training sequence needs at least 2 tokens (got " + std::to_string(ids.size()) + ")");
    check_ids(c, ids, "a training sequence");
    if (first_target < 1 || first_target >= static_cast<int>(ids.size()))
        throw Error("the first predicted position " + std::to_string(first_target) + " is outside 1 … " +
                    std::to_string(ids.size() - 1));
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
    for (DecoderLayerWeights& l : g.decoder_layers) {
        for (AttentionWeights* a : {&l.self_attn, &l.cross_attn}) {
            zero(a->in_proj_weight);
            zero(a->in_proj_bias);
            zero(a->out_proj_weight);
            zero(a->out_proj_bias);
        }
        for (Matrix* m : {&l.ffn.linear1_weight, &l.ffn.linear2_weight, &l.ffn.gate_weight}) zero(*m);
        for (Vector* v : {&l.ffn.linear1_bias, &l.ffn.linear2_bias, &l.ffn.gate_bias}) zero(*v);
        for (LayerNormWeights* n : {&l.norm1, &l.norm2, &l.norm3}) zero(*n);
    }
    return g;
}

LossAndGrads next_token_loss(const ModelConfig& c, const ModelWeights& w, std::span<const int> ids,
                             int first_target) {
    if (c.arch == Arch::EncoderDecoder)
        throw Error("an encoder–decoder model trains on a source and a target (seq2seq_loss), not on one sequence");
    check_trainable(c, w, ids, first_target);
    const int T = static_cast<int>(ids.size());
    LossAndGrads out;
    out.grads = zeros_like(w);
    ModelWeights& g = out.grads;
    const std::optional<Rotary> rope = rotary_for(c, T);
    const bool causal = c.mask == MaskKind::Causal;

    // Forward: x0 = E[ids] + positions, the layers, the final norm, logits = h·W_headᵀ
    Matrix x = embed_forward(c, w, ids);
    std::vector<LayerCache> caches(w.layers.size());
    for (std::size_t l = 0; l < w.layers.size(); ++l) x = layer_forward(w.layers[l], c, rope, causal, x, caches[l]);
    NormCache final_cache;
    const Matrix h = w.final_norm ? norm_forward(x, *w.final_norm, c.norm_kind, c.norm_eps, final_cache) : x;
    out.logits = linear_forward(h, head_weight(c, w), Vector());  // (T, V)
    Matrix dlogits;
    out.loss = cross_entropy(out.logits, ids, first_target, dlogits);

    // Backward: logits = h·W_headᵀ
    Matrix dx = head_backward(c, w, h, dlogits, g);
    if (w.final_norm) dx = norm_backward(dx, *w.final_norm, c.norm_kind, final_cache, *g.final_norm);
    for (std::size_t l = w.layers.size(); l-- > 0;) dx = layer_backward(w.layers[l], c, rope, dx, caches[l], g.layers[l]);
    embed_backward(c, ids, dx, g);
    return out;
}

LossAndGrads seq2seq_loss(const ModelConfig& c, const ModelWeights& w, std::span<const int> source,
                          std::span<const int> target, int first_target) {
    if (c.arch != Arch::EncoderDecoder) throw Error("seq2seq_loss needs an encoder–decoder model (arch=encoder-decoder)");
    check_trainable(c, w, target, first_target);
    if (source.empty()) throw Error("the encoder's source sequence is empty");
    check_ids(c, source, "a source sequence");
    LossAndGrads out;
    out.grads = zeros_like(w);
    ModelWeights& g = out.grads;
    const int S = static_cast<int>(source.size()), T = static_cast<int>(target.size());
    const std::optional<Rotary> enc_rope = rotary_for(c, S), dec_rope = rotary_for(c, T);

    // Encoder (every source token sees every other): M = encoder.norm(layers(E[src] + pos))
    Matrix x = embed_forward(c, w, source);
    std::vector<LayerCache> enc(w.layers.size());
    for (std::size_t l = 0; l < w.layers.size(); ++l) x = layer_forward(w.layers[l], c, enc_rope, false, x, enc[l]);
    NormCache enc_norm;
    const Matrix memory = w.final_norm ? norm_forward(x, *w.final_norm, c.norm_kind, c.norm_eps, enc_norm) : x;

    // Decoder (self-attention causal per config, cross-attention over M), its norm, logits
    Matrix y = embed_forward(c, w, target);
    std::vector<LayerCache> dec(w.decoder_layers.size());
    const bool causal = c.mask == MaskKind::Causal;
    for (std::size_t l = 0; l < w.decoder_layers.size(); ++l)
        y = decoder_layer_forward(w.decoder_layers[l], c, dec_rope, causal, y, memory, dec[l]);
    NormCache dec_norm;
    const Matrix h = w.decoder_final_norm ? norm_forward(y, *w.decoder_final_norm, c.norm_kind, c.norm_eps, dec_norm) : y;
    out.logits = linear_forward(h, head_weight(c, w), Vector());  // (T, V)
    Matrix dlogits;
    out.loss = cross_entropy(out.logits, target, first_target, dlogits);

    // Backward through the decoder, collecting dM from every cross-attention, then the encoder.
    Matrix dy = head_backward(c, w, h, dlogits, g);
    if (w.decoder_final_norm) dy = norm_backward(dy, *w.decoder_final_norm, c.norm_kind, dec_norm, *g.decoder_final_norm);
    Matrix dmemory = Matrix::Zero(S, c.d_model);
    for (std::size_t l = w.decoder_layers.size(); l-- > 0;)
        dy = decoder_layer_backward(w.decoder_layers[l], c, dec_rope, dy, dec[l], g.decoder_layers[l], dmemory);
    embed_backward(c, target, dy, g);
    Matrix dx = w.final_norm ? norm_backward(dmemory, *w.final_norm, c.norm_kind, enc_norm, *g.final_norm) : dmemory;
    for (std::size_t l = w.layers.size(); l-- > 0;) dx = layer_backward(w.layers[l], c, enc_rope, dx, enc[l], g.layers[l]);
    embed_backward(c, source, dx, g);
    return out;
}

ExampleSplit split_example(const ModelConfig& c, const Example& e) {
    ExampleSplit s;
    if (c.arch != Arch::EncoderDecoder) {
        s.target = e.ids;
        s.first_target = e.first_target;
        return s;
    }
    // BOS x SEP y, f = |x| + 2: source BOS x SEP, target SEP y (SEP starts the decoder)
    const auto f = static_cast<std::size_t>(e.first_target);
    if (e.first_target < 2 || f >= e.ids.size())
        throw Error("an encoder–decoder model trains on copy, reverse or sort: examples with a source and an answer");
    s.source.assign(e.ids.begin(), e.ids.begin() + static_cast<std::ptrdiff_t>(f));
    s.target.assign(e.ids.begin() + static_cast<std::ptrdiff_t>(f - 1), e.ids.end());
    s.first_target = 1;
    return s;
}

LossAndGrads example_loss(const ModelConfig& c, const ModelWeights& w, const Example& e) {
    const ExampleSplit s = split_example(c, e);
    return c.arch == Arch::EncoderDecoder ? seq2seq_loss(c, w, s.source, s.target, s.first_target)
                                          : next_token_loss(c, w, s.target, s.first_target);
}

}  // namespace hs::train
