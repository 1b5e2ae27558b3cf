#include "core/pretrained/gqa_attention.h"

#include <cmath>

#include "core/attention.h"
#include "core/error.h"

namespace hs {

int kv_head_of(int h, int heads, int kv_heads) {
    if (kv_heads < 1 || heads % kv_heads != 0)
        throw Error(std::to_string(heads) + " query heads cannot share " +
                    std::to_string(kv_heads) + " key/value heads evenly");
    return h / (heads / kv_heads);
}

GqaResult gqa_attention(const Matrix& q, const Matrix& k, const Matrix& v, int heads,
                        int kv_heads, bool causal, bool want_weights, bool want_scores,
                        AttentionSteps* steps, const std::vector<int>& ablated,
                        AblationMode ablate_mode) {
    const int T = static_cast<int>(q.rows()), S = static_cast<int>(k.rows());
    const int Dh = static_cast<int>(q.cols()) / heads;
    if (q.cols() != static_cast<Eigen::Index>(heads) * Dh ||
        k.cols() != static_cast<Eigen::Index>(kv_heads) * Dh || v.cols() != k.cols() ||
        v.rows() != S)
        throw Error("grouped-query attention: q has " + std::to_string(q.cols()) +
                    " columns for " + std::to_string(heads) + " heads but k/v have " +
                    std::to_string(k.cols()) + "/" + std::to_string(v.cols()) + " for " +
                    std::to_string(kv_heads) + " key/value heads");
    AttentionMask mask;
    mask.causal = causal;
    const float scale = 1.0f / std::sqrt(static_cast<float>(Dh));

    kv_head_of(0, heads, kv_heads);  // throws when heads do not share K/V heads evenly
    GqaResult result;
    result.concat.resize(T, static_cast<Eigen::Index>(heads) * Dh);
    if (want_weights) result.weights.resize(heads);
    if (want_scores) result.scores.resize(heads);
    if (!steps) {  // fast path: heads in parallel, A_h straight into the result
        attend_heads(q, k, v, heads, kv_heads, scale, mask, result.concat,
                     want_weights ? &result.weights : nullptr,
                     want_scores ? &result.scores : nullptr);
    } else {
        Matrix scores(T, S);
        for (int h = 0; h < heads; ++h) {
            const int g = kv_head_of(h, heads, kv_heads);
            const auto Q_h = q.middleCols(h * Dh, Dh);  // (T, Dh)
            const auto K_g = k.middleCols(g * Dh, Dh);  // (S, Dh)
            const auto V_g = v.middleCols(g * Dh, Dh);  // (S, Dh)
            // scores_h: (T, S) = Q_h K_gᵀ / √Dh (+ causal mask) -> A_h; head_h = A_h V_g
            attend_head(Q_h, K_g, V_g, scale, mask, scores,
                        result.concat.middleCols(h * Dh, Dh),
                        want_scores ? &result.scores[h] : nullptr, steps);
            if (want_weights) result.weights[h] = scores;
        }
    }
    ablate_heads(result.concat, ablated, heads, ablate_mode);
    if (steps) {
        steps->concat = result.concat;
        steps->scale = scale;
    }
    return result;
}

}  // namespace hs
