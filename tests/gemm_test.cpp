// The matrix-product kernels (core/kernels/gemm.h) against a double-precision triple loop, over
// shapes that hit every edge of their tiles (rows not a multiple of 6, columns not a
// multiple of 16 or 64), row strides wider than the rows (strips of b copied, or read in
// place when deeper than 4096), unaligned starts, bias and alpha;
// and the fast attention paths they feed against the naive per-head reference. Every test
// runs once per SIMD level (avx512, avx2, generic: tests/simd_levels.h), with the thread
// count fixed by CTest (HEADSCOPE_THREADS).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "core/model/attention.h"
#include "core/kernels/attend.h"
#include "core/kernels/gemm.h"
#include "core/kernels/matmul.h"
#include "core/kernels/packed_cache.h"
#include "core/kernels/parallel.h"
#include "core/kernels/scratch.h"
#include "core/rng.h"
#include "core/model/weights.h"
#include "core/kernels/matmul.h"
#include "tests/attention_run.h"
#include "tests/packed_weights.h"
#include "tests/simd_levels.h"

namespace hs {
namespace {

// A row-major (rows, cols) block inside a buffer with row stride ld, starting `offset`
// floats in (offset 1 makes every row start off a 64-byte boundary).
struct Strided {
    int rows, cols, ld, offset;
    std::vector<float> buf;
    Strided(int r, int c, int extra_cols, int off, std::uint64_t seed)
        : rows(r), cols(c), ld(c + extra_cols), offset(off), buf(off + std::size_t(r) * (c + extra_cols) + 1) {
        Rng rng(seed);
        for (float& x : buf) x = rng.uniform(-1.0f, 1.0f);
    }
    float* data() { return buf.data() + offset; }
    float at(int i, int j) const { return buf[offset + std::size_t(i) * ld + j]; }
};

// c = alpha · a · b (+ bias), accumulated in double.
std::vector<double> reference_nn(const Strided& a, const Strided& b, float alpha,
                                 const std::vector<float>* bias) {
    std::vector<double> c(std::size_t(a.rows) * b.cols);
    for (int i = 0; i < a.rows; ++i)
        for (int j = 0; j < b.cols; ++j) {
            double s = 0;
            for (int k = 0; k < a.cols; ++k) s += double(a.at(i, k)) * b.at(k, j);
            c[std::size_t(i) * b.cols + j] = alpha * s + (bias ? (*bias)[j] : 0.0);
        }
    return c;
}

class GemmNn : public test::AtSimdLevel {};
class GemmTranspose : public test::AtSimdLevel {};
class GemmPacked : public test::AtSimdLevel {};
class PackedAttention : public test::AtSimdLevel {};
HEADSCOPE_AT_EVERY_SIMD_LEVEL(GemmNn);
HEADSCOPE_AT_EVERY_SIMD_LEVEL(GemmTranspose);
HEADSCOPE_AT_EVERY_SIMD_LEVEL(GemmPacked);
HEADSCOPE_AT_EVERY_SIMD_LEVEL(PackedAttention);
class Matmul : public test::AtSimdLevel {};
HEADSCOPE_AT_EVERY_SIMD_LEVEL(Matmul);

struct Shape {
    int m, n, k;
};

TEST_P(GemmNn, MatchesDoubleReferenceOnEveryTileEdge) {
    for (const Shape s : {Shape{1, 1, 1}, Shape{6, 64, 64}, Shape{7, 65, 3}, Shape{5, 17, 40},
                          Shape{13, 130, 64}, Shape{128, 64, 128}, Shape{2, 200, 1},
                          // last tiles of 3 and 4 rows (a 4-row tile), of 1 and 2 (a 2-row tile)
                          Shape{4, 33, 20}, Shape{9, 64, 50}, Shape{10, 80, 31},
                          // b wider than a tile at every level, as deep as the kernel
                          // copies strips of b and deeper (read in place)
                          Shape{7, 70, 4096}, Shape{13, 70, 4100}}) {
        for (int offset : {0, 1}) {
            SCOPED_TRACE(testing::Message() << s.m << "×" << s.k << " · " << s.k << "×" << s.n
                                            << " offset " << offset);
            Strided a(s.m, s.k, 5, offset, 1), b(s.k, s.n, 3, offset, 2);
            // Stride wider than the result, and two guard rows below it: a tile that stored a
            // row past the last would write there.
            Strided c(s.m + 2, s.n, 7, offset, 3);
            const std::vector<float> before = c.buf;
            std::vector<float> bias(s.n);
            Rng rng(4);
            for (float& x : bias) x = rng.uniform(-1.0f, 1.0f);
            gemm::nn(s.m, s.n, s.k, 0.5f, a.data(), a.ld, b.data(), b.ld, bias.data(), c.data(), c.ld);
            const std::vector<double> want = reference_nn(a, b, 0.5f, &bias);
            for (int i = 0; i < s.m; ++i)
                for (int j = 0; j < c.ld; ++j) {
                    const std::size_t at = offset + std::size_t(i) * c.ld + j;
                    if (j < s.n)
                        ASSERT_NEAR(c.buf[at], want[std::size_t(i) * s.n + j], 1e-5 * (1 + s.k))
                            << "c(" << i << ", " << j << ")";
                    else  // padding between rows is never written
                        ASSERT_EQ(c.buf[at], before[at]) << "padding (" << i << ", " << j << ")";
                }
            for (std::size_t at = offset + std::size_t(s.m) * c.ld; at < c.buf.size(); ++at)
                ASSERT_EQ(c.buf[at], before[at]) << "past the last row, float " << at;
        }
    }
}

TEST_P(GemmNn, WithoutBiasComputesThePlainProduct) {
    Strided a(3, 2, 0, 0, 5), b(2, 2, 0, 0, 6);
    // a = [[1, 2], [3, 4], [5, 6]], b = [[1, 0], [1, 1]] → a·b = [[3, 2], [7, 4], [11, 6]]
    const float av[] = {1, 2, 3, 4, 5, 6}, bv[] = {1, 0, 1, 1};
    std::copy(av, av + 6, a.data());
    std::copy(bv, bv + 4, b.data());
    float c[6] = {};
    gemm::nn(3, 2, 2, 1.0f, a.data(), 2, b.data(), 2, nullptr, c, 2);
    const float want[] = {3, 2, 7, 4, 11, 6};
    for (int i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(c[i], want[i]) << i;
}

TEST_P(GemmTranspose, SwapsRowsAndColumns) {
    Strided b(19, 5, 2, 1, 7);
    std::vector<float> bt(5 * 23, -7.0f);
    gemm::transpose(19, 5, b.data(), b.ld, bt.data(), 23);
    for (int r = 0; r < 19; ++r)
        for (int k = 0; k < 5; ++k) ASSERT_EQ(bt[k * 23 + r], b.at(r, k)) << r << "," << k;
    for (int k = 0; k < 5; ++k)
        for (int r = 19; r < 23; ++r) ASSERT_EQ(bt[k * 23 + r], -7.0f);
}

TEST_P(GemmTranspose, BlocksOfSixteenAndTheirEdges) {
    // 37 × 45: two full 16 × 16 blocks of rows, a 5-row rest, a 13-column rest, strides
    // wider than the matrices (the vectorised block path and the scalar edges).
    Strided b(37, 45, 3, 1, 11);
    std::vector<float> bt(45 * 40, -7.0f);
    gemm::transpose(37, 45, b.data(), b.ld, bt.data(), 40);
    for (int r = 0; r < 37; ++r)
        for (int k = 0; k < 45; ++k) ASSERT_EQ(bt[k * 40 + r], b.at(r, k)) << r << "," << k;
    for (int k = 0; k < 45; ++k)
        for (int r = 37; r < 40; ++r) ASSERT_EQ(bt[k * 40 + r], -7.0f);
}

TEST_P(GemmPacked, LinearLayerEqualsXTimesWTransposedPlusBias) {
    // For 64 (… 256) rows the first product is the transposed one (gemm::nn_packing), for
    // 1, 9, 40 and 130 rows each panel is packed into a thread buffer just before use; the
    // 64 × 200 × 600 shape has three k blocks, and runs with and without a bias. The last shape
    // has more rows than one row block (256), a partial last panel and more inputs than
    // one k block (256).
    struct Case {
        Shape shape;
        bool with_bias;
    };
    for (const auto& [shape, with_bias] : {Case{{1, 1, 1}, true}, Case{{9, 70, 33}, true}, Case{{130, 192, 64}, true},
                                           Case{{40, 128, 300}, true}, Case{{64, 200, 600}, true},
                                           Case{{64, 200, 600}, false}, Case{{300, 100, 270}, true}}) {
        SCOPED_TRACE(testing::Message() << "x " << shape.m << "×" << shape.k << ", W " << shape.n << "×" << shape.k
                                        << (with_bias ? "" : ", no bias"));
        Rng rng(8);
        Matrix x(shape.m, shape.k), w(shape.n, shape.k);
        Vector bias = Vector::Zero(shape.n);
        for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = rng.uniform(-1, 1);
        for (Eigen::Index i = 0; i < w.size(); ++i) w.data()[i] = rng.uniform(-1, 1);
        if (with_bias)
            for (int i = 0; i < shape.n; ++i) bias(i) = rng.uniform(-1, 1);
        const Vector* b = with_bias ? &bias : nullptr;  // a zero bias for the reference
        const gemm::PackedWeights p = gemm::pack(w.data(), shape.n, shape.k, shape.k);
        EXPECT_EQ(p.panels(), (shape.n + 63) / 64);
        // Panel q, input i holds W[64q + j][i] in lane j; a last panel's missing outputs are 0.
        for (int q = 0; q < p.panels(); ++q)
            for (int i = 0; i < shape.k; ++i)
                for (int j = 0; j < 64; ++j)
                    ASSERT_EQ(p.panel(q)[i * 64 + j], 64 * q + j < shape.n ? w(64 * q + j, i) : 0.0f) << q << "," << i << "," << j;
        // matmul_nt finds w in the packed-weight cache while `cached` lives: its first
        // product packs each panel on the fly and keeps nothing, the second packs the
        // panels and keeps them, the third reads them (nn_packed); all compute the same floats.
        Matrix first(shape.m, shape.n), second(shape.m, shape.n), third(shape.m, shape.n);
        {
            const PackedPanels cached(nullptr, {WeightRows::of(w)});
            EXPECT_EQ(packed_panels(w), nullptr);
            EXPECT_EQ(cached.bytes(), 0u);
            matmul_nt(x, w, b, first);
            EXPECT_EQ(packed_panels(w), nullptr);
            matmul_nt(x, w, b, second);
            const gemm::PackedWeights* kept = packed_panels(w);
            ASSERT_NE(kept, nullptr);
            EXPECT_EQ(kept->data, p.data);
            EXPECT_EQ(cached.bytes(), std::size_t(p.data.size()) * sizeof(float));
            matmul_nt(x, w, b, third);
        }
        EXPECT_EQ(packed_panels(w), nullptr);
        EXPECT_EQ(first, second);
        EXPECT_EQ(first, third);
        // A weight the cache does not hold (a layer read from its file): the same packed
        // kernel, unless kernels::matmul hands the product to BLAS at this level.
        Matrix unregistered(shape.m, shape.n);
        matmul_nt(x, w, b, unregistered);
        if (shape.m > gemm::kDotRows && !kernels::hands_products_to_blas()) {
            EXPECT_EQ(unregistered, first);
        }
        const Eigen::MatrixXd want =
            (x.cast<double>() * w.cast<double>().transpose()).rowwise() + bias.cast<double>().transpose();
        EXPECT_LT((first.cast<double>() - want).cwiseAbs().maxCoeff(), 1e-5 * (1 + shape.k));
        EXPECT_LT((unregistered.cast<double>() - want).cwiseAbs().maxCoeff(), 1e-5 * (1 + shape.k));
    }
}

// No inputs (K = 0): every row of c is the bias, whichever path the weight takes.
TEST_P(GemmPacked, AProductOfNoInputsIsTheBias) {
    for (const int m : {3, 64, 100}) {
        const Matrix x(m, 0), w(70, 0);
        const Vector bias = Vector::LinSpaced(70, -1.0f, 1.0f);
        Matrix c = Matrix::Constant(m, 70, 7.0f);
        matmul_nt(x, w, &bias, c);
        for (int i = 0; i < m; ++i) ASSERT_EQ(Vector(c.row(i).transpose()), bias) << m << " rows, row " << i;
    }
}

AttentionWeights random_attention(int D, int H, std::uint64_t seed) {
    ModelConfig c;
    c.d_model = D;
    c.heads = H;
    c.layers = 1;
    c.d_ff = D;
    c.vocab = 8;
    c.max_len = 8;
    c.seed = seed;
    ModelWeights all = init_weights(c);
    AttentionWeights w = all.layers[0].self_attn;
    Rng rng(seed + 1);  // non-zero biases, so a misplaced bias shows
    for (int i = 0; i < w.in_proj_bias.size(); ++i) w.in_proj_bias(i) = rng.uniform(-0.5f, 0.5f);
    for (int i = 0; i < w.out_proj_bias.size(); ++i) w.out_proj_bias(i) = rng.uniform(-0.5f, 0.5f);
    return w;
}

// Dh = 64 and 128 with at least 2 heads per thread take the per-head fused path
// (projection and attention in one work item); the naive reference shares none of its code.
TEST_P(PackedAttention, EveryPathEqualsNaiveReference) {
    struct Case {
        int T, D, H;
        bool causal;
        std::vector<int> padding;
        int window = 0;
    };
    for (const Case& c : {Case{9, 256, 4, false, {}}, Case{130, 512, 4, true, {}},
                          Case{20, 512, 8, false, {3, 19}}, Case{40, 1024, 8, true, {0}},
                          Case{150, 512, 4, true, {}, 20}}) {
        SCOPED_TRACE(testing::Message() << "T=" << c.T << " D=" << c.D << " H=" << c.H);
        const AttentionWeights w = random_attention(c.D, c.H, 21);
        const PackedPanels cached(nullptr, {WeightRows::of(w.in_proj_weight), WeightRows::of(w.out_proj_weight)});
        Rng rng(22);
        Matrix x(c.T, c.D);
        for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = rng.normal();
        AttentionMask mask;
        mask.causal = c.causal;
        mask.key_padding = c.padding;
        mask.window = c.window;
        // The weights' first products pack their panels on the fly (no fused path yet).
        ASSERT_FALSE(kernels::attends_per_head(w.in_proj_weight, c.H, c.H, c.T, 2));
        const AttentionRun first = run_attention(w, x, x,
            {.mask = mask});
        ASSERT_NE(test::pack_registered(w.in_proj_weight), nullptr);
        // With CTest's 2 threads (HEADSCOPE_THREADS) every case takes the fused per-head path.
        ASSERT_TRUE(kernels::attends_per_head(w.in_proj_weight, c.H, c.H, c.T, 2));
        const AttentionRun fast = run_attention(w, x, x, {.mask = mask}, nullptr, /*scores=*/true);
        const AttentionResult naive = multi_head_attention_naive(w, x, x, mask);
        // The other two paths: unpacked weights (BLAS projections, per-head kernels) and
        // the step-by-step capture the Pipeline shows.
        const AttentionWeights plain = w;  // a copy the cache does not hold
        ASSERT_EQ(test::pack_registered(plain.in_proj_weight), nullptr);
        AttentionSteps steps;
        const AttentionRun unpacked = run_attention(plain, x, x, {.mask = mask});
        const AttentionRun detailed = run_attention(w, x, x,
            {.mask = mask}, &steps);
        EXPECT_LT((first.output - naive.output).cwiseAbs().maxCoeff(), 2e-4f);
        EXPECT_LT((unpacked.output - naive.output).cwiseAbs().maxCoeff(), 2e-4f);
        EXPECT_LT((detailed.output - naive.output).cwiseAbs().maxCoeff(), 2e-4f);
        for (int h = 0; h < c.H; ++h) {
            EXPECT_LT((first.weights[h] - naive.weights[h]).cwiseAbs().maxCoeff(), 1e-5f) << "head " << h;
            EXPECT_LT((unpacked.weights[h] - naive.weights[h]).cwiseAbs().maxCoeff(), 1e-5f) << "head " << h;
            EXPECT_LT((steps.weights[h] - naive.weights[h]).cwiseAbs().maxCoeff(), 1e-5f) << "head " << h;
        }
        EXPECT_LT((fast.output - naive.output).cwiseAbs().maxCoeff(), 2e-4f);
        ASSERT_EQ(fast.weights.size(), std::size_t(c.H));
        for (int h = 0; h < c.H; ++h) {
            EXPECT_LT((fast.weights[h] - naive.weights[h]).cwiseAbs().maxCoeff(), 1e-5f) << "head " << h;
            for (int j : c.padding) EXPECT_EQ(fast.weights[h].col(j).cwiseAbs().maxCoeff(), 0.0f);
        }
        // Scores: the scaled pre-mask Q_h K_hᵀ / √Dh of every head, every cell (each row
        // block lands in its own rows of the map).
        const int Dh = c.D / c.H, I = c.D;
        const Matrix qkv = (x * w.in_proj_weight.transpose()).rowwise() + w.in_proj_bias.transpose();
        ASSERT_EQ(fast.scores.size(), std::size_t(c.H));
        for (int h = 0; h < c.H; ++h) {
            const Matrix want = qkv.middleCols(h * Dh, Dh) * qkv.middleCols(I + h * Dh, Dh).transpose() /
                                std::sqrt(float(Dh));
            ASSERT_EQ(fast.scores[h].rows(), want.rows());
            EXPECT_LT((fast.scores[h] - want).cwiseAbs().maxCoeff(), 1e-3f * (1 + want.cwiseAbs().maxCoeff()))
                << "head " << h;
        }
    }
}

// Gemma 2's soft-capped scores, S_h = c·tanh(Q_h K_hᵀ / √Dh / c) with c = 0.5 (tight: most
// scores bend), on the per-head path (packed weights, scores kept and not) and the all-heads
// path (unpacked), against a hand loop in double: the scores and the causal softmax of them.
TEST_P(PackedAttention, SoftCappedScoresOnEveryPathEqualAHandLoop) {
    const int T = 130, D = 512, H = 4, Dh = D / H;
    const float cap = 0.5f;
    const AttentionWeights w = random_attention(D, H, 23);
    const PackedPanels cached(nullptr, {WeightRows::of(w.in_proj_weight), WeightRows::of(w.out_proj_weight)});
    Rng rng(24);
    Matrix x(T, D);
    for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = rng.normal();
    AttentionMask mask;
    mask.causal = true;
    const AttentionOptions options{.mask = mask, .softcap = cap};
    ASSERT_NE(test::pack_registered(w.in_proj_weight), nullptr);
    ASSERT_TRUE(kernels::attends_per_head(w.in_proj_weight, H, H, T, 2));
    const AttentionWeights plain = w;  // not in the cache: the all-heads path
    const AttentionRun per_head = run_attention(w, x, x, options, nullptr, /*scores=*/true);
    const AttentionRun per_head_skipping = run_attention(w, x, x, options);  // unseen keys skipped
    const AttentionRun all_heads = run_attention(plain, x, x, options, nullptr, /*scores=*/true);
    const Eigen::MatrixXd qkv =
        ((x * w.in_proj_weight.transpose()).rowwise() + w.in_proj_bias.transpose()).cast<double>();
    for (int h = 0; h < H; ++h) {
        SCOPED_TRACE(testing::Message() << "head " << h);
        const Eigen::MatrixXd raw =
            qkv.middleCols(h * Dh, Dh) * qkv.middleCols(D + h * Dh, Dh).transpose() / std::sqrt(double(Dh));
        const Eigen::MatrixXd capped = raw.unaryExpr([&](double s) { return cap * std::tanh(s / cap); });
        Eigen::MatrixXd probs = Eigen::MatrixXd::Zero(T, T);
        for (int i = 0; i < T; ++i) {
            const double top = capped.row(i).head(i + 1).maxCoeff();
            const Eigen::ArrayXd e = (capped.row(i).head(i + 1).array() - top).exp();
            probs.row(i).head(i + 1) = e / e.sum();
        }
        EXPECT_GT((raw - capped).cwiseAbs().maxCoeff(), 1.0);  // the cap bends these scores
        for (const AttentionRun* run : {&per_head, &all_heads})
            EXPECT_LT((run->scores[h].cast<double>() - capped).cwiseAbs().maxCoeff(), 2e-5);
        for (const AttentionRun* run : {&per_head, &per_head_skipping, &all_heads})
            EXPECT_LT((run->weights[h].cast<double>() - probs).cwiseAbs().maxCoeff(), 1e-5);
    }
}

// Grouped-query attention (query head h reads K/V head h / (H/Hkv)) without biases, as
// Llama runs it: the packed path, the unpacked path and the step-by-step capture against
// the naive reference, which builds per-head matrices from W_in's rows by hand.
TEST_P(PackedAttention, GroupedQueryAttentionWithoutBiasesEqualsNaiveReference) {
    struct Case {
        int T, D, H, Hkv;
        bool causal;
    };
    for (const Case& c : {Case{9, 64, 8, 2, true}, Case{70, 256, 4, 1, false}, Case{33, 512, 8, 4, true}}) {
        SCOPED_TRACE(testing::Message() << "T=" << c.T << " D=" << c.D << " H=" << c.H << " Hkv=" << c.Hkv);
        ModelConfig cfg;
        cfg.d_model = c.D;
        cfg.heads = c.H;
        cfg.kv_heads = c.Hkv;
        cfg.layers = 1;
        cfg.d_ff = 8;
        cfg.vocab = 8;
        cfg.max_len = 8;
        cfg.seed = 31;
        cfg.qkv_bias = cfg.out_bias = cfg.mlp_bias = false;
        const ModelWeights all = init_weights(cfg);
        const AttentionWeights& w = all.layers[0].self_attn;
        const PackedPanels cached(nullptr, {WeightRows::of(w.in_proj_weight), WeightRows::of(w.out_proj_weight)});
        ASSERT_EQ(w.kv_inner(), c.Hkv * c.D / c.H);
        ASSERT_EQ(w.in_proj_bias.size(), 0);
        Rng rng(32);
        Matrix x(c.T, c.D);
        for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = rng.normal();
        AttentionMask mask;
        mask.causal = c.causal;
        const AttentionResult naive = multi_head_attention_naive(w, x, x, mask);
        const AttentionWeights plain = w;  // a copy the cache does not hold
        AttentionSteps steps;
        const AttentionRun first = run_attention(w, x, x,
            {.mask = mask});  // panels on the fly
        ASSERT_NE(test::pack_registered(w.in_proj_weight), nullptr);
        const AttentionRun fast = run_attention(w, x, x, {.mask = mask});
        const AttentionRun unpacked = run_attention(plain, x, x, {.mask = mask});
        const AttentionRun detailed = run_attention(w, x, x,
            {.mask = mask}, &steps);
        for (const AttentionResult* r : {&first, &fast, &unpacked, &detailed}) {
            EXPECT_LT((r->output - naive.output).cwiseAbs().maxCoeff(), 2e-4f);
            for (int h = 0; h < c.H; ++h)
                EXPECT_LT((r->weights[h] - naive.weights[h]).cwiseAbs().maxCoeff(), 1e-5f) << "head " << h;
        }
        // The steps hold W_in and QKV as the model has them, (I + 2·Ikv, D) and (T, I + 2·Ikv),
        // and K/V per query head: K_h of heads sharing a K/V head agree, and so do their
        // textbook W_K^h, W_V^h (D, Dh).
        ASSERT_EQ(steps.k_heads.size(), std::size_t(c.H));
        EXPECT_EQ(steps.k_heads[0], steps.k_heads[c.H / c.Hkv - 1]);
        const int I = w.inner(), Ikv = w.kv_inner(), Dh = I / c.H;
        EXPECT_EQ(steps.w_in, w.in_proj_weight);
        ASSERT_EQ(steps.qkv.rows(), c.T);
        ASSERT_EQ(steps.qkv.cols(), I + 2 * Ikv);
        EXPECT_LT((steps.qkv - x * w.in_proj_weight.transpose()).cwiseAbs().maxCoeff(), 1e-4f);  // no bias
        EXPECT_EQ(steps.kv_memory.size(), 0);
        ASSERT_EQ(steps.w_k_heads.size(), std::size_t(c.H));
        for (int h = 0; h < c.H; ++h) {
            const int g = h / (c.H / c.Hkv);
            const Matrix w_k = w.in_proj_weight.middleRows(I + g * Dh, Dh), w_v = w.in_proj_weight.middleRows(I + Ikv + g * Dh, Dh);
            EXPECT_EQ(steps.w_q_heads[h], Matrix(w.in_proj_weight.middleRows(h * Dh, Dh).transpose())) << "head " << h;
            EXPECT_EQ(steps.w_k_heads[h], Matrix(w_k.transpose())) << "head " << h;
            EXPECT_EQ(steps.w_v_heads[h], Matrix(w_v.transpose())) << "head " << h;
        }
        EXPECT_EQ(steps.w_o, Matrix(w.out_proj_weight.transpose()));
    }
}

// kernels::matmul (the trainer's products): every combination of transposes, on column
// blocks of wider matrices, plain and accumulating, against a double-precision sum.
TEST_P(Matmul, EveryTransposeOfBlocksEqualsTheDoubleProduct) {
    using kernels::Op;
    Rng rng(77);
    const auto random = [&](Eigen::Index r, Eigen::Index c) {
        Matrix m(r, c);
        for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = rng.uniform(-1.0f, 1.0f);
        return m;
    };
    const int n = 70, k = 37;  // tile edges at every level
    for (const int m : {13, 3})  // 3: a·bᵀ takes gemm::nt_dots
    for (const Op op_a : {Op::Plain, Op::Transposed})
        for (const Op op_b : {Op::Plain, Op::Transposed}) {
            // a and b sit 3 columns into wider matrices (a row stride that is not their width).
            const Matrix a_store = op_a == Op::Plain ? random(m, k + 5) : random(k, m + 5);
            const Matrix b_store = op_b == Op::Plain ? random(k, n + 5) : random(n, k + 5);
            const auto a = op_a == Op::Plain ? a_store.middleCols(3, k) : a_store.middleCols(3, m);
            const auto b = op_b == Op::Plain ? b_store.middleCols(3, n) : b_store.middleCols(3, k);
            Eigen::MatrixXd want = (op_a == Op::Plain ? Eigen::MatrixXd(a.cast<double>()) : Eigen::MatrixXd(a.cast<double>().transpose())) *
                                   (op_b == Op::Plain ? Eigen::MatrixXd(b.cast<double>()) : Eigen::MatrixXd(b.cast<double>().transpose()));
            const Matrix c = kernels::matmul(a, op_a, b, op_b);
            ASSERT_EQ(c.rows(), m);
            ASSERT_EQ(c.cols(), n);
            EXPECT_LT((c.cast<double>() - want).cwiseAbs().maxCoeff(), 1e-5) << int(op_a) << int(op_b);
            // c += the product, into a column block of a wider matrix.
            Matrix wide = random(m, n + 4);
            const Eigen::MatrixXd before = wide.middleCols(2, n).cast<double>();
            kernels::matmul(a, op_a, b, op_b, wide.middleCols(2, n), /*accumulate=*/true);
            EXPECT_LT((wide.middleCols(2, n).cast<double>() - before - want).cwiseAbs().maxCoeff(), 1e-5);
        }
}

// gemm::nt_dots (a few rows against bᵀ, the LM head): every row count it takes, a column
// count with a remainder past its blocks of four, k with a partial last vector at every
// level, row strides wider than the rows and unaligned starts; plain and accumulating.
TEST_P(GemmNn, FewRowsAgainstTransposedRowsAreDotProductsOfRows) {
    for (int m = 1; m <= gemm::kDotRows; ++m)
        for (const int k : {1, 7, 16, 37, 768}) {
            SCOPED_TRACE("m " + std::to_string(m) + " k " + std::to_string(k));
            const int n = 23;
            Strided a(m, k, 3, 1, 40 + m), b(n, k, 5, 1, 50 + k);
            Strided c(m, n, 2, 1, 60);
            const std::vector<float> before = c.buf;
            gemm::nt_dots(m, n, k, a.data(), a.ld, b.data(), b.ld, c.data(), c.ld);
            Strided acc = c;
            gemm::nt_dots(m, n, k, a.data(), a.ld, b.data(), b.ld, acc.data(), acc.ld, /*accumulate=*/true);
            for (int i = 0; i < m; ++i)
                for (int j = 0; j < n; ++j) {
                    double want = 0;
                    for (int kk = 0; kk < k; ++kk) want += double(a.at(i, kk)) * b.at(j, kk);
                    EXPECT_NEAR(c.at(i, j), want, 1e-5 * (1 + std::sqrt(double(k)))) << i << "," << j;
                    EXPECT_NEAR(acc.at(i, j), 2 * want, 2e-5 * (1 + std::sqrt(double(k)))) << i << "," << j;
                }
            // Nothing outside c: the padding columns and the float past the last row are untouched.
            for (int i = 0; i < m; ++i)
                for (int j = n; j < c.ld; ++j) {
                    EXPECT_EQ(c.at(i, j), before[c.offset + std::size_t(i) * c.ld + j]);
                    EXPECT_EQ(acc.at(i, j), before[c.offset + std::size_t(i) * c.ld + j]);
                }
            EXPECT_EQ(c.buf.back(), before.back());
            EXPECT_EQ(c.buf.front(), before.front());
        }
}

// Packed panels, Scratch and every Eigen buffer start on a cache line (EIGEN_MAX_ALIGN_BYTES=64
// in core/CMakeLists.txt): a zmm load of b then never splits across two lines. Eigen's
// default in a build without -march flags is 16 bytes, which left pack()'s panels 16 bytes
// off a line on glibc; several sizes, so one lucky malloc cannot pass this.
TEST(GemmAlignment, PackedPanelsScratchAndEigenBuffersStartOnACacheLine) {
    const auto offset = [](const float* p) { return reinterpret_cast<std::uintptr_t>(p) % 64; };
    for (const int n : {64, 768, 2304, 3072}) {
        SCOPED_TRACE(n);
        const Matrix w = Matrix::Ones(n, 96);
        EXPECT_EQ(offset(w.data()), 0u);
        const gemm::PackedWeights p = gemm::pack(w.data(), n, 96, 96);
        EXPECT_EQ(offset(p.panel(0)), 0u);
        EXPECT_EQ(offset(p.panel(p.panels() - 1)), 0u);  // panels are k · 64 floats apart
        Scratch scratch;
        EXPECT_EQ(offset(scratch.get(n, 7).data()), 0u);
        Eigen::VectorXf v(n + 3);
        EXPECT_EQ(offset(v.data()), 0u);
    }
}

}  // namespace
}  // namespace hs
