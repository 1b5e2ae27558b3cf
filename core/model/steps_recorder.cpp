#include "core/model/steps_recorder.h"

#include <cmath>
#include <utility>

#include "core/kernels/gemm.h"
#include "core/kernels/parallel.h"

namespace hs {

namespace {

// Stacks K or V head blocks so that block h is the K/V head query head h reads:
// (R, Hkv·Dh) -> (R, H·Dh) — the step-by-step view shows one K_h, V_h per query head.
Matrix repeat_kv_cols(const Matrix& m, int H, int Hkv, int Dh) {
    Matrix out(m.rows(), Eigen::Index(H) * Dh);
    for (int h = 0; h < H; ++h) out.middleCols(h * Dh, Dh) = m.middleCols(h / (H / Hkv) * Dh, Dh);
    return out;
}

// The textbook's per-head W_Q^h, W_K^h, W_V^h: (D, Dh) each, the transposed row blocks of
// W_in: rows h·Dh of W_Q, and rows g·Dh of W_K and W_V for K/V head g = h / (H / Hkv)
// (the kernels' transpose, one head per job: 3 MB at d_model 512).
void textbook_weights(const Matrix& w_in, int H, int Hkv, int I, int Ikv, AttentionSteps& steps) {
    const int D = static_cast<int>(w_in.cols()), Dh = I / H;
    for (auto* heads : {&steps.w_q_heads, &steps.w_k_heads, &steps.w_v_heads})
        heads->assign(static_cast<std::size_t>(H), Matrix(D, Dh));
    parallel_for(H, [&](int h) {
        const auto hh = static_cast<std::size_t>(h);
        const int g = h / (H / Hkv);
        Matrix* out[3] = {&steps.w_q_heads[hh], &steps.w_k_heads[hh], &steps.w_v_heads[hh]};
        const int first_row[3] = {h * Dh, I + g * Dh, I + Ikv + g * Dh};
        for (int part = 0; part < 3; ++part)
            gemm::transpose(Dh, D, w_in.row(first_row[part]).data(), D, out[part]->data(), Dh);
    });
}

}  // namespace

StepsRecorder::StepsRecorder(const AttentionWeights& weights, const HeadSplit& split, const AttentionMask& mask,
                             kernels::ScoreMath score, TapPoint block)
    : w_(weights), split_(split_of(weights, split)), mask_(mask), score_(score), block_(std::move(block)) {}

bool StepsRecorder::here(const TapPoint& point) const {
    return std::string_view(point.stack) == block_.stack && point.layer == block_.layer &&
           point.block() == block_.name;
}

bool StepsRecorder::wants(const TapPoint& point) const {
    // The step view shows every head's A_h and scores, Q before rotation and the heads
    // before ablation.
    return here(point) && is_on_demand(point);
}

void StepsRecorder::record(const TapPoint& point, const Eigen::Ref<const Matrix>& value) {
    if (!here(point)) return;
    const std::string_view part = point.part();
    if (part.empty()) {  // "<block>_in" or "<block>_out"
        if (point.name.ends_with("_in")) x_query_ = value;
        if (point.name.ends_with("_out")) finish(value);
        return;
    }
    Matrix* slots[] = {&x_memory_, &qkv_, &q_, &k_, &v_, &heads_, &concat_};
    const char* names[] = {"memory", "qkv", "q", "k", "v", "heads", "concat"};
    for (int i = 0; i < 7; ++i)
        if (part == names[i]) *slots[i] = value;
    if (part == "memory") cross_ = true;
}

void StepsRecorder::record_maps(const TapPoint& point, const std::vector<Matrix>& maps) {
    if (!here(point)) return;
    if (point.part() == "weights") weights_ = maps;
    if (point.part() == "scores") scores_ = maps;
}

// Every intermediate of the block, from what multi_head_attention showed (the same numbers
// the heatmaps show). With grouped-query attention K_h, V_h (and k, v) are K and V of the
// query head's K/V head g (K_h = K_g); W_in and QKV keep the model's shapes.
void StepsRecorder::finish(const Eigen::Ref<const Matrix>& output) {
    AttentionSteps& steps = steps_.emplace();
    const int H = split_.heads, Hkv = split_.kv_heads, I = w_.inner(), Ikv = w_.kv_inner(), Dh = I / H;
    const int T = static_cast<int>(x_query_.rows());
    steps.x_query = std::move(x_query_);
    steps.x_memory = cross_ ? std::move(x_memory_) : steps.x_query;
    const int S = static_cast<int>(steps.x_memory.rows());
    // W_in and b_in as the model holds them: (I + 2·Ikv, D) = [W_Q; W_K; W_V], PyTorch's
    // in_proj_weight (under GQA the K and V blocks have Ikv = Hkv·Dh rows); b_in zeros
    // without a bias.
    steps.w_in = w_.in_proj_weight;
    steps.b_in = w_.in_proj_bias.size() ? w_.in_proj_bias : Vector(Vector::Zero(I + 2 * Ikv));
    // Self: QKV (T, I + 2·Ikv) = X·W_inᵀ + b_in, before any rotation. Cross: Q (T, I) =
    // X·W_Qᵀ + b_Q here, and [K|V] (S, 2·Ikv) = M·[W_K; W_V]ᵀ + b from the memory M.
    steps.qkv = std::move(qkv_);
    steps.kv_memory.resize(cross_ ? S : 0, cross_ ? 2 * Ikv : 0);
    if (cross_) steps.kv_memory << k_, v_;
    steps.q = q_;  // after the rotation: what the scores use
    steps.k = repeat_kv_cols(k_, H, Hkv, Dh);
    steps.v = repeat_kv_cols(v_, H, Hkv, Dh);
    steps.masked = mask_.hides_any(T, S);
    // The per-head W_Q^h … copies hold 3·I·D floats whatever the K/V heads, which is what
    // kTextbookMaxWeights limits.
    const bool textbook = 3LL * I * w_.in_proj_weight.cols() <= static_cast<long long>(kTextbookMaxWeights);
    if (textbook) textbook_weights(steps.w_in, H, Hkv, I, Ikv, steps);
    for (int h = 0; h < H; ++h) {
        const auto hh = static_cast<std::size_t>(h);
        const int g = h / (H / Hkv);
        steps.q_heads.push_back(q_.middleCols(h * Dh, Dh));
        steps.k_heads.push_back(k_.middleCols(g * Dh, Dh));
        steps.v_heads.push_back(v_.middleCols(g * Dh, Dh));
        steps.raw_scores.push_back(steps.q_heads.back() * steps.k_heads.back().transpose());  // Q_h K_gᵀ
        steps.scaled_scores.push_back(scores_[hh]);  // · scale, soft-capped
        Matrix masked = scores_[hh];
        mask_.apply(masked);
        steps.masked_scores.push_back(std::move(masked));
        steps.head_outputs.push_back(heads_.middleCols(h * Dh, Dh));
    }
    steps.weights = std::move(weights_);
    steps.concat = std::move(concat_);  // after the ablation
    steps.w_out = w_.out_proj_weight;
    steps.w_o.resize(textbook ? w_.out_proj_weight.cols() : 0, textbook ? w_.out_proj_weight.rows() : 0);
    if (textbook)  // W_O = W_outᵀ: (I, D)
        gemm::transpose(static_cast<int>(w_.out_proj_weight.rows()), static_cast<int>(w_.out_proj_weight.cols()),
                        w_.out_proj_weight.data(), static_cast<int>(w_.out_proj_weight.cols()), steps.w_o.data(),
                        static_cast<int>(w_.out_proj_weight.rows()));
    steps.b_out = w_.out_proj_bias.size() ? w_.out_proj_bias : Vector(Vector::Zero(w_.out_proj_weight.rows()));
    steps.output = output;
    steps.scale = score_.scale;
    steps.softcap = score_.softcap;
    steps.q_bias = !steps.b_in.head(I).isZero(0.0f);
    steps.k_bias = !steps.b_in.segment(I, Ikv).isZero(0.0f);
    steps.v_bias = !steps.b_in.tail(Ikv).isZero(0.0f);
    steps.out_bias = !steps.b_out.isZero(0.0f);
    steps.out_identity = w_.out_proj_weight.rows() == w_.out_proj_weight.cols() && w_.out_proj_weight.isIdentity(0.0f);
}

}  // namespace hs
