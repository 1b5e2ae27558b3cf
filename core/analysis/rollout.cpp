#include "core/analysis/rollout.h"

#include "core/analysis/head_metrics.h"
#include "core/error.h"

namespace hs {

Matrix rollout_layer(const std::vector<Matrix>& head_maps) {
    if (head_maps.empty()) throw Error("attention rollout needs the layer's per-head weights, but there are none");
    const Eigen::Index T = head_maps.front().rows();
    Matrix mean = Matrix::Zero(T, T);
    for (const Matrix& A : head_maps) {
        if (A.rows() != T || A.cols() != T)
            throw Error("attention rollout needs square self-attention maps, got " +
                        std::to_string(A.rows()) + "×" + std::to_string(A.cols()));
        mean += A;
    }
    // Â = rownorm(mean_h A + I)
    Matrix a_hat = mean / static_cast<float>(head_maps.size()) + Matrix::Identity(T, T);
    for (Eigen::Index i = 0; i < T; ++i) a_hat.row(i) /= a_hat.row(i).sum();
    return a_hat;
}

Rollout attention_rollout(const Trace& trace, int up_to) {
    const auto& layers = trace.main.layers;
    if (layers.empty() || layers.front().self_attn.weights.empty())
        throw Error("the trace of '" + trace.model_name + "' has no per-head attention weights to roll out");
    const int last = up_to < 0 ? static_cast<int>(layers.size()) - 1 : up_to;
    if (last >= static_cast<int>(layers.size()))
        throw Error("rollout layer " + std::to_string(last) + " is out of range: the model has " +
                    std::to_string(layers.size()) + " layers");
    // R ← Â_l · R for l = 0..last (later layers multiply on the left), in double for long stacks
    const Eigen::Index T = layers.front().self_attn.weights.front().rows();
    Eigen::MatrixXd R = Eigen::MatrixXd::Identity(T, T);
    for (int l = 0; l <= last; ++l) R = rollout_layer(layers[l].self_attn.weights).cast<double>() * R;
    Rollout out;
    out.joint = R.cast<float>();
    out.last_row = R.row(T - 1).transpose().cast<float>();
    out.mean_row = R.colwise().mean().transpose().cast<float>();
    out.bars = mask_of(trace, 0).causal ? out.last_row : out.mean_row;
    return out;
}

}  // namespace hs
