#include "core/train/model_grad.h"

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/model/layers.h"
#include "core/model/rope.h"
#include "core/train/activations.h"
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
void zero(AttentionWeights& a) {
    for (Matrix* m : {&a.in_proj_weight, &a.out_proj_weight}) zero(*m);
    for (Vector* v : {&a.in_proj_bias, &a.out_proj_bias, &a.q_norm, &a.k_norm}) zero(*v);
}
void zero(FeedForwardWeights& f) {
    for (Matrix* m : {&f.linear1_weight, &f.linear2_weight, &f.gate_weight}) zero(*m);
    for (Vector* v : {&f.linear1_bias, &f.linear2_bias, &f.gate_bias}) zero(*v);
}

// dy → dx through one layer of a single stack or an encoder, adding its weight gradients to g.
Matrix layer_backward(const EncoderLayerWeights& w, const ModelConfig& c, const std::optional<Rotary>& rope,
                      const Matrix& dy, const LayerActivations& a, EncoderLayerWeights& g) {
    if (c.parallel_block) {
        // y = x + attn(norm1(x)) + ffn(norm2(x)): both branches read x
        return dy + norm_backward(feed_forward_backward(dy, w.ffn, c.activation, a.ffn, g.ffn), w.norm2, c, a.norm2_in, g.norm2) +
               norm_backward(attention_backward(dy, w.self_attn, c, rope, a.attn, g.self_attn), w.norm1, c, a.norm1_in, g.norm1);
    }
    if (c.sandwich_norm) {
        // y = x2 + post_ffn(ffn(norm2(x2))), x2 = x + post_attn(attn(norm1(x)))
        const Matrix df = norm_backward(dy, *w.post_ffn_norm, c, a.ffn_out, *g.post_ffn_norm);
        const Matrix dx2 =
            dy + norm_backward(feed_forward_backward(df, w.ffn, c.activation, a.ffn, g.ffn), w.norm2, c, a.norm2_in, g.norm2);
        const Matrix da = norm_backward(dx2, *w.post_attn_norm, c, a.attn_out, *g.post_attn_norm);
        return dx2 + norm_backward(attention_backward(da, w.self_attn, c, rope, a.attn, g.self_attn), w.norm1, c,
                                   a.norm1_in, g.norm1);
    }
    if (c.norm == NormPlacement::PreLN) {
        // y = x2 + ffn(norm2(x2)), x2 = x + attn(norm1(x))
        const Matrix dx2 =
            dy + norm_backward(feed_forward_backward(dy, w.ffn, c.activation, a.ffn, g.ffn), w.norm2, c, a.norm2_in, g.norm2);
        return dx2 + norm_backward(attention_backward(dx2, w.self_attn, c, rope, a.attn, g.self_attn), w.norm1, c,
                                   a.norm1_in, g.norm1);
    }
    // y = norm2(x2 + ffn(x2)), x2 = norm1(x + attn(x))
    const Matrix ds2 = norm_backward(dy, w.norm2, c, a.norm2_in, g.norm2);
    const Matrix dx2 = ds2 + feed_forward_backward(ds2, w.ffn, c.activation, a.ffn, g.ffn);
    const Matrix ds1 = norm_backward(dx2, w.norm1, c, a.norm1_in, g.norm1);
    return ds1 + attention_backward(ds1, w.self_attn, c, rope, a.attn, g.self_attn);
}

// dy → dx through a decoder layer (self-attention, cross-attention over the encoder's
// output `memory`, feed-forward), adding its weight gradients to g and dM to dmemory.
Matrix decoder_layer_backward(const DecoderLayerWeights& w, const ModelConfig& c, const std::optional<Rotary>& rope,
                              const Matrix& dy, const LayerActivations& a, const Matrix& memory,
                              DecoderLayerWeights& g, Matrix& dmemory) {
    const auto cross_backward = [&](const Matrix& d) {
        return attention_backward(d, w.cross_attn, c, std::nullopt, a.cross, g.cross_attn, &memory, &dmemory);
    };
    if (c.norm == NormPlacement::PreLN) {
        // x2 = x + SA(norm1(x)); x3 = x2 + CA(norm2(x2), M); y = x3 + FF(norm3(x3))
        const Matrix dx3 =
            dy + norm_backward(feed_forward_backward(dy, w.ffn, c.activation, a.ffn, g.ffn), w.norm3, c, a.norm3_in, g.norm3);
        const Matrix dx2 = dx3 + norm_backward(cross_backward(dx3), w.norm2, c, a.norm2_in, g.norm2);
        return dx2 + norm_backward(attention_backward(dx2, w.self_attn, c, rope, a.attn, g.self_attn), w.norm1, c,
                                   a.norm1_in, g.norm1);
    }
    // x2 = norm1(x + SA(x)); x3 = norm2(x2 + CA(x2, M)); y = norm3(x3 + FF(x3))
    const Matrix ds3 = norm_backward(dy, w.norm3, c, a.norm3_in, g.norm3);
    const Matrix dx3 = ds3 + feed_forward_backward(ds3, w.ffn, c.activation, a.ffn, g.ffn);
    const Matrix ds2 = norm_backward(dx3, w.norm2, c, a.norm2_in, g.norm2);
    const Matrix dx2 = ds2 + cross_backward(ds2);
    const Matrix ds1 = norm_backward(dx2, w.norm1, c, a.norm1_in, g.norm1);
    return ds1 + attention_backward(ds1, w.self_attn, c, rope, a.attn, g.self_attn);
}

// The embedding's backward: dx (T, D) is the gradient of x0 = norm_e(E[ids] + positions
// + type_embed[0]) (the embedding norm: BERT). Adds to the rows of E the ids read, to the
// learned positions, to token type 0 and the embedding norm's weights.
void embed_backward(const ModelConfig& c, const ModelWeights& w, std::span<const int> ids, Matrix dx,
                    ModelWeights& g) {
    const int T = static_cast<int>(ids.size());
    if (w.embed_norm) {
        // The norm's input, rebuilt: E[ids] + positions + type_embed[0]
        Matrix e(T, c.d_model);
        for (int t = 0; t < T; ++t) e.row(t) = w.embed.row(ids[static_cast<std::size_t>(t)]);
        if (c.embed_scale) e *= std::sqrt(static_cast<float>(c.d_model));
        if (c.pe == PosEncoding::Sinusoidal) e += sinusoidal_positions(T, c.d_model);
        if (c.pe == PosEncoding::Learned) e += w.pos_embed.topRows(T);
        if (w.type_embed.rows() > 0) e.rowwise() += w.type_embed.row(0);
        dx = norm_backward(dx, *w.embed_norm, c, e, *g.embed_norm);
    }
    if (c.pe == PosEncoding::Learned) g.pos_embed.topRows(T) += dx;
    if (w.type_embed.rows() > 0) g.type_embed.row(0) += dx.colwise().sum();
    if (c.embed_scale) dx *= std::sqrt(static_cast<float>(c.d_model));  // x = E[ids]·√D + …
    for (int t = 0; t < T; ++t) g.embed.row(ids[static_cast<std::size_t>(t)]) += dx.row(t);
}

// dy → d(stack input) through a stack's final norm and layers (reverse order). Decoder
// stacks also pass the encoder's output and collect dM.
Matrix stack_backward(const ModelConfig& c, const ModelWeights& w, const StackActivations& a, bool decoder,
                      const StackRotary& rope, Matrix dy, ModelWeights& g, const Matrix* memory = nullptr,
                      Matrix* dmemory = nullptr) {
    const std::optional<LayerNormWeights>& norm = decoder ? w.decoder_final_norm : w.final_norm;
    if (norm) dy = norm_backward(dy, *norm, c, a.norm_in, decoder ? *g.decoder_final_norm : *g.final_norm);
    for (std::size_t l = a.layers.size(); l-- > 0;)
        dy = decoder ? decoder_layer_backward(w.decoder_layers[l], c, rope.of_layer(c, int(l)), dy, a.layers[l], *memory,
                                              g.decoder_layers[l], *dmemory)
                     : layer_backward(w.layers[l], c, rope.of_layer(c, int(l)), dy, a.layers[l], g.layers[l]);
    return dy;
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

// logits = cap · tanh(z / cap), z = h·W_headᵀ (cap = logit_softcap; none when 0): adds
// dW_head = dzᵀ·h to g and returns dh = dz·W_head, dz = dlogits ⊙ (1 − (logits / cap)²).
Matrix head_backward(const ModelConfig& c, const ModelWeights& w, const Matrix& h, const Matrix& logits,
                     const Matrix& dlogits, ModelWeights& g) {
    Vector no_bias;
    Matrix& dw = c.lm_head == LmHead::Separate ? g.lm_head : g.embed;
    if (c.logit_softcap <= 0.0f) return linear_backward(dlogits, h, lm_head_weight(c, w), dw, no_bias);
    const Matrix dz = (dlogits.array() * (1.0f - (logits.array() / c.logit_softcap).square())).matrix();
    return linear_backward(dz, h, lm_head_weight(c, w), dw, no_bias);
}

void check_trainable(const ModelConfig& c, std::span<const int> ids, int first_target) {
    if (c.lm_head == LmHead::None)
        throw Error("training needs a model with an LM head (lm_head=tied or lm_head=separate)");
    if (ids.size() < 2) throw Error("a training sequence needs at least 2 tokens (got " + std::to_string(ids.size()) + ")");
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
        zero(l.self_attn);
        zero(l.ffn);
        zero(l.norm1);
        zero(l.norm2);
        for (auto* norm : {&l.post_attn_norm, &l.post_ffn_norm})
            if (*norm) zero(**norm);
    }
    for (DecoderLayerWeights& l : g.decoder_layers) {
        zero(l.self_attn);
        zero(l.cross_attn);
        zero(l.ffn);
        for (LayerNormWeights* n : {&l.norm1, &l.norm2, &l.norm3}) zero(*n);
    }
    return g;
}

LossAndGrads next_token_loss(const ModelConfig& c, const ModelWeights& w, std::span<const int> ids,
                             int first_target, const std::vector<int>& key_padding) {
    if (c.arch == Arch::EncoderDecoder)
        throw Error("an encoder–decoder model trains on a source and a target (seq2seq_loss), not on one sequence");
    check_trainable(c, ids, first_target);
    ForwardInput in = ForwardInput::of(std::vector<int>(ids.begin(), ids.end()));
    in.key_padding = key_padding;
    Activations a = record_forward(c, w, in);  // the one forward; throws on ids it cannot read
    LossAndGrads out;
    out.grads = zeros_like(w);
    out.logits = std::move(a.logits);  // (T, V)
    Matrix dlogits;
    out.loss = cross_entropy(out.logits, ids, first_target, dlogits);

    // Backward: logits = h·W_headᵀ, the final norm and the layers, the embedding
    const Matrix dh = head_backward(c, w, a.main.output, out.logits, dlogits, out.grads);
    const Matrix dx = stack_backward(c, w, a.main, false, stack_rotary(c, static_cast<int>(ids.size())), dh, out.grads);
    embed_backward(c, w, ids, dx, out.grads);
    return out;
}

LossAndGrads seq2seq_loss(const ModelConfig& c, const ModelWeights& w, std::span<const int> source,
                          std::span<const int> target, int first_target, const std::vector<int>& key_padding) {
    if (c.arch != Arch::EncoderDecoder) throw Error("seq2seq_loss needs an encoder–decoder model (arch=encoder-decoder)");
    check_trainable(c, target, first_target);
    if (source.empty()) throw Error("the encoder's source sequence is empty");
    ForwardInput in = ForwardInput::of(std::vector<int>(source.begin(), source.end()));
    in.decoder_ids.assign(target.begin(), target.end());
    in.key_padding = key_padding;
    Activations a = record_forward(c, w, in);
    LossAndGrads out;
    out.grads = zeros_like(w);
    out.logits = std::move(a.logits);  // (T, V) of the decoder
    Matrix dlogits;
    out.loss = cross_entropy(out.logits, target, first_target, dlogits);

    // Backward through the decoder, collecting dM (M = the encoder's output) from every
    // cross-attention, then through the encoder.
    const Matrix& memory = a.main.output;
    Matrix dmemory = Matrix::Zero(memory.rows(), c.d_model);
    const Matrix dh = head_backward(c, w, a.decoder.output, out.logits, dlogits, out.grads);
    const Matrix dy = stack_backward(c, w, a.decoder, true, stack_rotary(c, static_cast<int>(target.size())), dh,
                                     out.grads, &memory, &dmemory);
    embed_backward(c, w, target, dy, out.grads);
    const Matrix dx = stack_backward(c, w, a.main, false, stack_rotary(c, static_cast<int>(source.size())), dmemory,
                                     out.grads);
    embed_backward(c, w, source, dx, out.grads);
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
