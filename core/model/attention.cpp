// Multi-head attention, the math top to bottom (DESIGN §3; shapes in attention.h). The
// heatmaps, the Pipeline's step-by-step view and every model run through this one
// function (the views are recorders of what it computes, recorder.h); how steps 1–3 are
// made fast lives behind kernels::attend.
#include "core/model/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "core/kernels/attend.h"
#include "core/kernels/norms.h"
#include "core/kernels/parallel.h"
#include "core/kernels/scratch.h"
#include "core/kernels/softmax.h"
#include "core/model/rope.h"

namespace hs {

namespace {

void check_shapes(const AttentionWeights& w, const HeadSplit& split, const Matrix& x_query,
                  const Matrix& x_memory);

}  // namespace

HeadSplit split_of(const AttentionWeights& w, const HeadSplit& given) {
    if (given.heads > 0) return given;
    return HeadSplit{w.heads, w.kv_heads > 0 ? w.kv_heads : w.heads, given.rope};
}

Matrix multi_head_attention(const AttentionWeights& w, const Matrix& x_query, const Matrix& x_memory,
                            const AttentionOptions& options) {
    const HeadSplit split = split_of(w, options.split);
    check_shapes(w, split, x_query, x_memory);
    const Eigen::Index T = x_query.rows(), D = w.d_out();
    const int H = split.heads, I = w.inner();
    const bool self = &x_query == &x_memory;
    // The block's named values go to the recorder at (stack, layer, "<block><what>").
    Recorder* const rec = options.recorder;
    const std::string& block = options.at.name;
    const auto at = [&](const char* what) { return TapPoint{options.at.stack, options.at.layer, block + what}; };
    const auto wanted = [&](const char* what) { return rec && rec->wants(at(what)); };
    const auto record = [&](const char* what, const Eigen::Ref<const Matrix>& value) {
        if (rec) rec->record(at(what), value);
    };
    std::vector<Matrix> weights, scores;  // H × (T, S), made only when wanted
    Matrix qkv_unrotated;                 // made only when wanted
    const bool want_weights = wanted(".weights"), want_scores = wanted(".scores");
    const bool want_qkv = wanted(".qkv"), want_heads = wanted(".heads");
    thread_local Scratch concat_buf;     // reused across layers and calls
    auto concat = concat_buf.get(T, I);  // [head_1 | … | head_H]: (T, I)
    record("_in", x_query);
    if (!self && wanted(".memory")) record(".memory", x_memory);

    // 1. [Q|K|V] = X · W_inᵀ + b_in: (T, I + 2·Ikv), one GEMM for all heads (self-attention);
    //    cross-attention: Q from the queries, [K|V] from memory.
    // 2. QK-norm (w.q_norm, w.k_norm): every head's row of Q, of K, RMS-normalised over Dh
    //    and scaled by γ; then rotary positions: Q and K rotated by position (rope.h).
    // 3. Per head h, with g = h / (H / Hkv) its K/V head:
    //    scores_h = Q_h K_gᵀ · scale (1/√Dh unless the model says): (T, S), soft-capped
    //    (cap · tanh(scores_h / cap)) when options.softcap > 0; + mask (−∞ where hidden);
    //    A_h = softmax(scores_h) per row;  head_h = A_h V_g: (T, Dh) into concat.
    kernels::PrepareQkFn prepare_qk;
    const bool qk_norm = w.q_norm.size() > 0;
    if (split.rope || qk_norm)
        prepare_qk = [&w, qk_norm, eps = options.qk_norm_eps, rope = split.rope](Eigen::Ref<Matrix> block,
                                                                                int n_heads, bool is_key) {
            if (qk_norm) normalize_heads(block, n_heads, is_key ? w.k_norm : w.q_norm, eps);
            if (rope) apply_rope(block, n_heads, rope->table, rope->layout);
        };
    const kernels::ScoreMath score{resolved_score_scale(options.score_scale, I / H), options.softcap};
    const kernels::AttendInput in{x_query, x_memory, w.in_proj_weight, w.in_proj_bias, split.heads, split.kv_heads,
                                  options.mask, score, prepare_qk, w.in_proj_stored};
    const kernels::Attended qkv = kernels::attend(in, concat, want_weights ? &weights : nullptr,
                                                  want_scores ? &scores : nullptr, want_qkv ? &qkv_unrotated : nullptr);
    if (want_qkv) record(".qkv", qkv_unrotated);
    record(".q", qkv.q);
    record(".k", qkv.k);
    record(".v", qkv.v);
    if (want_scores) rec->take_maps(at(".scores"), scores);
    if (want_weights) rec->take_maps(at(".weights"), weights);
    if (want_heads) record(".heads", concat);
    // 4. Ablated heads replaced before W_o (ablate_heads).
    ablate_heads(concat, options.ablated, H, options.ablate_mode);
    record(".concat", concat);
    // 5. out: (T, D) = concat · W_oᵀ + b_o
    Matrix output(T, D);
    linear(concat, w.out_proj_weight, w.out_proj_stored, w.out_proj_bias.size() ? &w.out_proj_bias : nullptr, output);
    record("_out", output);
    return output;
}

namespace {

// W_in: (I + 2·Ikv, D) with I = H·Dh and Ikv = Hkv·Dh; W_o: (D_out, I); biases of those
// sizes or empty.
void check_shapes(const AttentionWeights& w, const HeadSplit& split, const Matrix& x_query,
                  const Matrix& x_memory) {
    const auto D = w.d_in();
    const int H = split.heads, Hkv = split.kv_heads, I = w.inner();
    if (H < 1 || Hkv < 1 || H % Hkv != 0)
        throw Error("attention: " + std::to_string(H) + " query heads cannot share " +
                    std::to_string(Hkv) + " key/value heads evenly");
    if (I % H != 0 || w.in_rows() != I + 2LL * Hkv * (I / H))
        throw Error("attention weights: in_proj_weight has " +
                    std::to_string(w.in_rows()) + " rows and out_proj_weight " +
                    std::to_string(I) + " columns, which do not split into " +
                    std::to_string(H) + " query and " + std::to_string(Hkv) +
                    " key/value heads");
    if ((w.in_proj_bias.size() && w.in_proj_bias.size() != w.in_rows()) ||
        (w.out_proj_bias.size() && w.out_proj_bias.size() != w.d_out()))
        throw Error("attention weights: in_proj_bias or out_proj_bias has a shape that does "
                    "not match in_proj_weight (" + std::to_string(w.in_rows()) +
                    " × " + std::to_string(D) + ")");
    if (x_query.cols() != D || x_memory.cols() != D)
        throw Error("attention input has " + std::to_string(x_query.cols()) +
                    " columns, expected d_model " + std::to_string(D));
    if (split.rope && (I / H) % 2 != 0)
        throw Error("rotary positions need an even head size, got " + std::to_string(I / H));
}

}  // namespace

void normalize_heads(Eigen::Ref<Matrix> block, int n_heads, const Vector& gamma, float eps) {
    const int Dh = static_cast<int>(block.cols()) / n_heads;
    if (gamma.size() != Dh)
        throw Error("qk-norm: γ has " + std::to_string(gamma.size()) + " entries, the heads " + std::to_string(Dh));
    for (Eigen::Index t = 0; t < block.rows(); ++t)
        for (int n = 0; n < n_heads; ++n) {
            float* head = &block(t, n * Dh);  // row-major: the head's Dh entries are contiguous
            kernels::rms_norm_row(head, head, gamma.data(), Dh, eps);
        }
}

// softmax(s)_j = exp(s_j − max_k s_k) / Σ_k exp(s_k − max_k s_k); exp(−∞) = 0 exactly.
void softmax_rows(Matrix& m) {
    for (Eigen::Index i = 0; i < m.rows(); ++i)
        kernels::softmax_row(m.row(i).data(), int(m.cols()), int(m.cols()));
}

void ablate_heads(Eigen::Ref<Matrix> concat, const std::vector<int>& heads, int H,
                  AblationMode mode) {
    if (heads.empty()) return;
    const int Dh = static_cast<int>(concat.cols()) / H;
    for (int h : heads) {
        if (h < 0 || h >= H)
            throw Error("cannot ablate head " + std::to_string(h) + ": the block has heads 0.." +
                        std::to_string(H - 1));
        auto block = concat.middleCols(h * Dh, Dh);  // head_h: (T, Dh)
        if (mode == AblationMode::Zero) {
            block.setZero();
        } else {  // every row = (1/T) Σ_t head_h[t]
            const Eigen::RowVectorXf mean = block.colwise().mean();
            block.rowwise() = mean;
        }
    }
}

void check_ablation(const std::vector<HeadRef>& ablate, int layers, int heads,
                    bool has_decoder) {
    for (const HeadRef& r : ablate) {
        const std::string name = "head " + std::to_string(r.layer) + "." + std::to_string(r.head);
        if ((r.in_decoder || r.cross) && !has_decoder)
            throw Error("cannot ablate " + name + " of the " +
                        (r.cross ? "cross-attention" : "decoder") +
                        ": the model has a single stack of self-attention layers");
        if (r.cross && !r.in_decoder)
            throw Error("cannot ablate " + name + ": cross-attention lives in the decoder stack");
        if (r.layer < 0 || r.layer >= layers || r.head < 0 || r.head >= heads)
            throw Error("cannot ablate " + name + ": the model has layers 0.." +
                        std::to_string(layers - 1) + " and heads 0.." + std::to_string(heads - 1));
    }
}

AttentionResult multi_head_attention_naive(const AttentionWeights& w, const Matrix& x_query,
                                           const Matrix& x_memory, const AttentionMask& mask) {
    const int H = w.heads, Hkv = w.kv_heads > 0 ? w.kv_heads : w.heads;
    if (w.in_proj_stored || w.out_proj_stored)
        throw Error("the textbook attention reads W_in and W_o as f32; these are left as stored");
    check_shapes(w, HeadSplit{H, Hkv, nullptr}, x_query, x_memory);
    const int T = static_cast<int>(x_query.rows()), S = static_cast<int>(x_memory.rows());
    const int D = static_cast<int>(w.in_proj_weight.cols());
    const int I = w.inner(), Ikv = w.kv_inner(), Dh = I / H;
    const auto bias = [&](const Vector& b, int i) { return b.size() ? b(i) : 0.0f; };
    AttentionResult result;
    Matrix concat(T, I);
    for (int h = 0; h < H; ++h) {
        const int g = h / (H / Hkv);  // the K/V head of query head h
        // Per-head textbook matrices W_Q^h: (D, Dh) = rows h·Dh… of W_in's Q block,
        // transposed; W_K^g, W_V^g from rows g·Dh… of its K and V blocks.
        Matrix wq(D, Dh), wk(D, Dh), wv(D, Dh);
        for (int d = 0; d < D; ++d)
            for (int c = 0; c < Dh; ++c) {
                wq(d, c) = w.in_proj_weight(h * Dh + c, d);
                wk(d, c) = w.in_proj_weight(I + g * Dh + c, d);
                wv(d, c) = w.in_proj_weight(I + Ikv + g * Dh + c, d);
            }
        Matrix q = x_query * wq, k = x_memory * wk, v = x_memory * wv;
        for (int c = 0; c < Dh; ++c) {
            q.col(c).array() += bias(w.in_proj_bias, h * Dh + c);
            k.col(c).array() += bias(w.in_proj_bias, I + g * Dh + c);
            v.col(c).array() += bias(w.in_proj_bias, I + Ikv + g * Dh + c);
        }
        Matrix a(T, S);
        for (int i = 0; i < T; ++i) {
            double row_max = -INFINITY;
            std::vector<double> s(S);
            for (int j = 0; j < S; ++j) {
                double dot = 0;
                for (int c = 0; c < Dh; ++c) dot += double(q(i, c)) * k(j, c);
                s[j] = mask.allowed(i, j) ? dot / std::sqrt(double(Dh)) : -INFINITY;
                row_max = std::max(row_max, s[j]);
            }
            double sum = 0;
            for (int j = 0; j < S; ++j) {
                s[j] = row_max == -INFINITY ? 0.0 : std::exp(s[j] - row_max);
                sum += s[j];
            }
            for (int j = 0; j < S; ++j) a(i, j) = sum > 0 ? static_cast<float>(s[j] / sum) : 0.f;
        }
        concat.middleCols(h * Dh, Dh) = a * v;
        result.weights.push_back(a);
    }
    result.output = concat * w.out_proj_weight.transpose();
    if (w.out_proj_bias.size()) result.output.rowwise() += w.out_proj_bias.transpose();
    return result;
}

}  // namespace hs
