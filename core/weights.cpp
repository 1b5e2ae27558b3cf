#include "core/weights.h"

#include <cmath>
#include <string>

#include "core/rng.h"

namespace hs {

namespace {

// Each tensor gets its own stream, seeded by (model seed, tensor name): changing the
// number of layers keeps the weights of the layers that remain, and changing the head
// count (which does not change any shape) keeps every weight, so views stay comparable.
Rng tensor_rng(std::uint64_t seed, const std::string& name) {
    std::uint64_t h = 1469598103934665603ULL;  // FNV-1a over the name
    for (unsigned char ch : name) h = (h ^ ch) * 1099511628211ULL;
    return Rng(seed * 0x9E3779B97F4A7C15ULL ^ h);
}

Matrix uniform_matrix(Rng& rng, int rows, int cols, float bound) {
    Matrix m(rows, cols);
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) m(i, j) = rng.uniform(-bound, bound);
    return m;
}

Vector uniform_vector(Rng& rng, int n, float bound) {
    Vector v(n);
    for (int i = 0; i < n; ++i) v(i) = rng.uniform(-bound, bound);
    return v;
}

Matrix normal_matrix(Rng& rng, int rows, int cols) {
    Matrix m(rows, cols);
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) m(i, j) = rng.normal();
    return m;
}

// nn.MultiheadAttention._reset_parameters: xavier_uniform on in_proj_weight (3D, D),
// bound √(6 / (fan_in + fan_out)) = √(6 / (D + 3D)); out_proj is a Linear whose weight
// is kaiming_uniform(a=√5), bound 1/√D; both biases zero.
AttentionWeights init_attention(std::uint64_t seed, const std::string& prefix, int D, int heads) {
    AttentionWeights w;
    w.heads = heads;
    Rng in_rng = tensor_rng(seed, prefix + "in_proj_weight");
    w.in_proj_weight = uniform_matrix(in_rng, 3 * D, D, std::sqrt(6.0f / (4.0f * D)));
    w.in_proj_bias = Vector::Zero(3 * D);
    Rng out_rng = tensor_rng(seed, prefix + "out_proj.weight");
    w.out_proj_weight = uniform_matrix(out_rng, D, D, 1.0f / std::sqrt(float(D)));
    w.out_proj_bias = Vector::Zero(D);
    return w;
}

// nn.Linear: weight and bias uniform in ±1/√in_features.
FeedForwardWeights init_ffn(std::uint64_t seed, const std::string& prefix, int D, int d_ff) {
    FeedForwardWeights w;
    const float b1 = 1.0f / std::sqrt(float(D)), b2 = 1.0f / std::sqrt(float(d_ff));
    Rng r1 = tensor_rng(seed, prefix + "linear1.weight");
    w.linear1_weight = uniform_matrix(r1, d_ff, D, b1);
    Rng r1b = tensor_rng(seed, prefix + "linear1.bias");
    w.linear1_bias = uniform_vector(r1b, d_ff, b1);
    Rng r2 = tensor_rng(seed, prefix + "linear2.weight");
    w.linear2_weight = uniform_matrix(r2, D, d_ff, b2);
    Rng r2b = tensor_rng(seed, prefix + "linear2.bias");
    w.linear2_bias = uniform_vector(r2b, D, b2);
    return w;
}

// nn.LayerNorm: γ = 1, β = 0.
LayerNormWeights init_norm(int D) { return {Vector::Ones(D), Vector::Zero(D)}; }

}  // namespace

bool has_final_norm(const ModelConfig& config) {
    return config.arch == Arch::EncoderDecoder || config.norm == NormPlacement::PreLN;
}

ModelWeights init_weights(const ModelConfig& c) {
    ModelWeights w;
    const int D = c.d_model;
    Rng embed_rng = tensor_rng(c.seed, "embed.weight");
    w.embed = normal_matrix(embed_rng, c.vocab, D);  // nn.Embedding: N(0, 1)
    if (c.pe == PosEncoding::Learned) {
        Rng pos_rng = tensor_rng(c.seed, "pos_embed.weight");
        w.pos_embed = normal_matrix(pos_rng, c.max_len, D);
    }
    const bool enc_dec = c.arch == Arch::EncoderDecoder;
    const std::string enc_prefix = enc_dec ? "encoder.layers." : "layers.";
    for (int il = 0; il < c.layers; ++il) {
        const std::string p = enc_prefix + std::to_string(il) + ".";
        w.layers.push_back({init_attention(c.seed, p + "self_attn.", D, c.heads),
                            init_ffn(c.seed, p, D, c.d_ff), init_norm(D), init_norm(D)});
    }
    if (enc_dec) {
        for (int il = 0; il < c.layers; ++il) {
            const std::string p = "decoder.layers." + std::to_string(il) + ".";
            w.decoder_layers.push_back({init_attention(c.seed, p + "self_attn.", D, c.heads),
                                        init_attention(c.seed, p + "multihead_attn.", D, c.heads),
                                        init_ffn(c.seed, p, D, c.d_ff), init_norm(D),
                                        init_norm(D), init_norm(D)});
        }
        w.decoder_final_norm = init_norm(D);
    }
    if (has_final_norm(c)) w.final_norm = init_norm(D);
    return w;
}

namespace {

std::shared_ptr<const gemm::PackedWeights> packed(const Matrix& w) {
    return std::make_shared<const gemm::PackedWeights>(
        gemm::pack(w.data(), static_cast<int>(w.rows()), static_cast<int>(w.cols()),
                   static_cast<int>(w.cols())));
}

void pack_attention(AttentionWeights& a) {
    a.in_proj_packed = packed(a.in_proj_weight);
    a.out_proj_packed = packed(a.out_proj_weight);
}

void pack_ffn(FeedForwardWeights& f) {
    f.linear1_packed = packed(f.linear1_weight);
    f.linear2_packed = packed(f.linear2_weight);
}

}  // namespace

void pack_for_inference(ModelWeights& weights) {
    if (!gemm::vectorised()) return;
    for (auto& l : weights.layers) {
        pack_attention(l.self_attn);
        pack_ffn(l.ffn);
    }
    for (auto& l : weights.decoder_layers) {
        pack_attention(l.self_attn);
        pack_attention(l.cross_attn);
        pack_ffn(l.ffn);
    }
}

}  // namespace hs
