#include "core/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "core/kernels/parallel.h"
#include "core/kernels/scratch.h"
#include "core/kernels/softmax.h"

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

void check_shapes(const AttentionWeights& w, int heads, const Matrix& x_query, const Matrix& x_memory) {
    const auto D = w.in_proj_weight.cols();
    if (heads < 1 || w.in_proj_weight.rows() % 3 != 0 || w.inner() % heads != 0)
        throw Error("attention weights: in_proj_weight has " +
                    std::to_string(w.in_proj_weight.rows()) + " rows, not 3 × heads × d_k for " +
                    std::to_string(heads) + " heads");
    if (w.in_proj_bias.size() != w.in_proj_weight.rows() ||
        w.out_proj_weight.cols() != w.inner() || w.out_proj_bias.size() != w.out_proj_weight.rows())
        throw Error("attention weights: in_proj_bias, out_proj_weight or out_proj_bias has a "
                    "shape that does not match in_proj_weight (" +
                    std::to_string(w.in_proj_weight.rows()) + " × " + std::to_string(D) + ")");
    if (x_query.cols() != D || x_memory.cols() != D)
        throw Error("attention input has " + std::to_string(x_query.cols()) +
                    " columns, expected d_model " + std::to_string(D));
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
bool fused_heads_apply(const AttentionWeights& w, int H, int T, int threads) {
    const int Dk = w.inner() / H;
    return w.in_proj_packed && Dk % gemm::kPanel == 0 &&
           H >= 2 * threads && double(T) * w.in_proj_weight.size() >= 1e6;
}

void fused_heads(const AttentionWeights& w, int H, const Matrix& x, const AttentionMask& mask,
                 float scale, Eigen::Ref<Matrix> qkv, Eigen::Ref<Matrix> concat,
                 std::vector<Matrix>* weights, std::vector<Matrix>* scores) {
    const Eigen::Index T = x.rows();
    const int I = w.inner(), Dk = I / H, per_head = Dk / gemm::kPanel;
    size_maps(weights, H, T, T);
    size_maps(scores, H, T, T);
    const auto Q = qkv.leftCols(I), K = qkv.middleCols(I, I), V = qkv.rightCols(I);
    parallel_for(H, [&](int h) {
        for (int part = 0; part < 3; ++part) {  // Q_h, K_h, V_h
            const int panel0 = (part * I + h * Dk) / gemm::kPanel;
            gemm::nn_packed(int(T), x.data(), int(x.cols()), *w.in_proj_packed, panel0, per_head,
                            w.in_proj_bias.data(), qkv.data(), int(qkv.outerStride()));
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

// The step-by-step path: every intermediate of every head is copied into `steps`.
AttentionResult multi_head_attention_detailed(const AttentionWeights& w, int H, const Matrix& x_query,
                                              const Matrix& x_memory, const AttentionMask& mask,
                                              bool want_weights, bool want_scores,
                                              AttentionSteps* steps,
                                              const std::vector<int>& ablated,
                                              AblationMode ablate_mode) {
    const bool self = &x_query == &x_memory;
    const int T = static_cast<int>(x_query.rows()), S = static_cast<int>(x_memory.rows());
    const int I = w.inner(), Dk = I / H;
    const float scale = 1.0f / std::sqrt(static_cast<float>(Dk));

    // [Q|K|V]: (T, 3I) = X · W_inᵀ + b_in — one GEMM for all heads (self-attention).
    // Cross-attention: Q (T, I) from the queries' rows of W_in, [K|V] (S, 2I) from memory.
    Matrix q_part, kv_part;
    if (self) {
        q_part.resize(T, 3 * I);
        matmul_nt(x_query, w.in_proj_weight, &w.in_proj_bias, q_part, w.in_proj_packed.get());
    } else {
        const Vector b_q = w.in_proj_bias.head(I), b_kv = w.in_proj_bias.tail(2 * I);
        q_part.resize(T, I);
        kv_part.resize(S, 2 * I);
        matmul_nt(x_query, w.in_proj_weight.topRows(I), &b_q, q_part);
        matmul_nt(x_memory, w.in_proj_weight.bottomRows(2 * I), &b_kv, kv_part);
    }
    // Q, K, V as column-block views of the projection; no copies.
    const auto Q = q_part.leftCols(I);
    const auto K = self ? q_part.middleCols(I, I) : kv_part.leftCols(I);
    const auto V = self ? q_part.rightCols(I) : kv_part.rightCols(I);

    AttentionResult result;
    if (want_weights) result.weights.resize(H);
    if (want_scores) result.scores.resize(H);
    Matrix concat(T, I);  // [head_1 | … | head_H]
    Matrix scores(T, S);
    for (int h = 0; h < H; ++h) {
        const auto Q_h = Q.middleCols(h * Dk, Dk);  // (T, Dk)
        const auto K_h = K.middleCols(h * Dk, Dk);  // (S, Dk)
        const auto V_h = V.middleCols(h * Dk, Dk);  // (S, Dk)
        // scores -> A_h: (T, S); head_h: (T, Dk) lands in its concat block
        attend_head(Q_h, K_h, V_h, scale, mask, scores, concat.middleCols(h * Dk, Dk),
                    want_scores ? &result.scores[h] : nullptr, steps);
        if (want_weights) result.weights[h] = scores;
    }
    ablate_heads(concat, ablated, H, ablate_mode);
    // out: (T, D) = concat · W_oᵀ + b_o
    result.output.resize(T, w.out_proj_weight.rows());
    matmul_nt(concat, w.out_proj_weight, &w.out_proj_bias, result.output, w.out_proj_packed.get());

    if (steps) {
        steps->x_query = x_query;
        steps->x_memory = x_memory;
        steps->w_in = w.in_proj_weight;
        steps->b_in = w.in_proj_bias;
        if (self) {
            steps->qkv = q_part;
        } else {  // rows: T queries on the left block, S memory rows on the K/V blocks
            steps->qkv = Matrix::Zero(std::max(T, S), 3 * I);
            steps->qkv.topLeftCorner(T, I) = q_part;
            steps->qkv.topRightCorner(S, 2 * I) = kv_part;
        }
        steps->q = Q;
        steps->k = K;
        steps->v = V;
        steps->concat = concat;
        steps->w_out = w.out_proj_weight;
        steps->b_out = w.out_proj_bias;
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
    return multi_head_attention(w, w.heads, x_query, x_memory, mask, want_weights, want_scores, steps,
                                ablated, ablate_mode);
}

AttentionResult multi_head_attention(const AttentionWeights& w, int H, const Matrix& x_query,
                                     const Matrix& x_memory, const AttentionMask& mask,
                                     bool want_weights, bool want_scores, AttentionSteps* steps,
                                     const std::vector<int>& ablated, AblationMode ablate_mode) {
    check_shapes(w, H, x_query, x_memory);
    if (steps)
        return multi_head_attention_detailed(w, H, x_query, x_memory, mask, want_weights,
                                             want_scores, steps, ablated, ablate_mode);
    const bool self = &x_query == &x_memory;
    const Eigen::Index T = x_query.rows(), S = x_memory.rows(), D = w.out_proj_weight.rows();
    const int I = w.inner(), Dk = I / H;
    const float scale = 1.0f / std::sqrt(static_cast<float>(Dk));
    // Projections land in per-thread scratch reused across heads, layers and calls.
    thread_local Scratch qkv_buf, kv_buf, concat_buf;
    AttentionResult result;
    auto concat = concat_buf.get(T, I);  // [head_1 | … | head_H]: (T, I)
    if (self && fused_heads_apply(w, H, int(T), thread_count())) {
        fused_heads(w, H, x_query, mask, scale, qkv_buf.get(T, 3 * I), concat,
                    want_weights ? &result.weights : nullptr,
                    want_scores ? &result.scores : nullptr);
    } else if (self) {
        // [Q|K|V]: (T, 3I) = X · W_inᵀ + b_in — one GEMM for all heads
        auto qkv = qkv_buf.get(T, 3 * I);
        matmul_nt(x_query, w.in_proj_weight, &w.in_proj_bias, qkv, w.in_proj_packed.get());
        attend_heads(qkv.leftCols(I), qkv.middleCols(I, I), qkv.rightCols(I), H, H, scale,
                     mask, concat, want_weights ? &result.weights : nullptr,
                     want_scores ? &result.scores : nullptr);
    } else {
        // Q: (T, I) from the queries; [K|V]: (S, 2I) from memory
        const Vector b_q = w.in_proj_bias.head(I), b_kv = w.in_proj_bias.tail(2 * I);
        auto q = qkv_buf.get(T, I);
        auto kv = kv_buf.get(S, 2 * I);
        matmul_nt(x_query, w.in_proj_weight.topRows(I), &b_q, q);
        matmul_nt(x_memory, w.in_proj_weight.bottomRows(2 * I), &b_kv, kv);
        attend_heads(q, kv.leftCols(I), kv.rightCols(I), H, H, scale, mask, concat,
                     want_weights ? &result.weights : nullptr,
                     want_scores ? &result.scores : nullptr);
    }
    ablate_heads(concat, ablated, H, ablate_mode);
    // out: (T, D) = concat · W_oᵀ + b_o
    result.output.resize(T, D);
    matmul_nt(concat, w.out_proj_weight, &w.out_proj_bias, result.output, w.out_proj_packed.get());
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
    check_shapes(w, w.heads, x_query, x_memory);
    const int T = static_cast<int>(x_query.rows()), S = static_cast<int>(x_memory.rows());
    const int D = static_cast<int>(w.in_proj_weight.cols());
    const int I = w.inner(), H = w.heads, Dk = I / H;
    AttentionResult result;
    Matrix concat(T, I);
    for (int h = 0; h < H; ++h) {
        // Per-head textbook matrices W_Q^h: (D, Dk) = rows h·Dk… of W_in's Q block, transposed.
        Matrix wq(D, Dk), wk(D, Dk), wv(D, Dk);
        for (int d = 0; d < D; ++d)
            for (int c = 0; c < Dk; ++c) {
                wq(d, c) = w.in_proj_weight(h * Dk + c, d);
                wk(d, c) = w.in_proj_weight(I + h * Dk + c, d);
                wv(d, c) = w.in_proj_weight(2 * I + h * Dk + c, d);
            }
        Matrix q = x_query * wq, k = x_memory * wk, v = x_memory * wv;
        for (int c = 0; c < Dk; ++c) {
            q.col(c).array() += w.in_proj_bias(h * Dk + c);
            k.col(c).array() += w.in_proj_bias(I + h * Dk + c);
            v.col(c).array() += w.in_proj_bias(2 * I + h * Dk + c);
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
    result.output.rowwise() += w.out_proj_bias.transpose();
    return result;
}

}  // namespace hs
