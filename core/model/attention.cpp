// Multi-head attention, the math top to bottom (DESIGN §3; shapes in attention.h). The
// heatmaps, the Pipeline's step-by-step view and every model run through this one
// function; how steps 1–3 are made fast lives behind kernels::attend.
#include "core/model/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "core/kernels/attend.h"
#include "core/kernels/gemm.h"
#include "core/kernels/parallel.h"
#include "core/kernels/scratch.h"
#include "core/kernels/softmax.h"
#include "core/model/rope.h"

namespace hs {

namespace {

void check_shapes(const AttentionWeights& w, const HeadSplit& split, const Matrix& x_query,
                  const Matrix& x_memory);
struct Projected {
    Eigen::Ref<Matrix> q, k, v;
};
void record_steps(const AttentionWeights& w, const HeadSplit& split, const Matrix& x_query,
                  const Matrix& x_memory, const Matrix& qkv_unrotated, const Projected& p,
                  const AttentionMask& mask, float scale, const AttentionResult& r,
                  const Matrix& head_outputs, const Matrix& concat, AttentionSteps& steps);

// The split options give, or the weights' own.
HeadSplit split_of(const AttentionWeights& w, const HeadSplit& given) {
    if (given.heads > 0) return given;
    return HeadSplit{w.heads, w.kv_heads > 0 ? w.kv_heads : w.heads, given.rope};
}

}  // namespace

AttentionResult multi_head_attention(const AttentionWeights& w, const Matrix& x_query, const Matrix& x_memory,
                                     const AttentionOptions& options) {
    const HeadSplit split = split_of(w, options.split);
    check_shapes(w, split, x_query, x_memory);
    AttentionSteps* steps = options.steps;
    const Eigen::Index T = x_query.rows(), D = w.out_proj_weight.rows();
    const int H = split.heads, I = w.inner(), Dh = I / H;
    AttentionResult result;
    // The step view shows every head's A_h and scores, so a capture computes them all.
    std::vector<Matrix>* weights = options.weights || steps ? &result.weights : nullptr;
    std::vector<Matrix>* scores = options.scores || steps ? &result.scores : nullptr;
    thread_local Scratch concat_buf;     // reused across layers and calls
    auto concat = concat_buf.get(T, I);  // [head_1 | … | head_H]: (T, I)
    Matrix qkv_unrotated, head_outputs;  // step capture only: before rotation / ablation

    // 1. [Q|K|V] = X · W_inᵀ + b_in: (T, I + 2·Ikv), one GEMM for all heads (self-attention);
    //    cross-attention: Q from the queries, [K|V] from memory.
    // 2. Rotary positions: Q and K rotated by position (rope.h).
    // 3. Per head h, with g = h / (H / Hkv) its K/V head:
    //    scores_h = Q_h K_gᵀ / √Dh: (T, S); + mask (−∞ where hidden);
    //    A_h = softmax(scores_h) per row;  head_h = A_h V_g: (T, Dh) into concat.
    kernels::RotateFn rotate;
    if (split.rope)
        rotate = [rope = split.rope](Eigen::Ref<Matrix> block, int n_heads) {
            apply_rope(block, n_heads, rope->table, rope->layout);
        };
    const kernels::AttendInput in{x_query, x_memory, w.in_proj_weight, w.in_proj_bias, split.heads, split.kv_heads,
                                  options.mask, rotate};
    const kernels::Attended qkv = kernels::attend(in, concat, weights, scores, steps ? &qkv_unrotated : nullptr);
    if (steps) head_outputs = concat;  // before the ablation
    if (options.tap) {
        (*options.tap)("q", qkv.q);
        (*options.tap)("k", qkv.k);
        (*options.tap)("v", qkv.v);
    }
    // 4. Ablated heads replaced before W_o (ablate_heads).
    ablate_heads(concat, options.ablated, H, options.ablate_mode);
    if (options.tap) (*options.tap)("concat", concat);
    // 5. out: (T, D) = concat · W_oᵀ + b_o
    result.output.resize(T, D);
    matmul_nt(concat, w.out_proj_weight, w.out_proj_bias.size() ? &w.out_proj_bias : nullptr, result.output);
    if (steps) {  // every intermediate above, for the Pipeline
        const float scale = 1.0f / std::sqrt(static_cast<float>(Dh));
        record_steps(w, split, x_query, x_memory, qkv_unrotated, Projected{qkv.q, qkv.k, qkv.v}, options.mask, scale,
                     result, head_outputs, concat, *steps);
        if (!options.weights) result.weights.clear();
        if (!options.scores) result.scores.clear();
    }
    return result;
}

namespace {

// W_in: (I + 2·Ikv, D) with I = H·Dh and Ikv = Hkv·Dh; W_o: (D_out, I); biases of those
// sizes or empty.
void check_shapes(const AttentionWeights& w, const HeadSplit& split, const Matrix& x_query,
                  const Matrix& x_memory) {
    const auto D = w.in_proj_weight.cols();
    const int H = split.heads, Hkv = split.kv_heads, I = w.inner();
    if (H < 1 || Hkv < 1 || H % Hkv != 0)
        throw Error("attention: " + std::to_string(H) + " query heads cannot share " +
                    std::to_string(Hkv) + " key/value heads evenly");
    if (I % H != 0 || w.in_proj_weight.rows() != I + 2LL * Hkv * (I / H))
        throw Error("attention weights: in_proj_weight has " +
                    std::to_string(w.in_proj_weight.rows()) + " rows and out_proj_weight " +
                    std::to_string(I) + " columns, which do not split into " +
                    std::to_string(H) + " query and " + std::to_string(Hkv) +
                    " key/value heads");
    if ((w.in_proj_bias.size() && w.in_proj_bias.size() != w.in_proj_weight.rows()) ||
        (w.out_proj_bias.size() && w.out_proj_bias.size() != w.out_proj_weight.rows()))
        throw Error("attention weights: in_proj_bias or out_proj_bias has a shape that does "
                    "not match in_proj_weight (" + std::to_string(w.in_proj_weight.rows()) +
                    " × " + std::to_string(D) + ")");
    if (x_query.cols() != D || x_memory.cols() != D)
        throw Error("attention input has " + std::to_string(x_query.cols()) +
                    " columns, expected d_model " + std::to_string(D));
    if (split.rope && (I / H) % 2 != 0)
        throw Error("rotary positions need an even head size, got " + std::to_string(I / H));
}

// Stacks K or V head blocks so that block h is the K/V head query head h reads:
// (R, Hkv·Dh) -> (R, H·Dh) — the step-by-step view shows one K_h, V_h per query head.
Matrix repeat_kv_cols(const Eigen::Ref<const Matrix>& m, int H, int Hkv, int Dh) {
    Matrix out(m.rows(), Eigen::Index(H) * Dh);
    for (int h = 0; h < H; ++h) out.middleCols(h * Dh, Dh) = m.middleCols(h / (H / Hkv) * Dh, Dh);
    return out;
}

// Every intermediate of one block for the step-by-step view, taken from what
// multi_head_attention computed (the same numbers the heatmaps show). With grouped-query
// attention K_h, V_h (and q/k/v) are K and V of the query head's K/V head g (K_h = K_g);
// W_in and QKV keep the model's shapes.
void record_steps(const AttentionWeights& w, const HeadSplit& split, const Matrix& x_query,
                  const Matrix& x_memory, const Matrix& qkv_unrotated, const Projected& p,
                  const AttentionMask& mask, float scale, const AttentionResult& r,
                  const Matrix& head_outputs, const Matrix& concat, AttentionSteps& steps) {
    const bool self = &x_query == &x_memory;
    const int S = static_cast<int>(x_memory.rows());
    const int H = split.heads, Hkv = split.kv_heads, I = w.inner(), Ikv = w.kv_inner(), Dh = I / H;
    steps.x_query = x_query;
    steps.x_memory = x_memory;
    // W_in and b_in as the model holds them: (I + 2·Ikv, D) = [W_Q; W_K; W_V], PyTorch's
    // in_proj_weight (under GQA the K and V blocks have Ikv = Hkv·Dh rows); b_in zeros
    // without a bias.
    const Eigen::Index D_in = w.in_proj_weight.cols();
    steps.w_in = w.in_proj_weight;
    steps.b_in = w.in_proj_bias.size() ? w.in_proj_bias : Vector(Vector::Zero(I + 2 * Ikv));
    // Self: QKV (T, I + 2·Ikv) = X·W_inᵀ + b_in, before any rotation. Cross: Q (T, I) =
    // X·W_Qᵀ + b_Q here, and [K|V] (S, 2·Ikv) = M·[W_K; W_V]ᵀ + b from the memory M.
    steps.qkv = qkv_unrotated;
    steps.kv_memory.resize(self ? 0 : S, self ? 0 : 2 * Ikv);
    if (!self) steps.kv_memory << p.k, p.v;
    steps.q = p.q;  // after the rotation: what the scores use
    steps.k = repeat_kv_cols(p.k, H, Hkv, Dh);
    steps.v = repeat_kv_cols(p.v, H, Hkv, Dh);
    steps.q_heads.clear();
    steps.k_heads.clear();
    steps.v_heads.clear();
    steps.w_q_heads.clear();
    steps.w_k_heads.clear();
    steps.w_v_heads.clear();
    steps.raw_scores.clear();
    steps.scaled_scores.clear();
    steps.masked_scores.clear();
    steps.masked = mask.hides_any(static_cast<int>(x_query.rows()), S);
    steps.weights.clear();
    steps.head_outputs.clear();
    // The textbook's per-head W_Q^h, W_K^h, W_V^h: (D, Dh) each, the transposed row blocks
    // of W_in: rows h·Dh of W_Q, and rows g·Dh of W_K and W_V for K/V head g = h / (H / Hkv)
    // (the kernels' transpose, one head per job: 3 MB at d_model 512). The copies hold
    // 3·I·D floats whatever the K/V heads, which is what the cap limits.
    const bool textbook = 3LL * I * D_in <= static_cast<long long>(kTextbookMaxWeights);
    if (textbook) {
        for (auto* heads : {&steps.w_q_heads, &steps.w_k_heads, &steps.w_v_heads})
            heads->assign(static_cast<std::size_t>(H), Matrix(D_in, Dh));
        parallel_for(H, [&](int h) {
            const auto hh = static_cast<std::size_t>(h);
            const int g = h / (H / Hkv);
            Matrix* out[3] = {&steps.w_q_heads[hh], &steps.w_k_heads[hh], &steps.w_v_heads[hh]};
            const int first_row[3] = {h * Dh, I + g * Dh, I + Ikv + g * Dh};
            for (int part = 0; part < 3; ++part)
                gemm::transpose(Dh, static_cast<int>(D_in), steps.w_in.row(first_row[part]).data(),
                                static_cast<int>(D_in), out[part]->data(), Dh);
        });
    }
    for (int h = 0; h < H; ++h) {
        const int g = h / (H / Hkv);
        steps.q_heads.push_back(p.q.middleCols(h * Dh, Dh));
        steps.k_heads.push_back(p.k.middleCols(g * Dh, Dh));
        steps.v_heads.push_back(p.v.middleCols(g * Dh, Dh));
        steps.raw_scores.push_back(steps.q_heads.back() * steps.k_heads.back().transpose());  // Q_h K_gᵀ
        steps.scaled_scores.push_back(r.scores[h]);                                          // · 1/√Dh
        Matrix masked = r.scores[h];
        mask.apply(masked);
        steps.masked_scores.push_back(std::move(masked));
        steps.weights.push_back(r.weights[h]);
        steps.head_outputs.push_back(head_outputs.middleCols(h * Dh, Dh));
    }
    steps.concat = concat;  // after the ablation
    steps.w_out = w.out_proj_weight;
    steps.w_o.resize(textbook ? w.out_proj_weight.cols() : 0, textbook ? w.out_proj_weight.rows() : 0);
    if (textbook)  // W_O = W_outᵀ: (I, D)
        gemm::transpose(static_cast<int>(w.out_proj_weight.rows()), static_cast<int>(w.out_proj_weight.cols()),
                        w.out_proj_weight.data(), static_cast<int>(w.out_proj_weight.cols()), steps.w_o.data(),
                        static_cast<int>(w.out_proj_weight.rows()));
    steps.b_out = w.out_proj_bias.size() ? w.out_proj_bias
                                         : Vector(Vector::Zero(w.out_proj_weight.rows()));
    steps.output = r.output;
    steps.scale = scale;
    steps.q_bias = !steps.b_in.head(I).isZero(0.0f);
    steps.k_bias = !steps.b_in.segment(I, Ikv).isZero(0.0f);
    steps.v_bias = !steps.b_in.tail(Ikv).isZero(0.0f);
    steps.out_bias = !steps.b_out.isZero(0.0f);
    steps.out_identity = w.out_proj_weight.rows() == w.out_proj_weight.cols() && w.out_proj_weight.isIdentity(0.0f);
}

}  // namespace

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
