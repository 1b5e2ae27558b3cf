// ModelWeights <-> PyTorch state_dict names (see state_dict.h for the full table).
// One walk over the weights (visit_tensors) defines names, shapes and order; listing,
// flattening and loading are all that walk with a different callback, so they cannot
// disagree.
#include "core/io/state_dict.h"

#include <algorithm>
#include <cmath>

#include <set>
#include <sstream>
#include <type_traits>

#include "core/error.h"
#include "core/kernels/stored_rows.h"

namespace hs {

namespace {

using Shape = std::vector<std::int64_t>;

std::string shape_string(const Shape& shape) {
    std::ostringstream out;
    out << '[';
    for (std::size_t i = 0; i < shape.size(); ++i) out << (i ? ", " : "") << shape[i];
    out << ']';
    return out.str();
}

// "a, b, c, … (N more)" for error messages: the first few names of a list.
std::string first_names(const std::vector<std::string>& names, std::size_t shown = 5) {
    std::string out;
    for (std::size_t i = 0; i < names.size() && i < shown; ++i) out += (i ? ", " : "") + names[i];
    if (names.size() > shown) out += ", … (" + std::to_string(names.size() - shown) + " more)";
    return out;
}

// Calls fn(name, shape, tensor) for every tensor of the model, in state_dict order.
// W is ModelWeights or const ModelWeights; tensor is a (const) Matrix& or Vector&.
// Shapes with D = d_model, F = d_ff, I = H·Dh, Ikv = Hkv·Dh (I = Ikv = D without
// grouped-query attention or a set head_dim); absent biases (ModelConfig::*_bias) and
// RMSNorm's β are not listed:
//   attention: in_proj_weight (I + 2·Ikv, D), in_proj_bias (I + 2·Ikv),
//              out_proj.weight (D, I), .bias (D),
//              qk-norm (self-attention): q_norm.weight (Dh), k_norm.weight (Dh)
//   FFN:       linear1.weight (F, D), .bias (F), linear2.weight (D, F), .bias (D),
//              SwiGLU, GeGLU: gate.weight (F, D), .bias (F)
//   norms:     weight (D), bias (D)
template <class A, class Fn>
void visit_attention(const ModelConfig& c, const std::string& p, A& a, Fn&& fn) {
    const std::int64_t D = c.d_model, I = c.inner(), R = I + 2 * std::int64_t{c.kv_head_count()} * c.d_h();
    fn(p + "in_proj_weight", Shape{R, D}, a.in_proj_weight);
    if (c.qkv_bias) fn(p + "in_proj_bias", Shape{R}, a.in_proj_bias);
    fn(p + "out_proj.weight", Shape{D, I}, a.out_proj_weight);
    if (c.out_bias) fn(p + "out_proj.bias", Shape{D}, a.out_proj_bias);
    if (c.qk_norm && p.ends_with("self_attn.")) {
        fn(p + "q_norm.weight", Shape{c.d_h()}, a.q_norm);
        fn(p + "k_norm.weight", Shape{c.d_h()}, a.k_norm);
    }
}

template <class F, class Fn>
void visit_ffn(const ModelConfig& c, const std::string& p, F& f, Fn&& fn) {
    const std::int64_t D = c.d_model, Ff = c.d_ff;
    fn(p + "linear1.weight", Shape{Ff, D}, f.linear1_weight);
    if (c.mlp_bias) fn(p + "linear1.bias", Shape{Ff}, f.linear1_bias);
    fn(p + "linear2.weight", Shape{D, Ff}, f.linear2_weight);
    if (c.mlp_bias) fn(p + "linear2.bias", Shape{D}, f.linear2_bias);
    if (!is_gated(c.activation)) return;
    fn(p + "gate.weight", Shape{Ff, D}, f.gate_weight);
    if (c.mlp_bias) fn(p + "gate.bias", Shape{Ff}, f.gate_bias);
}

template <class N, class Fn>
void visit_norm(const ModelConfig& c, const std::string& p, N& n, Fn&& fn) {
    fn(p + "weight", Shape{c.d_model}, n.weight);
    if (c.norm_kind == NormKind::LayerNorm) fn(p + "bias", Shape{c.d_model}, n.bias);
}

// One layer of the main stack under prefix p ("layers.3.").
template <class L, class Fn>
void visit_encoder_layer(const ModelConfig& c, const std::string& p, L& layer, Fn&& fn) {
    visit_attention(c, p + "self_attn.", layer.self_attn, fn);
    visit_ffn(c, p, layer.ffn, fn);
    visit_norm(c, p + "norm1.", layer.norm1, fn);
    visit_norm(c, p + "norm2.", layer.norm2, fn);
    if (c.sandwich_norm) {  // the structure check (to_state_dict) or skeleton made them
        visit_norm(c, p + "post_attn_norm.", *layer.post_attn_norm, fn);
        visit_norm(c, p + "post_ffn_norm.", *layer.post_ffn_norm, fn);
    }
}

template <class W, class Fn>
void visit_tensors(const ModelConfig& c, W& w, Fn&& fn) {
    const std::int64_t D = c.d_model;
    auto norm = [&](const std::string& p, auto& n) { visit_norm(c, p, n, fn); };

    fn("embed.weight", Shape{c.vocab, D}, w.embed);
    if (c.pe == PosEncoding::Learned) fn("pos_embed.weight", Shape{c.max_len, D}, w.pos_embed);
    if (c.type_vocab > 0) fn("type_embed.weight", Shape{c.type_vocab, D}, w.type_embed);
    if (w.embed_norm) norm("embed_norm.", *w.embed_norm);

    const bool enc_dec = c.arch == Arch::EncoderDecoder;
    const std::string stack = enc_dec ? "encoder." : "";
    for (std::size_t il = 0; il < w.layers.size(); ++il)
        visit_encoder_layer(c, stack + "layers." + std::to_string(il) + ".", w.layers[il], fn);
    if (w.final_norm) norm(stack + "norm.", *w.final_norm);

    for (std::size_t il = 0; il < w.decoder_layers.size(); ++il) {
        auto& layer = w.decoder_layers[il];
        const std::string p = "decoder.layers." + std::to_string(il) + ".";
        visit_attention(c, p + "self_attn.", layer.self_attn, fn);
        visit_attention(c, p + "multihead_attn.", layer.cross_attn, fn);
        visit_ffn(c, p, layer.ffn, fn);
        norm(p + "norm1.", layer.norm1);
        norm(p + "norm2.", layer.norm2);
        norm(p + "norm3.", layer.norm3);
    }
    if (w.decoder_final_norm) norm("decoder.norm.", *w.decoder_final_norm);
    if (c.lm_head == LmHead::Separate) fn("lm_head.weight", Shape{c.vocab, D}, w.lm_head);
}

// Weights with the structure the config implies (layer counts, optional norms, heads)
// and empty tensors, ready to be visited and filled.
ModelWeights skeleton(const ModelConfig& c) {
    ModelWeights w;
    w.layers.resize(static_cast<std::size_t>(c.layers));
    for (auto& layer : w.layers) {
        layer.self_attn.heads = c.heads;
        layer.self_attn.kv_heads = c.kv_heads;
        if (c.sandwich_norm) {
            layer.post_attn_norm.emplace();
            layer.post_ffn_norm.emplace();
        }
    }
    if (has_final_norm(c)) w.final_norm.emplace();
    if (c.embed_norm) w.embed_norm.emplace();
    if (c.arch == Arch::EncoderDecoder) {
        w.decoder_layers.resize(static_cast<std::size_t>(c.layers));
        for (auto& layer : w.decoder_layers) {
            layer.self_attn.heads = layer.cross_attn.heads = c.heads;
            layer.self_attn.kv_heads = layer.cross_attn.kv_heads = c.kv_heads;
        }
        w.decoder_final_norm.emplace();
    }
    return w;
}

template <class T>
Shape tensor_shape(const T& t) {
    if constexpr (std::is_same_v<T, Vector>) return {t.size()};
    else return {t.rows(), t.cols()};
}

}  // namespace

std::vector<std::pair<std::string, std::vector<std::int64_t>>> expected_tensors(
    const ModelConfig& config) {
    std::vector<std::pair<std::string, Shape>> out;
    const ModelWeights w = skeleton(config);
    visit_tensors(config, w, [&](const std::string& name, const Shape& shape, const auto&) {
        out.emplace_back(name, shape);
    });
    return out;
}

std::vector<NamedTensor> to_state_dict(const ModelConfig& config, const ModelWeights& weights) {
    // The structure must be the one the config implies, or names would be wrong.
    const ModelWeights expected = skeleton(config);
    for (const EncoderLayerWeights& l : weights.layers)
        if (l.post_attn_norm.has_value() != config.sandwich_norm || l.post_ffn_norm.has_value() != config.sandwich_norm)
            throw Error(std::string("The weights do not match the config: sandwich norms ") +
                        (config.sandwich_norm ? "missing" : "present, but the config has none"));
    if (weights.layers.size() != expected.layers.size() ||
        weights.decoder_layers.size() != expected.decoder_layers.size() ||
        weights.final_norm.has_value() != expected.final_norm.has_value() ||
        weights.decoder_final_norm.has_value() != expected.decoder_final_norm.has_value())
        throw Error("The weights do not match the config: " +
                    std::to_string(weights.layers.size()) + " + " +
                    std::to_string(weights.decoder_layers.size()) +
                    " layers and final norms " + (weights.final_norm ? "present" : "absent") +
                    ", but the config needs " + std::to_string(expected.layers.size()) + " + " +
                    std::to_string(expected.decoder_layers.size()) + " layers and final norms " +
                    (expected.final_norm ? "present" : "absent") + "");

    std::vector<NamedTensor> out;
    visit_tensors(config, weights, [&](const std::string& name, const Shape& shape, const auto& t) {
        const Shape actual = tensor_shape(t);
        if (actual != shape)
            throw Error("The weights do not match the config: " + name + " has shape " +
                        shape_string(actual) + ", expected " + shape_string(shape) + "");
        // Row-major storage (Matrix is RowMajor; a Vector is contiguous), as PyTorch lays it out.
        out.push_back({name, shape, std::vector<float>(t.data(), t.data() + t.size())});
    });
    return out;
}

void require_finite_tensor(const float* values, std::int64_t n, const Shape& shape, const std::string& name,
                           const std::string& what) {
    const std::int64_t i = kernels::first_not_finite(values, n);
    if (i == n) return;
    // Row-major matrices: element i is [i / columns, i % columns].
    const std::string where = shape.size() == 2
                                  ? "[" + std::to_string(i / shape[1]) + ", " + std::to_string(i % shape[1]) + "]"
                                  : "[" + std::to_string(i) + "]";
    throw Error(what + ": tensor " + name + " " + not_finite_weight(values[i], where + " (of " + std::to_string(n) + " values)"));
}

std::string not_finite_weight(float value, const std::string& at) {
    return std::string("holds ") + (std::isnan(value) ? "NaN" : value > 0 ? "+inf" : "-inf") + " at " + at +
           "; weights that are not finite numbers give NaN or empty attention maps, so HeadScope does not run "
           "the model (the file is damaged, or was saved from a training run that diverged)";
}

void require_finite_weights(const ModelConfig& config, const ModelWeights& weights, const std::string& what) {
    visit_tensors(config, weights, [&](const std::string& name, const Shape& shape, const auto& t) {
        require_finite_tensor(t.data(), t.size(), shape, name, what);
    });
}

ModelWeights from_safetensors(const ModelConfig& config, const SafetensorsFile& file) {
    const auto expected = expected_tensors(config);

    // 1. Every expected tensor present.
    std::vector<std::string> missing;
    std::set<std::string> expected_names;
    for (const auto& [name, shape] : expected) {
        expected_names.insert(name);
        if (!file.has(name)) missing.push_back(name);
    }
    if (!missing.empty())
        throw Error(file.path() + " is missing " + std::to_string(missing.size()) +
                    (missing.size() == 1 ? " tensor" : " tensors") +
                    " this config needs: " + first_names(missing) + "");

    // 2. With the expected shapes.
    for (const auto& [name, shape] : expected) {
        const Shape& actual = file.info(name).shape;
        if (actual != shape)
            throw Error(file.path() + ": " + name + " has shape " + shape_string(actual) +
                        ", expected " + shape_string(shape) + "");
    }

    // 3. Nothing else (a leftover tensor usually means the config is not this model's).
    std::vector<std::string> extra;
    for (const auto& [name, info] : file.tensors())
        if (!expected_names.count(name)) extra.push_back(name);
    if (!extra.empty())
        throw Error(file.path() + " has " + std::to_string(extra.size()) +
                    (extra.size() == 1 ? " tensor" : " tensors") +
                    " this config does not use: " + first_names(extra) + "");

    // 4. Read (f16/bf16 converted to f32 by the file).
    ModelWeights w = skeleton(config);
    visit_tensors(config, w, [&](const std::string& name, const Shape&, auto& t) {
        if constexpr (std::is_same_v<std::decay_t<decltype(t)>, Vector>) t = file.vector(name);
        else t = file.matrix(name);
    });
    return w;
}

}  // namespace hs
