#include "core/pretrained/gqa_attention.h"

#include <cmath>
#include <limits>

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
                        AttentionSteps* steps) {
    const int T = static_cast<int>(q.rows()), S = static_cast<int>(k.rows());
    const int Dh = static_cast<int>(q.cols()) / heads;
    if (q.cols() != static_cast<Eigen::Index>(heads) * Dh ||
        k.cols() != static_cast<Eigen::Index>(kv_heads) * Dh || v.cols() != k.cols() ||
        v.rows() != S)
        throw Error("grouped-query attention: q has " + std::to_string(q.cols()) +
                    " columns for " + std::to_string(heads) + " heads but k/v have " +
                    std::to_string(k.cols()) + "/" + std::to_string(v.cols()) + " for " +
                    std::to_string(kv_heads) + " key/value heads");
    constexpr float kNegInf = -std::numeric_limits<float>::infinity();
    const float scale = 1.0f / std::sqrt(static_cast<float>(Dh));

    GqaResult result;
    result.concat.resize(T, static_cast<Eigen::Index>(heads) * Dh);
    if (want_weights) result.weights.resize(heads);
    if (want_scores) result.scores.resize(heads);
    Matrix scores(T, S);
    for (int h = 0; h < heads; ++h) {
        const int g = kv_head_of(h, heads, kv_heads);
        const auto Q_h = q.middleCols(h * Dh, Dh);  // (T, Dh)
        const auto K_g = k.middleCols(g * Dh, Dh);  // (S, Dh)
        const auto V_g = v.middleCols(g * Dh, Dh);  // (S, Dh)
        // scores_h: (T, S) = Q_h K_gᵀ / √Dh
        scores.noalias() = Q_h * K_g.transpose();
        if (steps) steps->raw_scores.push_back(scores);
        scores *= scale;
        if (steps) steps->scaled_scores.push_back(scores);
        if (want_scores) result.scores[h] = scores;
        if (causal)  // key j > query i is the future: −∞ strictly above the diagonal
            scores.triangularView<Eigen::StrictlyUpper>().setConstant(kNegInf);
        if (steps) steps->masked_scores.push_back(scores);
        softmax_rows(scores);  // A_h: (T, S); a fully masked row stays zeros
        // head_h: (T, Dh) = A_h V_g, written into its concat block
        result.concat.middleCols(h * Dh, Dh).noalias() = scores * V_g;
        if (want_weights) result.weights[h] = scores;
        if (steps) {
            steps->weights.push_back(scores);
            steps->q_heads.push_back(Q_h);
            steps->k_heads.push_back(K_g);
            steps->v_heads.push_back(V_g);
            steps->head_outputs.push_back(result.concat.middleCols(h * Dh, Dh));
        }
    }
    if (steps) {
        steps->concat = result.concat;
        steps->scale = scale;
    }
    return result;
}

}  // namespace hs
