#include "core/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "core/kernels/parallel.h"
#include "core/kernels/scratch.h"
#include "core/kernels/softmax.h"
#include "core/rope.h"

namespace hs {

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// One query row of A: softmax over the first n_allowed keys (causal prefix), the padded
// keys −∞ → exactly 0, the keys from n_allowed on set to 0 (core/kernels/softmax.h).
void softmax_row(float* row, Eigen::Index n_allowed, Eigen::Index S,
                 const std::vector<int>& key_padding) {
    for (int j : key_padding)
        if (j >= 0 && j < n_allowed) row[j] = kNegInf;
    kernels::softmax_row(row, int(n_allowed), int(S));
}

// The bias, or null when the model has none (an empty Vector).
const Vector* bias_or_null(const Vector& b) { return b.size() ? &b : nullptr; }

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

}  // namespace

bool AttentionMask::allowed(int i, int j) const {
    if (causal && j > i) return false;
    return std::find(key_padding.begin(), key_padding.end(), j) == key_padding.end();
}

// Causal: key j > query i is the future, −∞ strictly above the diagonal.
void apply_mask(Matrix& scores, const AttentionMask& mask) {
    if (mask.causal) scores.triangularView<Eigen::StrictlyUpper>().setConstant(kNegInf);
    const auto S = scores.cols();
    for (int j : mask.key_padding)
        if (j >= 0 && j < S) scores.col(j).setConstant(kNegInf);
}

void attend_head(const Eigen::Ref<const Matrix>& q_h, const Eigen::Ref<const Matrix>& k_h,
                 const Eigen::Ref<const Matrix>& v_h, float scale, const AttentionMask& mask,
                 Matrix& scores, Eigen::Ref<Matrix> head_out, Matrix* scaled,
                 AttentionSteps* steps) {
    // scores: (T, S) = Q_h K_hᵀ / √Dk
    scores.noalias() = q_h * k_h.transpose();
    if (steps) steps->raw_scores.push_back(scores);
    scores *= scale;
    if (steps) steps->scaled_scores.push_back(scores);
    if (scaled) *scaled = scores;
    apply_mask(scores, mask);
    if (steps) steps->masked_scores.push_back(scores);
    softmax_rows(scores);  // now A_h: (T, S); a fully masked row stays zeros
    // head_h: (T, Dk) = A_h V_h, written straight into the caller's block
    head_out.noalias() = scores * v_h;
    if (steps) {
        steps->weights.push_back(scores);
        steps->q_heads.push_back(q_h);
        steps->k_heads.push_back(k_h);
        steps->v_heads.push_back(v_h);
        steps->head_outputs.push_back(head_out);
    }
}

// softmax(s)_j = exp(s_j − max_k s_k) / Σ_k exp(s_k − max_k s_k); exp(−∞) = 0 exactly.
void softmax_rows(Matrix& m) {
    for (Eigen::Index i = 0; i < m.rows(); ++i)
        kernels::softmax_row(m.row(i).data(), int(m.cols()), int(m.cols()));
}

namespace {

// Query head h over query rows [r0, r0 + n), after the projections:
//   a: (n, keys) = Q_h[r0:r0+n] K_gᵀ · scale, written into rows r0… of A_h (or scratch)
//   softmax per row (causal: row r sees keys ≤ r; padded keys → exactly 0)
//   concat[r0:r0+n, h·Dk : (h+1)·Dk] = a · V_g[:keys]
// kt holds K_gᵀ: (Dk, ≥ keys) with row stride kt_ld (the layout gemm::nn reads).
void attend_rows(const Eigen::Ref<const Matrix>& q, const Eigen::Ref<const Matrix>& v, int h,
                 int g, Eigen::Index Dk, Eigen::Index r0, Eigen::Index n, Eigen::Index S,
                 const float* kt, int kt_ld, float scale, const AttentionMask& mask,
                 Eigen::Ref<Matrix> concat, std::vector<Matrix>* weights,
                 std::vector<Matrix>* scores) {
    // Causal: rows r0…r0+n−1 see keys 0…r0+n−1 only (all keys when scores are kept).
    const Eigen::Index keys = mask.causal && !scores ? std::min(S, r0 + n) : S;
    thread_local Scratch scratch;
    float* a = weights ? (*weights)[h].row(r0).data() : scratch.get(n, S).data();
    gemm::nn(int(n), int(keys), int(Dk), scale, q.data() + r0 * q.outerStride() + h * Dk,
             int(q.outerStride()), kt, kt_ld, nullptr, a, int(S));
    if (scores)
        (*scores)[h].middleRows(r0, n) = Eigen::Map<const Matrix>(a, n, S);
    for (Eigen::Index r = 0; r < n; ++r) {
        const Eigen::Index allowed = mask.causal ? std::min(S, r0 + r + 1) : S;
        softmax_row(a + r * S, allowed, S, mask.key_padding);
    }
    gemm::nn(int(n), int(Dk), int(keys), 1.0f, a, int(S), v.data() + g * Dk,
             int(v.outerStride()), nullptr, concat.data() + r0 * concat.outerStride() + h * Dk,
             int(concat.outerStride()));
}

// kt: (Dk, keys) = K_g[0:keys]ᵀ in per-thread scratch.
const float* transposed_keys(const Eigen::Ref<const Matrix>& k, int g, Eigen::Index Dk,
                             Eigen::Index keys) {
    thread_local Scratch kt;
    float* out = kt.get(Dk, keys).data();
    gemm::transpose(int(keys), int(Dk), k.data() + g * Dk, int(k.outerStride()), out, int(keys));
    return out;
}

void size_maps(std::vector<Matrix>* maps, int heads, Eigen::Index T, Eigen::Index S) {
    if (!maps) return;
    maps->resize(heads);
    for (Matrix& m : *maps) m.resize(T, S);
}

// Query rows per work item: small enough that a causal block skips most unseen keys and
// the block's scores stay in L2.
constexpr Eigen::Index kRowsPerBlock = 128;

}  // namespace

void attend_heads(const Eigen::Ref<const Matrix>& q, const Eigen::Ref<const Matrix>& k,
                  const Eigen::Ref<const Matrix>& v, int heads, int kv_heads, float scale,
                  const AttentionMask& mask, Eigen::Ref<Matrix> concat,
                  std::vector<Matrix>* weights, std::vector<Matrix>* scores) {
    const Eigen::Index T = q.rows(), S = k.rows(), Dk = q.cols() / heads;
    const int group = heads / kv_heads;  // query heads per key/value head
    size_maps(weights, heads, T, S);
    size_maps(scores, heads, T, S);
    // Work items: (head, block of query rows). Row blocks give the second core work when
    // there are few heads, and let causal attention skip the keys no row of a block sees.
    const int threads = thread_count();
    Eigen::Index blocks = heads >= 2 * threads ? 1 : (2 * threads + heads - 1) / heads;
    if (mask.causal) blocks = std::max<Eigen::Index>(blocks, (T + kRowsPerBlock - 1) / kRowsPerBlock);
    blocks = std::max<Eigen::Index>(1, std::min<Eigen::Index>(blocks, T / 16));
    const Eigen::Index rows_per_block = (T + blocks - 1) / blocks;
    blocks = (T + rows_per_block - 1) / rows_per_block;

    const auto item = [&](int i) {
        const int h = static_cast<int>(i / blocks), g = h / group;
        const Eigen::Index r0 = (i % blocks) * rows_per_block;
        const Eigen::Index n = std::min(T, r0 + rows_per_block) - r0;
        const Eigen::Index keys = mask.causal && !scores ? std::min(S, r0 + n) : S;
        const float* kt = transposed_keys(k, g, Dk, keys);
        attend_rows(q, v, h, g, Dk, r0, n, S, kt, int(keys), scale, mask, concat, weights, scores);
    };
    const int n_items = static_cast<int>(heads * blocks);
    if (double(heads) * double(T) * double(S) * double(Dk) < 1e5) {
        for (int i = 0; i < n_items; ++i) item(i);  // too small to be worth a wake-up
    } else {
        parallel_for(n_items, item);
    }
}

namespace {

// Self-attention with packed weights and Dk a multiple of 64, enough heads for every
// thread: one work item per head does its own projection and its attention, so the
// threads meet once (before W_o) and X, W_h and the head's Q/K/V stay in cache.
//   [Q_h | K_h | V_h]: (T, 3·Dk) = X · [W_Q,h; W_K,h; W_V,h]ᵀ + b   (panels of W_in)
//   then attend_rows for every block of query rows
bool fused_heads_apply(const AttentionWeights& w, const HeadSplit& split, int T, int threads) {
    const int H = split.heads, Dk = w.inner() / H;
    return w.in_proj_packed && split.kv_heads == H && Dk % gemm::kPanel == 0 &&
           H >= 2 * threads && double(T) * w.in_proj_weight.size() >= 1e6;
}

void fused_heads(const AttentionWeights& w, const HeadSplit& split, const Matrix& x,
                 const AttentionMask& mask, float scale, Eigen::Ref<Matrix> qkv,
                 Eigen::Ref<Matrix> concat, std::vector<Matrix>* weights,
                 std::vector<Matrix>* scores) {
    const Eigen::Index T = x.rows();
    const int H = split.heads, I = w.inner(), Dk = I / H, per_head = Dk / gemm::kPanel;
    size_maps(weights, H, T, T);
    size_maps(scores, H, T, T);
    const auto Q = qkv.leftCols(I), K = qkv.middleCols(I, I), V = qkv.rightCols(I);
    const float* bias = w.in_proj_bias.size() ? w.in_proj_bias.data() : nullptr;
    parallel_for(H, [&](int h) {
        for (int part = 0; part < 3; ++part) {  // Q_h, K_h, V_h
            const int panel0 = (part * I + h * Dk) / gemm::kPanel;
            gemm::nn_packed(int(T), x.data(), int(x.cols()), *w.in_proj_packed, panel0, per_head,
                            bias, qkv.data(), int(qkv.outerStride()));
        }
        if (split.rope) {  // rotate this head's Q_h and K_h by position
            apply_rope(qkv.middleCols(h * Dk, Dk), 1, split.rope->table, split.rope->layout);
            apply_rope(qkv.middleCols(I + h * Dk, Dk), 1, split.rope->table, split.rope->layout);
        }
        const float* kt = transposed_keys(K, h, Dk, T);
        for (Eigen::Index r0 = 0; r0 < T; r0 += kRowsPerBlock) {
            const Eigen::Index n = std::min(T, r0 + kRowsPerBlock) - r0;
            attend_rows(Q, V, h, h, Dk, r0, n, T, kt, int(T), scale, mask, concat, weights, scores);
        }
    });
}

}  // namespace

namespace {

// Stacks K or V head blocks so that block h is the K/V head query head h reads:
// (R, Hkv·Dh) -> (R, H·Dh) — the step-by-step view shows one K_h, V_h per query head.
Matrix repeat_kv_cols(const Eigen::Ref<const Matrix>& m, int H, int Hkv, int Dh) {
    Matrix out(m.rows(), Eigen::Index(H) * Dh);
    for (int h = 0; h < H; ++h) out.middleCols(h * Dh, Dh) = m.middleCols(h / (H / Hkv) * Dh, Dh);
    return out;
}

// The projections of one block, in caller-provided buffers:
//   self:  [Q|K|V]: (T, I + 2·Ikv) = X · W_inᵀ + b_in — one GEMM for all heads
//   cross: Q: (T, I) from the queries' rows of W_in; [K|V]: (S, 2·Ikv) from memory
// then Q and K rotated by position when the block has rotary positions. Q, K, V are
// column views into the buffers.
struct Projected {
    Eigen::Ref<Matrix> q, k, v;
};
Projected project(const AttentionWeights& w, const HeadSplit& split, const Matrix& x_query,
                  const Matrix& x_memory, bool self, Eigen::Ref<Matrix> q_buf,
                  Eigen::Ref<Matrix> kv_buf) {
    const int I = w.inner(), Ikv = w.kv_inner();
    if (self) {
        matmul_nt(x_query, w.in_proj_weight, bias_or_null(w.in_proj_bias), q_buf,
                  w.in_proj_packed.get());
    } else {
        const bool biased = w.in_proj_bias.size() > 0;
        const Vector b_q = biased ? Vector(w.in_proj_bias.head(I)) : Vector();
        const Vector b_kv = biased ? Vector(w.in_proj_bias.tail(2 * Ikv)) : Vector();
        matmul_nt(x_query, w.in_proj_weight.topRows(I), bias_or_null(b_q), q_buf);
        matmul_nt(x_memory, w.in_proj_weight.bottomRows(2 * Ikv), bias_or_null(b_kv), kv_buf);
    }
    Projected p{q_buf.leftCols(I), self ? q_buf.middleCols(I, Ikv) : kv_buf.leftCols(Ikv),
                self ? q_buf.rightCols(Ikv) : kv_buf.rightCols(Ikv)};
    if (split.rope) {  // positions enter only through the rotation of Q and K
        apply_rope(p.q, split.heads, split.rope->table, split.rope->layout);
        apply_rope(p.k, split.kv_heads, split.rope->table, split.rope->layout);
    }
    return p;
}

// The step-by-step path: every intermediate of every head is copied into `steps`. With
// grouped-query attention the steps show K and V repeated per query head (K_h = K_g).
AttentionResult multi_head_attention_detailed(const AttentionWeights& w, const HeadSplit& split,
                                              const Matrix& x_query, const Matrix& x_memory,
                                              const AttentionMask& mask, bool want_weights,
                                              bool want_scores, AttentionSteps* steps,
                                              const std::vector<int>& ablated,
                                              AblationMode ablate_mode) {
    const bool self = &x_query == &x_memory;
    const int T = static_cast<int>(x_query.rows()), S = static_cast<int>(x_memory.rows());
    const int H = split.heads, Hkv = split.kv_heads, I = w.inner(), Ikv = w.kv_inner(), Dk = I / H;
    const float scale = 1.0f / std::sqrt(static_cast<float>(Dk));

    Matrix q_part(T, self ? I + 2 * Ikv : I), kv_part(self ? 0 : S, 2 * Ikv);
    // Before the rotation (what the step view shows as X·W_inᵀ + b_in) when it matters.
    Matrix unrotated;
    HeadSplit plain = split;
    plain.rope = nullptr;
    Projected p = project(w, plain, x_query, x_memory, self, q_part, kv_part);
    if (split.rope) {
        unrotated = q_part;
        apply_rope(p.q, H, split.rope->table, split.rope->layout);
        apply_rope(p.k, Hkv, split.rope->table, split.rope->layout);
    }
    const auto Q = p.q, K = p.k, V = p.v;

    AttentionResult result;
    if (want_weights) result.weights.resize(H);
    if (want_scores) result.scores.resize(H);
    Matrix concat(T, I);  // [head_1 | … | head_H]
    Matrix scores(T, S);
    for (int h = 0; h < H; ++h) {
        const int g = h / (H / Hkv);                // the K/V head query head h reads
        const auto Q_h = Q.middleCols(h * Dk, Dk);  // (T, Dk)
        const auto K_g = K.middleCols(g * Dk, Dk);  // (S, Dk)
        const auto V_g = V.middleCols(g * Dk, Dk);  // (S, Dk)
        // scores -> A_h: (T, S); head_h: (T, Dk) lands in its concat block
        attend_head(Q_h, K_g, V_g, scale, mask, scores, concat.middleCols(h * Dk, Dk),
                    want_scores ? &result.scores[h] : nullptr, steps);
        if (want_weights) result.weights[h] = scores;
    }
    ablate_heads(concat, ablated, H, ablate_mode);
    // out: (T, D) = concat · W_oᵀ + b_o
    result.output.resize(T, w.out_proj_weight.rows());
    matmul_nt(concat, w.out_proj_weight, bias_or_null(w.out_proj_bias), result.output,
              w.out_proj_packed.get());

    if (steps) {
        // The fused view, K/V rows and columns repeated per query head:
        // W_in: (3I, D) = [W_Q; W_K(rep); W_V(rep)], qkv: (T, 3I) before any rotation.
        const Matrix qkv_raw = split.rope ? unrotated : q_part;
        const Matrix w_k = w.in_proj_weight.middleRows(I, Ikv), w_v = w.in_proj_weight.bottomRows(Ikv);
        steps->x_query = x_query;
        steps->x_memory = x_memory;
        steps->w_in.resize(3 * I, w.in_proj_weight.cols());
        steps->w_in.topRows(I) = w.in_proj_weight.topRows(I);
        steps->w_in.middleRows(I, I) = repeat_kv_cols(w_k.transpose(), H, Hkv, Dk).transpose();
        steps->w_in.bottomRows(I) = repeat_kv_cols(w_v.transpose(), H, Hkv, Dk).transpose();
        const Vector b_in = w.in_proj_bias.size() ? w.in_proj_bias : Vector(Vector::Zero(I + 2 * Ikv));
        steps->b_in.resize(3 * I);
        steps->b_in.head(I) = b_in.head(I);
        steps->b_in.segment(I, I) = repeat_kv_cols(b_in.segment(I, Ikv).transpose(), H, Hkv, Dk).transpose();
        steps->b_in.tail(I) = repeat_kv_cols(b_in.tail(Ikv).transpose(), H, Hkv, Dk).transpose();
        if (self) {
            steps->qkv.resize(T, 3 * I);
            steps->qkv.leftCols(I) = qkv_raw.leftCols(I);
            steps->qkv.middleCols(I, I) = repeat_kv_cols(qkv_raw.middleCols(I, Ikv), H, Hkv, Dk);
            steps->qkv.rightCols(I) = repeat_kv_cols(qkv_raw.rightCols(Ikv), H, Hkv, Dk);
        } else {  // rows: T queries on the left block, S memory rows on the K/V blocks
            steps->qkv = Matrix::Zero(std::max(T, S), 3 * I);
            steps->qkv.topLeftCorner(T, I) = q_part;
            steps->qkv.block(0, I, S, I) = repeat_kv_cols(kv_part.leftCols(Ikv), H, Hkv, Dk);
            steps->qkv.block(0, 2 * I, S, I) = repeat_kv_cols(kv_part.rightCols(Ikv), H, Hkv, Dk);
        }
        steps->q = Q;
        steps->k = repeat_kv_cols(K, H, Hkv, Dk);
        steps->v = repeat_kv_cols(V, H, Hkv, Dk);
        steps->concat = concat;
        steps->w_out = w.out_proj_weight;
        steps->b_out = w.out_proj_bias.size() ? w.out_proj_bias
                                              : Vector(Vector::Zero(w.out_proj_weight.rows()));
        steps->output = result.output;
        steps->scale = scale;
    }
    return result;
}

}  // namespace

AttentionResult multi_head_attention(const AttentionWeights& w, const Matrix& x_query,
                                     const Matrix& x_memory, const AttentionMask& mask,
                                     bool want_weights, bool want_scores, AttentionSteps* steps,
                                     const std::vector<int>& ablated, AblationMode ablate_mode) {
    const HeadSplit split{w.heads, w.kv_heads > 0 ? w.kv_heads : w.heads, nullptr};
    return multi_head_attention(w, split, x_query, x_memory, mask, want_weights, want_scores,
                                steps, ablated, ablate_mode);
}

AttentionResult multi_head_attention(const AttentionWeights& w, const HeadSplit& split,
                                     const Matrix& x_query, const Matrix& x_memory,
                                     const AttentionMask& mask, bool want_weights,
                                     bool want_scores, AttentionSteps* steps,
                                     const std::vector<int>& ablated, AblationMode ablate_mode) {
    check_shapes(w, split, x_query, x_memory);
    if (steps)
        return multi_head_attention_detailed(w, split, x_query, x_memory, mask, want_weights,
                                             want_scores, steps, ablated, ablate_mode);
    const bool self = &x_query == &x_memory;
    const Eigen::Index T = x_query.rows(), S = x_memory.rows(), D = w.out_proj_weight.rows();
    const int H = split.heads, I = w.inner(), Ikv = w.kv_inner(), Dk = I / H;
    const float scale = 1.0f / std::sqrt(static_cast<float>(Dk));
    // Projections land in per-thread scratch reused across heads, layers and calls.
    thread_local Scratch qkv_buf, kv_buf, concat_buf;
    AttentionResult result;
    auto concat = concat_buf.get(T, I);  // [head_1 | … | head_H]: (T, I)
    std::vector<Matrix>* weights = want_weights ? &result.weights : nullptr;
    std::vector<Matrix>* scores = want_scores ? &result.scores : nullptr;
    if (self && fused_heads_apply(w, split, int(T), thread_count())) {
        auto qkv = qkv_buf.get(T, 3 * I);
        fused_heads(w, split, x_query, mask, scale, qkv, concat, weights, scores);
    } else {
        auto q_part = qkv_buf.get(T, self ? I + 2 * Ikv : I);
        auto kv_part = kv_buf.get(self ? 0 : S, 2 * Ikv);
        const Projected p = project(w, split, x_query, x_memory, self, q_part, kv_part);
        attend_heads(p.q, p.k, p.v, H, split.kv_heads, scale, mask, concat, weights, scores);
    }
    ablate_heads(concat, ablated, H, ablate_mode);
    // out: (T, D) = concat · W_oᵀ + b_o
    result.output.resize(T, D);
    matmul_nt(concat, w.out_proj_weight, bias_or_null(w.out_proj_bias), result.output,
              w.out_proj_packed.get());
    return result;
}

void ablate_heads(Eigen::Ref<Matrix> concat, const std::vector<int>& heads, int H,
                  AblationMode mode) {
    if (heads.empty()) return;
    const int Dk = static_cast<int>(concat.cols()) / H;
    for (int h : heads) {
        if (h < 0 || h >= H)
            throw Error("cannot ablate head " + std::to_string(h) + ": the block has heads 0.." +
                        std::to_string(H - 1));
        auto block = concat.middleCols(h * Dk, Dk);  // head_h: (T, Dk)
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
    const int I = w.inner(), Ikv = w.kv_inner(), Dk = I / H;
    const auto bias = [&](const Vector& b, int i) { return b.size() ? b(i) : 0.0f; };
    AttentionResult result;
    Matrix concat(T, I);
    for (int h = 0; h < H; ++h) {
        const int g = h / (H / Hkv);  // the K/V head of query head h
        // Per-head textbook matrices W_Q^h: (D, Dk) = rows h·Dk… of W_in's Q block,
        // transposed; W_K^g, W_V^g from rows g·Dk… of its K and V blocks.
        Matrix wq(D, Dk), wk(D, Dk), wv(D, Dk);
        for (int d = 0; d < D; ++d)
            for (int c = 0; c < Dk; ++c) {
                wq(d, c) = w.in_proj_weight(h * Dk + c, d);
                wk(d, c) = w.in_proj_weight(I + g * Dk + c, d);
                wv(d, c) = w.in_proj_weight(I + Ikv + g * Dk + c, d);
            }
        Matrix q = x_query * wq, k = x_memory * wk, v = x_memory * wv;
        for (int c = 0; c < Dk; ++c) {
            q.col(c).array() += bias(w.in_proj_bias, h * Dk + c);
            k.col(c).array() += bias(w.in_proj_bias, I + g * Dk + c);
            v.col(c).array() += bias(w.in_proj_bias, I + Ikv + g * Dk + c);
        }
        Matrix a(T, S);
        for (int i = 0; i < T; ++i) {
            double row_max = -INFINITY;
            std::vector<double> s(S);
            for (int j = 0; j < S; ++j) {
                double dot = 0;
                for (int c = 0; c < Dk; ++c) dot += double(q(i, c)) * k(j, c);
                s[j] = mask.allowed(i, j) ? dot / std::sqrt(double(Dk)) : -INFINITY;
                row_max = std::max(row_max, s[j]);
            }
            double sum = 0;
            for (int j = 0; j < S; ++j) {
                s[j] = row_max == -INFINITY ? 0.0 : std::exp(s[j] - row_max);
                sum += s[j];
            }
            for (int j = 0; j < S; ++j) a(i, j) = sum > 0 ? static_cast<float>(s[j] / sum) : 0.f;
        }
        concat.middleCols(h * Dk, Dk) = a * v;
        result.weights.push_back(a);
    }
    result.output = concat * w.out_proj_weight.transpose();
    if (w.out_proj_bias.size()) result.output.rowwise() += w.out_proj_bias.transpose();
    return result;
}

}  // namespace hs
