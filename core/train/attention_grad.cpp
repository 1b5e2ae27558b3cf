#include "core/train/attention_grad.h"

#include <cmath>
#include <limits>

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

Matrix attention_forward(const Matrix& x, const AttentionWeights& w, const ModelConfig& config,
                         const std::optional<Rotary>& rope, AttentionCache& cache) {
    const Shape s = shape_of(config);
    const Eigen::Index T = x.rows();
    const float scale = 1.0f / std::sqrt(static_cast<float>(s.Dh));
    cache.x = x;
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
    const bool causal = config.mask == MaskKind::Causal;
    cache.probs.assign(static_cast<std::size_t>(s.H), Matrix());
    cache.concat.resize(T, s.I);
    for (int h = 0; h < s.H; ++h) {
        const int g = h / s.group;
        // scores: (T, T) = Q_h K_gᵀ / √Dh, then the mask, then softmax per row
        Matrix p = cache.q.middleCols(h * s.Dh, s.Dh) * cache.k.middleCols(g * s.Dh, s.Dh).transpose() * scale;
        for (Eigen::Index t = 0; t < T; ++t) {
            const Eigen::Index visible = causal ? t + 1 : T;
            auto row = p.row(t);
            const float m = row.head(visible).maxCoeff();
            row.head(visible) = (row.head(visible).array() - m).exp().matrix();
            row.head(visible) /= row.head(visible).sum();
            row.tail(T - visible).setZero();
        }
        cache.concat.middleCols(h * s.Dh, s.Dh) = p * cache.v.middleCols(g * s.Dh, s.Dh);
        cache.probs[static_cast<std::size_t>(h)] = std::move(p);
    }
    Matrix out = cache.concat * w.out_proj_weight.transpose();
    if (w.out_proj_bias.size() > 0) out.rowwise() += w.out_proj_bias.transpose();
    return out;
}

Matrix attention_backward(const Matrix& dout, const AttentionWeights& w, const ModelConfig& config,
                          const std::optional<Rotary>& rope, const AttentionCache& cache, AttentionWeights& grad) {
    const Shape s = shape_of(config);
    const Eigen::Index T = dout.rows();
    const float scale = 1.0f / std::sqrt(static_cast<float>(s.Dh));
    // out = concat·W_oᵀ + b_o
    grad.out_proj_weight.noalias() += dout.transpose() * cache.concat;
    if (grad.out_proj_bias.size() > 0) grad.out_proj_bias += dout.colwise().sum().transpose();
    const Matrix dconcat = dout * w.out_proj_weight;  // (T, I)
    Matrix dqkv = Matrix::Zero(T, s.I + 2 * s.Ikv);
    auto dq = dqkv.leftCols(s.I);
    auto dk = dqkv.middleCols(s.I, s.Ikv);
    auto dv = dqkv.rightCols(s.Ikv);
    for (int h = 0; h < s.H; ++h) {
        const int g = h / s.group;
        const Matrix& p = cache.probs[static_cast<std::size_t>(h)];
        const auto d_head = dconcat.middleCols(h * s.Dh, s.Dh);  // dO_h (T, Dh)
        dv.middleCols(g * s.Dh, s.Dh).noalias() += p.transpose() * d_head;
        const Matrix dp = d_head * cache.v.middleCols(g * s.Dh, s.Dh).transpose();  // (T, T)
        // softmax backward per row; masked entries have p = 0 and get 0
        const Vector dot = (dp.array() * p.array()).rowwise().sum();
        const Matrix ds = (p.array() * (dp.array().colwise() - dot.array())).matrix() * scale;
        dq.middleCols(h * s.Dh, s.Dh).noalias() += ds * cache.k.middleCols(g * s.Dh, s.Dh);
        dk.middleCols(g * s.Dh, s.Dh).noalias() += ds.transpose() * cache.q.middleCols(h * s.Dh, s.Dh);
    }
    if (rope) {  // the rotation's transpose: the same pairs turned by −angle
        const RopeTable back{rope->table.cos, -rope->table.sin};
        apply_rope(dq, s.H, back, rope->layout);
        apply_rope(dk, s.Hkv, back, rope->layout);
    }
    grad.in_proj_weight.noalias() += dqkv.transpose() * cache.x;
    if (grad.in_proj_bias.size() > 0) grad.in_proj_bias += dqkv.colwise().sum().transpose();
    return dqkv * w.in_proj_weight;
}

}  // namespace hs::train
