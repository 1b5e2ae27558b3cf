#include "core/model/weights.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <utility>

#include "core/kernels/parallel.h"
#include "core/rng.h"

namespace hs {

namespace {

// Each tensor gets its own stream, seeded by (model seed, tensor name): changing the
// number of layers keeps the weights of the layers that remain, and changing the head
// count (which does not change any shape) keeps every weight, so views stay comparable.
// Independent streams also let init_weights fill the tensors in parallel with the same
// values as one after the other.
std::uint64_t tensor_key(std::uint64_t seed, const std::string& name) {
    std::uint64_t h = 1469598103934665603ULL;  // FNV-1a over the name
    for (unsigned char ch : name) h = (h ^ ch) * 1099511628211ULL;
    return seed * 0x9E3779B97F4A7C15ULL ^ h;
}

// The fills init_weights runs, each independent of the others (parallel_for).
using Jobs = std::vector<std::function<void()>>;

// data[0..n) filled by fill(part, count, first) — a counter-based fill writing elements
// first .. first + count − 1 — in jobs of up to per_job elements (the values do not
// depend on the split).
template <typename Fill>
void split_fill(Jobs& jobs, float* data, std::size_t n, std::size_t per_job, Fill fill) {
    for (std::size_t first = 0; first < n; first += per_job) {
        const std::size_t count = std::min(per_job, n - first);
        jobs.push_back([=] { fill(data + first, count, first); });
    }
}

// data[0..n) uniform in ±bound: numbers stream_first … stream_first + n − 1 of
// fill_uniform_counter with the tensor's key.
void uniform_fill(Jobs& jobs, std::uint64_t key, float* data, std::size_t n, float bound,
                  std::size_t stream_first = 0) {
    split_fill(jobs, data, n, std::size_t{1} << 18,
               [key, bound, stream_first](float* part, std::size_t count, std::size_t first) {
                   fill_uniform_counter(part, count, key, stream_first + first, bound);
               });
}

// m: (rows, cols) uniform in ±bound, row-major.
void uniform_matrix(Jobs& jobs, std::uint64_t seed, const std::string& name, Matrix& m, int rows,
                    int cols, float bound) {
    m.resize(rows, cols);
    uniform_fill(jobs, tensor_key(seed, name), m.data(), static_cast<std::size_t>(m.size()), bound);
}

void uniform_vector(Jobs& jobs, std::uint64_t seed, const std::string& name, Vector& v, int n,
                    float bound) {
    v.resize(n);
    uniform_fill(jobs, tensor_key(seed, name), v.data(), static_cast<std::size_t>(v.size()), bound);
}

// m: (rows, cols) N(0, 1), row-major: fill_normal_counter with the tensor's key (smaller
// jobs than the uniforms: a normal costs ~7× more).
void normal_matrix(Jobs& jobs, std::uint64_t seed, const std::string& name, Matrix& m, int rows,
                   int cols) {
    m.resize(rows, cols);
    const std::uint64_t key = tensor_key(seed, name);
    split_fill(jobs, m.data(), static_cast<std::size_t>(m.size()), std::size_t{1} << 16,
               [key](float* part, std::size_t count, std::size_t first) { fill_normal_counter(part, count, key, first); });
}

// nn.MultiheadAttention._reset_parameters: xavier_uniform on in_proj_weight (3I, D),
// bound √(6 / (fan_in + fan_out)) = √(6 / (D + 3I)); out_proj is a Linear whose weight is
// kaiming_uniform(a=√5), bound 1/√I; both biases zero (or absent).
// Grouped-query attention (Ikv < I) keeps W_Q and draws K/V head g as plain multi-head
// attention draws K/V head g: rows [0, I + Ikv) are the stream's first (I + Ikv)·D numbers
// (W_Q, then the first Ikv rows of W_K), V's Ikv rows start at number 2I·D, where plain
// attention's W_V does. So changing kv_heads changes which heads share K and V and nothing
// else (the scale of the whole (I + 2·Ikv, D) matrix used to change W_Q's numbers too).
void init_attention(Jobs& jobs, const ModelConfig& c, const std::string& prefix,
                    AttentionWeights& w) {
    const int D = c.d_model, I = c.inner(), Ikv = c.kv_head_count() * c.d_h(), R = I + 2 * Ikv;
    w.heads = c.heads;
    w.kv_heads = c.kv_heads;
    const float bound = std::sqrt(6.0f / float(D + 3 * I));
    const std::uint64_t key = tensor_key(c.seed, prefix + "in_proj_weight");
    w.in_proj_weight.resize(R, D);
    const auto QK = static_cast<std::size_t>(I + Ikv) * D, V = static_cast<std::size_t>(Ikv) * D;
    uniform_fill(jobs, key, w.in_proj_weight.data(), QK, bound);
    uniform_fill(jobs, key, w.in_proj_weight.data() + QK, V, bound, static_cast<std::size_t>(2 * I) * D);
    w.in_proj_bias = c.qkv_bias ? Vector(Vector::Zero(R)) : Vector();
    uniform_matrix(jobs, c.seed, prefix + "out_proj.weight", w.out_proj_weight, D, I,
                   1.0f / std::sqrt(float(I)));
    w.out_proj_bias = c.out_bias ? Vector(Vector::Zero(D)) : Vector();
}

// QK-norm's γ of a self-attention block: ones, as an RMSNorm starts.
void init_qk_norm(const ModelConfig& c, AttentionWeights& w) {
    if (!c.qk_norm) return;
    w.q_norm = Vector::Ones(c.d_h());
    w.k_norm = Vector::Ones(c.d_h());
}

// nn.Linear: weight and bias uniform in ±1/√in_features. SwiGLU and GeGLU add the gate, a Linear
// of the same shape as linear1.
void init_ffn(Jobs& jobs, const ModelConfig& c, const std::string& prefix, FeedForwardWeights& w) {
    const int D = c.d_model, F = c.d_ff;
    const float b1 = 1.0f / std::sqrt(float(D)), b2 = 1.0f / std::sqrt(float(F));
    uniform_matrix(jobs, c.seed, prefix + "linear1.weight", w.linear1_weight, F, D, b1);
    uniform_matrix(jobs, c.seed, prefix + "linear2.weight", w.linear2_weight, D, F, b2);
    if (c.mlp_bias) {
        uniform_vector(jobs, c.seed, prefix + "linear1.bias", w.linear1_bias, F, b1);
        uniform_vector(jobs, c.seed, prefix + "linear2.bias", w.linear2_bias, D, b2);
    }
    if (!is_gated(c.activation)) return;
    uniform_matrix(jobs, c.seed, prefix + "gate.weight", w.gate_weight, F, D, b1);
    if (c.mlp_bias) uniform_vector(jobs, c.seed, prefix + "gate.bias", w.gate_bias, F, b1);
}

// nn.LayerNorm: γ = 1, β = 0; RMSNorm: γ = 1 and no β.
LayerNormWeights init_norm(const ModelConfig& c) {
    const int D = c.d_model;
    if (c.norm_kind == NormKind::RMSNorm) return {Vector::Ones(D), Vector()};
    return {Vector::Ones(D), Vector::Zero(D)};
}

}  // namespace

bool has_final_norm(const ModelConfig& config) {
    return config.arch == Arch::EncoderDecoder || config.norm == NormPlacement::PreLN;
}

// Shapes are allocated here, serially; the fills (jobs of 2¹⁸ uniform or 2¹⁶ normal
// elements) then run on the pool. Every job writes only its own tensor from
// its own stream, so the values do not depend on the thread count or order.
ModelWeights init_weights(const ModelConfig& c) {
    ModelWeights w;
    Jobs jobs;
    const int D = c.d_model;
    const bool enc_dec = c.arch == Arch::EncoderDecoder;
    const std::string enc_prefix = enc_dec ? "encoder.layers." : "layers.";
    w.layers.resize(static_cast<std::size_t>(c.layers));
    for (int il = 0; il < c.layers; ++il) {
        const std::string p = enc_prefix + std::to_string(il) + ".";
        EncoderLayerWeights& l = w.layers[static_cast<std::size_t>(il)];
        init_attention(jobs, c, p + "self_attn.", l.self_attn);
        init_qk_norm(c, l.self_attn);
        init_ffn(jobs, c, p, l.ffn);
        l.norm1 = init_norm(c);
        l.norm2 = init_norm(c);
        if (c.sandwich_norm) {
            l.post_attn_norm = init_norm(c);
            l.post_ffn_norm = init_norm(c);
        }
    }
    if (enc_dec) {
        w.decoder_layers.resize(static_cast<std::size_t>(c.layers));
        for (int il = 0; il < c.layers; ++il) {
            const std::string p = "decoder.layers." + std::to_string(il) + ".";
            DecoderLayerWeights& l = w.decoder_layers[static_cast<std::size_t>(il)];
            init_attention(jobs, c, p + "self_attn.", l.self_attn);
            init_qk_norm(c, l.self_attn);
            init_attention(jobs, c, p + "multihead_attn.", l.cross_attn);
            init_ffn(jobs, c, p, l.ffn);
            l.norm1 = init_norm(c);
            l.norm2 = init_norm(c);
            l.norm3 = init_norm(c);
        }
        w.decoder_final_norm = init_norm(c);
    }
    // The embedding last: its many small jobs balance the pool's threads at the end.
    normal_matrix(jobs, c.seed, "embed.weight", w.embed, c.vocab, D);  // nn.Embedding: N(0, 1)
    if (c.pe == PosEncoding::Learned)
        normal_matrix(jobs, c.seed, "pos_embed.weight", w.pos_embed, c.max_len, D);
    if (c.type_vocab > 0)
        normal_matrix(jobs, c.seed, "type_embed.weight", w.type_embed, c.type_vocab, D);
    if (c.embed_norm) w.embed_norm = init_norm(c);
    if (c.lm_head == LmHead::Separate)  // nn.Linear(D, V, bias=False)
        uniform_matrix(jobs, c.seed, "lm_head.weight", w.lm_head, c.vocab, D, 1.0f / std::sqrt(float(D)));
    if (has_final_norm(c)) w.final_norm = init_norm(c);
    parallel_for(static_cast<int>(jobs.size()), [&](int i) { jobs[static_cast<std::size_t>(i)](); });
    return w;
}

}  // namespace hs
