// kernels::attend (attend.h): steps 1–3 of multi-head attention on the kernel seam
// (gemm::nn, gemm::nn_packed, kernels::softmax_row, parallel_for). Q_h is read in place;
// K_g and V_g are laid out for the kernel once per call (lay_out_keys_values).
#include "core/kernels/attend.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "core/kernels/gemm.h"
#include "core/kernels/packed_cache.h"
#include "core/kernels/parallel.h"
#include "core/kernels/scratch.h"
#include "core/kernels/softmax.h"
#include "core/kernels/stream_copy.h"

namespace hs::kernels {

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// Query row i of A: softmax over the keys the mask lets it see, the keys behind its
// window and the padded keys −∞ → exactly 0, the keys from visible(i) on (causal) set to 0
// (core/kernels/softmax.h).
void softmax_query_row(float* row, int i, Eigen::Index S, const AttentionMask& mask) {
    const int n_visible = mask.visible(i, int(S));
    std::fill(row, row + std::min(mask.first(i), n_visible), kNegInf);
    for (int j : mask.key_padding)
        if (j >= 0 && j < n_visible) row[j] = kNegInf;
    kernels::softmax_row(row, n_visible, int(S));
}

// K_g and V_g of one key/value head, laid out contiguously for the kernel:
//   k_panels: panel j = K_g[64j : 64j + 64]ᵀ, (Dh, 64) = Dh · 256 bytes, zeros past S
//             (gemm::pack_panel); ceil(S / 64) · Dh · 64 floats
//   v:        V_g, (S, Dh)
// Read in place, K_gᵀ's rows (row stride = the key count) or V_g's (row stride = the
// projection's width, 3 · inner for self-attention without shared K/V heads) lie a
// multiple of 4 KB apart at 1024 keys or 1024 inner columns: the rows a tile reads then
// share a few L1 sets and come from L2 every time (the scores and A·V of 1024 tokens ran
// at ~40 % of the kernel's peak).
struct HeadKeysValues {
    float* k_panels;
    float* v;
};

Eigen::Index key_panel_floats(Eigen::Index S, Eigen::Index Dh) {
    return (S + gemm::kPanel - 1) / gemm::kPanel * Dh * gemm::kPanel;
}

void lay_out_keys_values(const Eigen::Ref<const Matrix>& k, const Eigen::Ref<const Matrix>& v, int g,
                         Eigen::Index Dh, const HeadKeysValues& out) {
    const Eigen::Index S = k.rows();
    for (int j = 0; j * gemm::kPanel < S; ++j)
        gemm::pack_panel(k.data() + g * Dh, int(S), int(Dh), int(k.outerStride()), j,
                         out.k_panels + static_cast<long>(j) * Dh * gemm::kPanel);
    Eigen::Map<Matrix>(out.v, S, Dh) = v.middleCols(g * Dh, Dh);
}

// Query head h over query rows [r0, r0 + n), after the projections:
//   a: (n, keys) = Q_h[r0:r0+n] K_gᵀ · scale, written into rows r0… of A_h (or scratch),
//      64 keys at a time (one panel of kv.k_panels stays in L1 for every row); soft-capped
//      a ← cap · tanh(a / cap) when score.softcap > 0
//   softmax per row (causal: row r sees keys ≤ r; padded keys → exactly 0)
//   concat[r0:r0+n, h·Dh : (h+1)·Dh] = a · V_g[:keys]
// kv holds K_g and V_g (lay_out_keys_values).
void attend_rows(const Eigen::Ref<const Matrix>& q, int h, Eigen::Index Dh, Eigen::Index r0, Eigen::Index n,
                 Eigen::Index S, const HeadKeysValues& kv, ScoreMath score, const AttentionMask& mask,
                 Eigen::Ref<Matrix> concat, std::vector<Matrix>* weights, std::vector<Matrix>* scores) {
    // Causal: rows r0…r0+n−1 see keys 0…r0+n−1 only; a sliding window: none before
    // first(r0), from the panel holding it on (all keys when scores are kept). The skipped
    // keys' entries of A are set to −∞ → 0 by the softmax.
    const Eigen::Index keys = mask.causal && !scores ? std::min(S, r0 + n) : S;
    const Eigen::Index k0 =
        scores ? 0 : std::min<Eigen::Index>(mask.first(int(r0)), keys) / gemm::kPanel * gemm::kPanel;
    // The block's A rows in this thread's scratch (in L2 while the softmax and A·V read
    // them), then streamed into the map, which is read again only when shown: written
    // into the map directly, each of its lines was first read from memory and pushed the
    // block's K and V out of L2.
    thread_local Scratch scratch;
    float* a = scratch.get(n, S).data();
    const float* q_rows = q.data() + r0 * q.outerStride() + h * Dh;
    for (Eigen::Index j0 = k0; j0 < keys; j0 += gemm::kPanel)
        gemm::nn(int(n), int(std::min<Eigen::Index>(gemm::kPanel, keys - j0)), int(Dh), score.scale, q_rows,
                 int(q.outerStride()), kv.k_panels + j0 * Dh, gemm::kPanel, nullptr, a + j0, int(S));
    if (score.softcap > 0.0f)
        for (Eigen::Index r = 0; r < n; ++r) softcap_row(a + r * S + k0, int(keys - k0), score.softcap);
    if (scores) stream_copy(a, static_cast<long>(n) * S, (*scores)[h].row(r0).data());  // rows r0… of S_h
    for (Eigen::Index r = 0; r < n; ++r) softmax_query_row(a + r * S, int(r0 + r), S, mask);
    gemm::nn(int(n), int(Dh), int(keys - k0), 1.0f, a + k0, int(S), kv.v + k0 * Dh, int(Dh), nullptr,
             concat.data() + r0 * concat.outerStride() + h * Dh, int(concat.outerStride()));
    if (weights) stream_copy(a, static_cast<long>(n) * S, (*weights)[h].row(r0).data());  // rows r0… of A_h
}

void size_maps(std::vector<Matrix>* maps, int heads, Eigen::Index T, Eigen::Index S) {
    if (!maps) return;
    maps->resize(heads);
    for (Matrix& m : *maps) m.resize(T, S);
}

// Query rows per work item: small enough that a causal block skips most unseen keys and
// the block's scores stay in L2.
constexpr Eigen::Index kRowsPerBlock = 128;


// W_in's panels when the per-head path applies (attends_per_head), else null.
const gemm::PackedWeights* per_head_panels(const Matrix& w_in, int heads, int kv_heads, int T, int threads) {
    const int Dh = static_cast<int>(w_in.rows()) / (heads + 2 * kv_heads);
    const bool fits = kv_heads == heads && Dh % gemm::kPanel == 0 && heads >= 2 * threads &&
                      double(T) * double(w_in.size()) >= 1e6;
    return fits ? packed_panels(w_in) : nullptr;
}

// Self-attention, one work item per head that projects its own
//   [Q_h | K_h | V_h]: (T, 3·Dh) = X · [W_Q,h; W_K,h; W_V,h]ᵀ + b   (panels of W_in)
// into qkv: (T, 3I), rotates Q_h and K_h, then attends every block of query rows into
// concat: (T, I), so the threads meet once (before W_o) and X, W_h and the head's Q/K/V
// stay in cache.
void attend_per_head(const AttendInput& in, const gemm::PackedWeights& w_in, Eigen::Ref<Matrix> qkv,
                     Eigen::Ref<Matrix> concat, std::vector<Matrix>* weights, std::vector<Matrix>* scores,
                     Matrix* qkv_unrotated) {
    const Matrix& x = in.x_query;
    const Eigen::Index T = x.rows();
    const int H = in.heads, I = static_cast<int>(concat.cols()), Dh = I / H, per_head = Dh / gemm::kPanel;
    size_maps(weights, H, T, T);
    size_maps(scores, H, T, T);
    const auto Q = qkv.leftCols(I), K = qkv.middleCols(I, I), V = qkv.rightCols(I);
    const float* bias = in.b_in.size() ? in.b_in.data() : nullptr;
    parallel_for(H, [&](int h) {
        for (int part = 0; part < 3; ++part) {  // Q_h, K_h, V_h
            const int panel0 = (part * I + h * Dh) / gemm::kPanel;
            gemm::nn_packed(int(T), x.data(), int(x.cols()), w_in, panel0, per_head, bias, qkv.data(),
                            int(qkv.outerStride()));
        }
        if (qkv_unrotated)
            for (int part = 0; part < 3; ++part)
                qkv_unrotated->middleCols(part * I + h * Dh, Dh) = qkv.middleCols(part * I + h * Dh, Dh);
        if (in.prepare_qk) {  // this head's Q_h and K_h normalised and turned by position
            in.prepare_qk(qkv.middleCols(h * Dh, Dh), 1, false);
            in.prepare_qk(qkv.middleCols(I + h * Dh, Dh), 1, true);
        }
        thread_local Scratch k_scratch, v_scratch;  // this head's K_h and V_h, laid out
        const HeadKeysValues kv{k_scratch.get(1, key_panel_floats(T, Dh)).data(), v_scratch.get(T, Dh).data()};
        lay_out_keys_values(K, V, h, Dh, kv);
        for (Eigen::Index r0 = 0; r0 < T; r0 += kRowsPerBlock) {
            const Eigen::Index n = std::min(T, r0 + kRowsPerBlock) - r0;
            attend_rows(Q, h, Dh, r0, n, T, kv, in.score, in.mask, concat, weights, scores);
        }
    });
}

// Step 1 in the given buffers: self-attention [Q|K|V] (T, I + 2·Ikv) = X · W_inᵀ + b_in in
// q_buf; cross-attention Q (T, I) in q_buf from W_in's first I rows, [K|V] (S, 2·Ikv) in
// kv_buf from M and the other rows. Returns Q, K, V as column views of them.
Attended project(const AttendInput& in, int I, int Ikv, Eigen::Ref<Matrix> q_buf, Eigen::Ref<Matrix> kv_buf) {
    const bool self = &in.x_query == &in.x_memory;
    if (self) {
        linear(in.x_query, in.w_in, in.w_in_stored, in.b_in.size() ? &in.b_in : nullptr, q_buf);
        return {q_buf.leftCols(I), q_buf.middleCols(I, Ikv), q_buf.rightCols(Ikv)};
    }
    if (in.w_in_stored) throw Error("cross-attention does not run from weights left as stored");
    const bool biased = in.b_in.size() > 0;
    const Vector b_q = biased ? Vector(in.b_in.head(I)) : Vector();
    const Vector b_kv = biased ? Vector(in.b_in.tail(2 * Ikv)) : Vector();
    matmul_nt(in.x_query, in.w_in.topRows(I), biased ? &b_q : nullptr, q_buf);
    matmul_nt(in.x_memory, in.w_in.bottomRows(2 * Ikv), biased ? &b_kv : nullptr, kv_buf);
    return {q_buf, kv_buf.leftCols(Ikv), kv_buf.rightCols(Ikv)};
}

}  // namespace

bool attends_per_head(const Matrix& w_in, int heads, int kv_heads, int T, int threads) {
    return per_head_panels(w_in, heads, kv_heads, T, threads) != nullptr;
}

Attended attend(const AttendInput& in, Eigen::Ref<Matrix> concat, std::vector<Matrix>* weights,
                std::vector<Matrix>* scores, Matrix* qkv_unrotated) {
    const bool self = &in.x_query == &in.x_memory;
    const Eigen::Index T = in.x_query.rows(), S = in.x_memory.rows();
    const int H = in.heads, Hkv = in.kv_heads;
    const int Dh = static_cast<int>(in.w_in_rows()) / (H + 2 * Hkv), I = H * Dh, Ikv = Hkv * Dh;
    thread_local Scratch qkv_buf, kv_buf;  // Q, K, V: reused across heads, layers and calls
    if (const gemm::PackedWeights* panels = self && !in.w_in_stored ? per_head_panels(in.w_in, H, Hkv, int(T), thread_count()) : nullptr) {
        auto qkv = qkv_buf.get(T, 3 * I);
        if (qkv_unrotated) qkv_unrotated->resize(T, 3 * I);
        attend_per_head(in, *panels, qkv, concat, weights, scores, qkv_unrotated);
        return {qkv.leftCols(I), qkv.middleCols(I, I), qkv.rightCols(I)};
    }
    // 1. the projections
    auto q_buf = qkv_buf.get(T, self ? I + 2 * Ikv : I);
    auto kv_buf_view = kv_buf.get(self ? 0 : S, 2 * Ikv);
    Attended p = project(in, I, Ikv, q_buf, kv_buf_view);
    if (qkv_unrotated) *qkv_unrotated = q_buf;
    // 2. rotary positions
    if (in.prepare_qk) {
        in.prepare_qk(p.q, H, false);
        in.prepare_qk(p.k, Hkv, true);
    }
    // 3. every head's A_h and A_h V_g
    attend_heads(p.q, p.k, p.v, H, Hkv, in.score, in.mask, concat, weights, scores);
    return p;
}

void attend_heads(const Eigen::Ref<const Matrix>& q, const Eigen::Ref<const Matrix>& k,
                  const Eigen::Ref<const Matrix>& v, int heads, int kv_heads, ScoreMath score,
                  const AttentionMask& mask, Eigen::Ref<Matrix> concat,
                  std::vector<Matrix>* weights, std::vector<Matrix>* scores) {
    const Eigen::Index T = q.rows(), S = k.rows(), Dh = q.cols() / heads;
    const int group = heads / kv_heads;  // query heads per key/value head
    size_maps(weights, heads, T, S);
    size_maps(scores, heads, T, S);
    // Work items: (head, block of at most kRowsPerBlock query rows). Row blocks give the
    // second core work when there are few heads, keep a block's scores in L2 (and bound the
    // thread's scratch they are computed in), and let causal attention skip the keys no row
    // of a block sees.
    const int threads = thread_count();
    Eigen::Index blocks = heads >= 2 * threads ? 1 : (2 * threads + heads - 1) / heads;
    blocks = std::max<Eigen::Index>(blocks, (T + kRowsPerBlock - 1) / kRowsPerBlock);
    blocks = std::max<Eigen::Index>(1, std::min<Eigen::Index>(blocks, T / 16));
    const Eigen::Index rows_per_block = (T + blocks - 1) / blocks;
    blocks = (T + rows_per_block - 1) / rows_per_block;

    // Every key/value head laid out once, in the calling thread's scratch, read by all the
    // query heads of its group and all their row blocks.
    thread_local Scratch k_scratch, v_scratch;
    float* k_all = k_scratch.get(kv_heads, key_panel_floats(S, Dh)).data();
    float* v_all = v_scratch.get(kv_heads, S * Dh).data();
    const auto laid_out = [&](int g) {
        return HeadKeysValues{k_all + g * key_panel_floats(S, Dh), v_all + g * S * Dh};
    };
    const auto lay_out = [&](int g) { lay_out_keys_values(k, v, g, Dh, laid_out(g)); };
    const auto item = [&](int i) {
        const int h = static_cast<int>(i / blocks);
        const Eigen::Index r0 = (i % blocks) * rows_per_block;
        const Eigen::Index n = std::min(T, r0 + rows_per_block) - r0;
        attend_rows(q, h, Dh, r0, n, S, laid_out(h / group), score, mask, concat, weights, scores);
    };
    const int n_items = static_cast<int>(heads * blocks);
    if (double(heads) * double(T) * double(S) * double(Dh) < 1e5) {  // too small to be worth a wake-up
        for (int g = 0; g < kv_heads; ++g) lay_out(g);
        for (int i = 0; i < n_items; ++i) item(i);
    } else {
        parallel_for(kv_heads, lay_out);
        parallel_for(n_items, item);
    }
}


}  // namespace hs::kernels
