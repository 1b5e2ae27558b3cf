#include "core/train/attention_grad.h"

#include <cmath>

#include "core/error.h"

namespace hs::train {

namespace {

struct Shape {
    int H, Hkv, Dh, I, Ikv, group;  // group = H / Hkv query heads per K/V head
};

Shape shape_of(const ModelConfig& c) {
    const int H = c.heads, Hkv = c.kv_head_count(), Dh = c.d_k();
    return {H, Hkv, Dh, H * Dh, Hkv * Dh, H / Hkv};
}

}  // namespace

Matrix attention_forward(const Matrix& x, const Matrix* memory, const AttentionWeights& w, const ModelConfig& config,
                         const std::optional<Rotary>& rope, bool causal, AttentionCache& cache) {
    const Shape s = shape_of(config);
    const Eigen::Index T = x.rows();
    const float scale = 1.0f / std::sqrt(static_cast<float>(s.Dh));
    cache.x = x;
    if (memory) {
        cache.memory = *memory;
        // Q: (T, I) = X·W_Qᵀ + b_Q; [K | V]: (S, 2·Ikv) = M·[W_K; W_V]ᵀ + b_KV
        cache.q = x * w.in_proj_weight.topRows(s.I).transpose();
        Matrix kv = *memory * w.in_proj_weight.bottomRows(2 * s.Ikv).transpose();
        if (w.in_proj_bias.size() > 0) {
            cache.q.rowwise() += w.in_proj_bias.head(s.I).transpose();
            kv.rowwise() += w.in_proj_bias.tail(2 * s.Ikv).transpose();
        }
        cache.k = kv.leftCols(s.Ikv);
        cache.v = kv.rightCols(s.Ikv);
    } else {
        cache.memory.resize(0, 0);
        // qkv: (T, I + 2·Ikv) = X·W_inᵀ + b_in
        Matrix qkv = x * w.in_proj_weight.transpose();
        if (w.in_proj_bias.size() > 0) qkv.rowwise() += w.in_proj_bias.transpose();
        cache.q = qkv.leftCols(s.I);
        cache.k = qkv.middleCols(s.I, s.Ikv);
        cache.v = qkv.rightCols(s.Ikv);
        if (rope) {
            apply_rope(cache.q, s.H, rope->table, rope->layout);
            apply_rope(cache.k, s.Hkv, rope->table, rope->layout);
        }
    }
    const Eigen::Index S = cache.k.rows();
    cache.probs.assign(static_cast<std::size_t>(s.H), Matrix());
    cache.concat.resize(T, s.I);
    for (int h = 0; h < s.H; ++h) {
        const int g = h / s.group;
        // scores: (T, S) = Q_h K_gᵀ / √Dh, then the mask, then softmax per row
        Matrix p = cache.q.middleCols(h * s.Dh, s.Dh) * cache.k.middleCols(g * s.Dh, s.Dh).transpose() * scale;
        for (Eigen::Index t = 0; t < T; ++t) {
            const Eigen::Index visible = causal ? std::min(t + 1, S) : S;
            auto row = p.row(t);
            const float m = row.head(visible).maxCoeff();
            row.head(visible) = (row.head(visible).array() - m).exp().matrix();
            row.head(visible) /= row.head(visible).sum();
            row.tail(S - visible).setZero();
        }
        cache.concat.middleCols(h * s.Dh, s.Dh) = p * cache.v.middleCols(g * s.Dh, s.Dh);
        cache.probs[static_cast<std::size_t>(h)] = std::move(p);
    }
    Matrix out = cache.concat * w.out_proj_weight.transpose();
    if (w.out_proj_bias.size() > 0) out.rowwise() += w.out_proj_bias.transpose();
    return out;
}

Matrix attention_backward(const Matrix& dout, const AttentionWeights& w, const ModelConfig& config,
                          const std::optional<Rotary>& rope, const AttentionCache& cache, AttentionWeights& grad,
                          Matrix* dmemory) {
    const Shape s = shape_of(config);
    const bool cross = cache.memory.size() > 0;
    if (cross && !dmemory) throw Error("attention_backward: cross-attention needs somewhere to put dM");
    const Eigen::Index T = dout.rows(), S = cache.k.rows();
    const float scale = 1.0f / std::sqrt(static_cast<float>(s.Dh));
    // out = concat·W_oᵀ + b_o
    grad.out_proj_weight.noalias() += dout.transpose() * cache.concat;
    if (grad.out_proj_bias.size() > 0) grad.out_proj_bias += dout.colwise().sum().transpose();
    const Matrix dconcat = dout * w.out_proj_weight;  // (T, I)
    Matrix dq = Matrix::Zero(T, s.I), dkv = Matrix::Zero(S, 2 * s.Ikv);
    auto dk = dkv.leftCols(s.Ikv);
    auto dv = dkv.rightCols(s.Ikv);
    for (int h = 0; h < s.H; ++h) {
        const int g = h / s.group;
        const Matrix& p = cache.probs[static_cast<std::size_t>(h)];
        const auto d_head = dconcat.middleCols(h * s.Dh, s.Dh);  // dO_h (T, Dh)
        dv.middleCols(g * s.Dh, s.Dh).noalias() += p.transpose() * d_head;
        const Matrix dp = d_head * cache.v.middleCols(g * s.Dh, s.Dh).transpose();  // (T, S)
        // softmax backward per row; masked entries have p = 0 and get 0
        const Vector dot = (dp.array() * p.array()).rowwise().sum();
        const Matrix ds = (p.array() * (dp.array().colwise() - dot.array())).matrix() * scale;
        dq.middleCols(h * s.Dh, s.Dh).noalias() += ds * cache.k.middleCols(g * s.Dh, s.Dh);
        dk.middleCols(g * s.Dh, s.Dh).noalias() += ds.transpose() * cache.q.middleCols(h * s.Dh, s.Dh);
    }
    if (rope && !cross) {  // the rotation's transpose: the same pairs turned by −angle
        const RopeTable back{rope->table.cos, -rope->table.sin};
        apply_rope(dq, s.H, back, rope->layout);
        apply_rope(dk, s.Hkv, back, rope->layout);
    }
    const Matrix& kv_in = cross ? cache.memory : cache.x;
    grad.in_proj_weight.topRows(s.I).noalias() += dq.transpose() * cache.x;
    grad.in_proj_weight.bottomRows(2 * s.Ikv).noalias() += dkv.transpose() * kv_in;
    if (grad.in_proj_bias.size() > 0) {
        grad.in_proj_bias.head(s.I) += dq.colwise().sum().transpose();
        grad.in_proj_bias.tail(2 * s.Ikv) += dkv.colwise().sum().transpose();
    }
    Matrix dx = dq * w.in_proj_weight.topRows(s.I);
    const Matrix dkv_in = dkv * w.in_proj_weight.bottomRows(2 * s.Ikv);
    if (cross) *dmemory += dkv_in;
    else dx += dkv_in;
    return dx;
}

}  // namespace hs::train
