#include "core/train/attention_grad.h"

#include <cmath>

#include "core/error.h"
#include "core/train/linear_grad.h"
#include "core/train/norm_grad.h"

namespace hs::train {

namespace {

struct Shape {
    int H, Hkv, Dh, I, Ikv, group;  // group = H / Hkv query heads per K/V head
};

Shape shape_of(const ModelConfig& c) {
    const int H = c.heads, Hkv = c.kv_head_count(), Dh = c.d_h();
    return {H, Hkv, Dh, H * Dh, Hkv * Dh, H / Hkv};
}

// Entries [start, start + n) of a bias, or the empty bias of a model without biases.
VectorView part(Vector& b, Eigen::Index start, Eigen::Index n) {
    return b.size() > 0 ? VectorView(b.segment(start, n)) : VectorView(b);
}

// QK-norm's backward: every head's row of Q and K went through an RMSNorm over its Dh
// entries with γ_q, γ_k (the same for every head), so each (T, Dh) block of dQ and dK goes
// back through norm_backward with the block's input, the projection before the norm
// (qkv: (T, I + 2·Ikv)); dγ sums over the heads.
void qk_norm_backward(const AttentionWeights& w, const ModelConfig& config, const Shape& s, const Matrix& qkv,
                      Eigen::Ref<Matrix> dq, Eigen::Ref<Matrix> dk, AttentionWeights& grad) {
    ModelConfig rms = config;
    rms.norm_kind = NormKind::RMSNorm;
    // one projection: its heads' (T, Dh) blocks start at column first_col of qkv
    auto backward_heads = [&](Eigen::Ref<Matrix> d, int heads, Eigen::Index first_col, const Vector& gamma,
                              Vector& dgamma) {
        const LayerNormWeights norm{gamma, Vector()};
        LayerNormWeights dnorm{Vector::Zero(s.Dh), Vector()};
        for (int h = 0; h < heads; ++h)
            d.middleCols(h * s.Dh, s.Dh) = norm_backward(Matrix(d.middleCols(h * s.Dh, s.Dh)), norm, rms,
                                                         Matrix(qkv.middleCols(first_col + h * s.Dh, s.Dh)), dnorm);
        dgamma += dnorm.weight;
    };
    backward_heads(dq, s.H, 0, w.q_norm, grad.q_norm);
    backward_heads(dk, s.Hkv, s.I, w.k_norm, grad.k_norm);
}

}  // namespace

Matrix attention_backward(const Matrix& dout, const AttentionWeights& w, const ModelConfig& config,
                          const std::optional<Rotary>& rope, const AttentionActivations& saved, AttentionWeights& grad,
                          const Matrix* memory, Matrix* dmemory) {
    const Shape s = shape_of(config);
    const bool cross = memory != nullptr;
    if (cross && !dmemory) throw Error("attention_backward: cross-attention needs somewhere to put dM");
    const Eigen::Index T = dout.rows(), S = saved.k.rows();
    const float scale = config.score_scale(), cap = config.attn_softcap;
    // out = concat·W_oᵀ + b_o
    const Matrix dconcat =
        linear_backward(dout, saved.concat, w.out_proj_weight, grad.out_proj_weight, grad.out_proj_bias);  // (T, I)
    Matrix dq = Matrix::Zero(T, s.I), dkv = Matrix::Zero(S, 2 * s.Ikv);
    auto dk = dkv.leftCols(s.Ikv);
    auto dv = dkv.rightCols(s.Ikv);
    for (int h = 0; h < s.H; ++h) {
        const int g = h / s.group;
        const Matrix& p = saved.probs[static_cast<std::size_t>(h)];
        const auto d_head = dconcat.middleCols(h * s.Dh, s.Dh);  // dO_h (T, Dh)
        dv.middleCols(g * s.Dh, s.Dh).noalias() += p.transpose() * d_head;
        const Matrix dp = d_head * saved.v.middleCols(g * s.Dh, s.Dh).transpose();  // (T, S)
        // softmax backward per row; masked entries have p = 0 and get 0
        const Vector dot = (dp.array() * p.array()).rowwise().sum();
        Matrix ds = (p.array() * (dp.array().colwise() - dot.array())).matrix();  // d(capped scores)
        if (cap > 0.0f) {
            // S = cap · tanh(u), u = Q_h K_gᵀ · scale / cap (recomputed): dS/du = cap · (1 − tanh²u)
            const Matrix u = saved.q.middleCols(h * s.Dh, s.Dh) * saved.k.middleCols(g * s.Dh, s.Dh).transpose() *
                             (scale / cap);
            ds.array() *= 1.0f - u.array().tanh().square();
        }
        ds *= scale;
        dq.middleCols(h * s.Dh, s.Dh).noalias() += ds * saved.k.middleCols(g * s.Dh, s.Dh);
        dk.middleCols(g * s.Dh, s.Dh).noalias() += ds.transpose() * saved.q.middleCols(h * s.Dh, s.Dh);
    }
    if (rope && !cross) {  // the rotation's transpose: the same pairs turned by −angle
        const RopeTable back{rope->table.cos, -rope->table.sin};
        apply_rope(dq, s.H, back, rope->layout);
        apply_rope(dk, s.Hkv, back, rope->layout);
    }
    if (w.q_norm.size() && !cross) qk_norm_backward(w, config, s, saved.qkv, dq, dk, grad);
    // Q = X·W_Qᵀ + b_Q, [K | V] = M·[W_K; W_V]ᵀ + b_KV (M = X for self-attention)
    const Matrix& kv_in = cross ? *memory : saved.x;
    Matrix dx = linear_backward(dq, saved.x, w.in_proj_weight.topRows(s.I), grad.in_proj_weight.topRows(s.I),
                                part(grad.in_proj_bias, 0, s.I));
    const Matrix dkv_in =
        linear_backward(dkv, kv_in, w.in_proj_weight.bottomRows(2 * s.Ikv), grad.in_proj_weight.bottomRows(2 * s.Ikv),
                        part(grad.in_proj_bias, s.I, 2 * s.Ikv));
    if (cross) *dmemory += dkv_in;
    else dx += dkv_in;
    return dx;
}

}  // namespace hs::train
