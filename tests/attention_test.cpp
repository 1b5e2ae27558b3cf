// Multi-head attention against independent references: the naive per-head reference,
// hand-computed values, and the softmax / masking laws.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/model/attention.h"
#include "core/rng.h"
#include "tests/attention_run.h"
#include "tests/test_util.h"

namespace hs {
namespace {

using test::error_of;

AttentionWeights random_attention(int D, int H, std::uint64_t seed) {
    Rng rng(seed);
    AttentionWeights w;
    w.heads = H;
    w.in_proj_weight = Matrix(3 * D, D);
    for (Eigen::Index i = 0; i < w.in_proj_weight.size(); ++i)
        w.in_proj_weight.data()[i] = rng.uniform(-0.5f, 0.5f);
    w.in_proj_bias = Vector(3 * D);
    for (int i = 0; i < 3 * D; ++i) w.in_proj_bias(i) = rng.uniform(-0.1f, 0.1f);
    w.out_proj_weight = Matrix(D, D);
    for (Eigen::Index i = 0; i < w.out_proj_weight.size(); ++i)
        w.out_proj_weight.data()[i] = rng.uniform(-0.5f, 0.5f);
    w.out_proj_bias = Vector(D);
    for (int i = 0; i < D; ++i) w.out_proj_bias(i) = rng.uniform(-0.1f, 0.1f);
    return w;
}

Matrix random_input(int T, int D, std::uint64_t seed) {
    Rng rng(seed);
    Matrix x(T, D);
    for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = rng.normal();
    return x;
}

float max_abs_diff(const Matrix& a, const Matrix& b) { return (a - b).cwiseAbs().maxCoeff(); }

struct Case {
    int T, D, H;
    bool causal;
};

TEST(MultiHeadAttention, FusedProjectionEqualsSeparatePerHeadProjections) {
    for (const Case& c : {Case{1, 8, 1, false}, Case{7, 16, 4, false}, Case{9, 32, 8, true},
                          Case{5, 12, 12, true}, Case{33, 64, 8, false}}) {
        SCOPED_TRACE(testing::Message() << "T=" << c.T << " D=" << c.D << " H=" << c.H
                                        << " causal=" << c.causal);
        const AttentionWeights w = random_attention(c.D, c.H, 11);
        const Matrix x = random_input(c.T, c.D, 12);
        AttentionMask mask;
        mask.causal = c.causal;
        const AttentionRun fast = run_attention(w, x, x, {.mask = mask});
        const AttentionResult naive = multi_head_attention_naive(w, x, x, mask);
        // f32 sums in another order (BLAS or not): the bound scales with the output's size.
        const float scale = 1.0f + naive.output.cwiseAbs().maxCoeff();
        EXPECT_LT(max_abs_diff(fast.output, naive.output), 1e-5f * scale);
        ASSERT_EQ(fast.weights.size(), static_cast<size_t>(c.H));
        // Weights: the scores reach |s| ≈ 20 here, so f32 rounding of the score sums
        // (≈ 1e-6 absolute at that size) moves exp(s) by ≈ 1e-6 relative: 4e-6 absolute
        // leaves room for any summation order (measured up to 1.2e-6) and still catches a
        // wrong head, scale or mask (errors ≥ 1e-2).
        for (int h = 0; h < c.H; ++h) EXPECT_LT(max_abs_diff(fast.weights[h], naive.weights[h]), 4e-6f);
    }
}

TEST(MultiHeadAttention, CrossAttentionTakesKeysAndValuesFromMemory) {
    const AttentionWeights w = random_attention(16, 4, 3);
    const Matrix x = random_input(5, 16, 4), memory = random_input(8, 16, 5);
    const AttentionRun fast = run_attention(w, x, memory, {});
    const AttentionResult naive = multi_head_attention_naive(w, x, memory, {});
    EXPECT_EQ(fast.weights[0].rows(), 5);
    EXPECT_EQ(fast.weights[0].cols(), 8);
    EXPECT_LT(max_abs_diff(fast.output, naive.output), 1e-5f);
}

TEST(Softmax, RowsSumToOne) {
    const AttentionWeights w = random_attention(32, 4, 21);
    const Matrix x = random_input(17, 32, 22);
    const AttentionRun r = run_attention(w, x, x, {});
    for (const Matrix& a : r.weights)
        for (Eigen::Index i = 0; i < a.rows(); ++i) {
            EXPECT_NEAR(a.row(i).sum(), 1.0f, 1e-6f);
            EXPECT_GE(a.row(i).minCoeff(), 0.0f);
        }
}

TEST(Softmax, MatchesHandComputedValues) {
    // softmax([1, 2, 3]) = e^{k} / (e + e² + e³)
    Matrix m(1, 3);
    m << 1, 2, 3;
    softmax_rows(m);
    const double z = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
    EXPECT_NEAR(m(0, 0), std::exp(1.0) / z, 1e-7);
    EXPECT_NEAR(m(0, 1), std::exp(2.0) / z, 1e-7);
    EXPECT_NEAR(m(0, 2), std::exp(3.0) / z, 1e-7);
}

TEST(Softmax, LargeScoresDoNotOverflow) {
    Matrix m(1, 2);
    m << 1000.0f, 999.0f;
    softmax_rows(m);
    EXPECT_NEAR(m(0, 0), 1.0 / (1.0 + std::exp(-1.0)), 1e-6);
    EXPECT_FALSE(std::isnan(m(0, 1)));
}

TEST(CausalMask, FutureKeysGetExactlyZeroWeight) {
    const AttentionWeights w = random_attention(16, 4, 31);
    const Matrix x = random_input(12, 16, 32);
    AttentionMask mask;
    mask.causal = true;
    const AttentionRun r = run_attention(w, x, x, {.mask = mask});
    for (const Matrix& a : r.weights)
        for (int i = 0; i < 12; ++i) {
            for (int j = i + 1; j < 12; ++j) EXPECT_EQ(a(i, j), 0.0f) << i << "," << j;
            EXPECT_NEAR(a.row(i).sum(), 1.0f, 1e-6f);
        }
    // The first query can only see itself.
    EXPECT_EQ(r.weights[0](0, 0), 1.0f);
}

// A window of 3 keys: query i sees keys i − 2 … i only, each row a softmax over those
// (row 0 over key 0 alone), the same weights as the naive reference's; with a padded key
// inside the window the row spreads over the other two. The mask's own counts agree.
TEST(SlidingWindow, KeysBehindTheWindowGetExactlyZeroWeight) {
    const AttentionWeights w = random_attention(16, 4, 33);
    const Matrix x = random_input(12, 16, 34);
    AttentionMask mask;
    mask.causal = true;
    mask.window = 3;
    const AttentionRun r = run_attention(w, x, x, {.mask = mask});
    const AttentionResult naive = multi_head_attention_naive(w, x, x, mask);
    for (std::size_t h = 0; h < r.weights.size(); ++h) {
        const Matrix& a = r.weights[h];
        for (int i = 0; i < 12; ++i) {
            for (int j = 0; j < 12; ++j) {
                if (j > i || j < i - 2) {
                    EXPECT_EQ(a(i, j), 0.0f) << i << "," << j;
                }
            }
            EXPECT_NEAR(a.row(i).sum(), 1.0f, 1e-6f);
        }
        EXPECT_LT((a - naive.weights[h]).cwiseAbs().maxCoeff(), 1e-6f);
    }
    EXPECT_LT((r.output - naive.output).cwiseAbs().maxCoeff(), 1e-5f);
    EXPECT_EQ(mask.first(0), 0);
    EXPECT_EQ(mask.first(7), 5);
    EXPECT_EQ(mask.seen(7, 12), 3);
    EXPECT_EQ(mask.seen(1, 12), 2);
    EXPECT_FALSE(mask.allowed(7, 4));
    EXPECT_TRUE(mask.allowed(7, 5));
    // hides_any: a window as long as the text hides nothing beyond the causal mask
    AttentionMask wide;
    wide.window = 4;
    EXPECT_FALSE(wide.hides_any(4, 4));
    EXPECT_TRUE(wide.hides_any(5, 5));
    // the Pipeline's "+ mask" step: −∞ exactly where the weights are 0
    Matrix scores = Matrix::Zero(6, 6);
    mask.apply(scores);
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) EXPECT_EQ(std::isinf(scores(i, j)), j > i || j < i - 2) << i << "," << j;
    mask.key_padding = {6};
    const AttentionRun padded = run_attention(w, x, x, {.mask = mask});
    for (const Matrix& a : padded.weights) {
        EXPECT_EQ(a(7, 6), 0.0f);
        EXPECT_NEAR(a(7, 5) + a(7, 7), 1.0f, 1e-6f);
        EXPECT_EQ(mask.seen(7, 12), 2);
    }
}

// A model's own scale (GPT-Neo's 1: unscaled): A_h = softmax(Q_h K_hᵀ · scale), computed
// here with Eigen from the projection, and the scores the recorder keeps are Q_h K_hᵀ · scale.
TEST(ScoreScale, ScoresAreQueryKeyProductsTimesTheGivenScale) {
    const int D = 16, H = 4, Dh = 4, T = 5;
    const AttentionWeights w = random_attention(D, H, 35);
    const Matrix x = random_input(T, D, 36);
    const Matrix qkv = (x * w.in_proj_weight.transpose()).rowwise() + w.in_proj_bias.transpose();
    for (const float scale : {1.0f, 0.125f, 2.0f}) {
        SCOPED_TRACE(scale);
        const AttentionRun r = run_attention(w, x, x, {.score_scale = scale}, nullptr, /*scores=*/true);
        AttentionSteps steps;
        run_attention(w, x, x, {.score_scale = scale}, &steps);
        EXPECT_EQ(steps.scale, scale);
        for (int h = 0; h < H; ++h) {
            const Matrix s = qkv.middleCols(h * Dh, Dh) * qkv.middleCols(D + h * Dh, Dh).transpose() * scale;
            Matrix a(T, T);
            for (int i = 0; i < T; ++i) {
                const Eigen::RowVectorXf e = (s.row(i).array() - s.row(i).maxCoeff()).exp();
                a.row(i) = e / e.sum();
            }
            EXPECT_LT((r.scores[h] - s).cwiseAbs().maxCoeff(), 1e-5f) << "head " << h;
            EXPECT_LT((r.weights[h] - a).cwiseAbs().maxCoeff(), 1e-6f) << "head " << h;
        }
    }
    // 0 is the paper's 1/√Dh
    AttentionSteps steps;
    run_attention(w, x, x, {}, &steps);
    EXPECT_EQ(steps.scale, 0.5f);
    EXPECT_EQ(resolved_score_scale(0.0f, 16), 0.25f);
    EXPECT_EQ(resolved_score_scale(3.0f, 16), 3.0f);
}

TEST(KeyPadding, PaddedKeysGetZeroWeightAndFullyMaskedRowIsZerosNotNaN) {
    const AttentionWeights w = random_attention(8, 2, 41);
    const Matrix x = random_input(4, 8, 42);
    AttentionMask mask;
    mask.key_padding = {1, 3};
    AttentionRun r = run_attention(w, x, x, {.mask = mask});
    for (const Matrix& a : r.weights)
        for (int i = 0; i < 4; ++i) {
            EXPECT_EQ(a(i, 1), 0.0f);
            EXPECT_EQ(a(i, 3), 0.0f);
            EXPECT_NEAR(a(i, 0) + a(i, 2), 1.0f, 1e-6f);
        }
    // Every key masked: rows are zeros, the output is just the output bias.
    mask.key_padding = {0, 1, 2, 3};
    r = run_attention(w, x, x, {.mask = mask});
    for (const Matrix& a : r.weights) EXPECT_EQ(a.cwiseAbs().maxCoeff(), 0.0f);
    for (int i = 0; i < 4; ++i)
        for (int d = 0; d < 8; ++d) {
            EXPECT_FALSE(std::isnan(r.output(i, d)));
            EXPECT_FLOAT_EQ(r.output(i, d), w.out_proj_bias(d));
        }
}

TEST(MultiHeadAttention, CrossAttentionStepsTakeKeysAndValuesFromTheMemory) {
    // Q = X·W_Qᵀ + b_Q from the 3 decoder rows; [K|V] = M·[W_K; W_V]ᵀ + b from the 5
    // memory rows, computed here independently.
    const int T = 3, S = 5, D = 8, H = 2;
    const AttentionWeights w = random_attention(D, H, 61);
    const Matrix x = random_input(T, D, 62), memory = random_input(S, D, 63);
    AttentionSteps s;
    (void)run_attention(w, x, memory, {}, &s);
    Matrix q = x * w.in_proj_weight.topRows(D).transpose();
    q.rowwise() += w.in_proj_bias.head(D).transpose();
    Matrix kv = memory * w.in_proj_weight.bottomRows(2 * D).transpose();
    kv.rowwise() += w.in_proj_bias.tail(2 * D).transpose();
    EXPECT_EQ(s.w_in, w.in_proj_weight);
    ASSERT_EQ(s.qkv.rows(), T);
    ASSERT_EQ(s.qkv.cols(), D);
    ASSERT_EQ(s.kv_memory.rows(), S);
    ASSERT_EQ(s.kv_memory.cols(), 2 * D);
    EXPECT_LT(max_abs_diff(s.qkv, q), 1e-5f);
    EXPECT_LT(max_abs_diff(s.kv_memory, kv), 1e-5f);
    EXPECT_EQ(s.x_memory, memory);
    ASSERT_EQ(s.k_heads.size(), std::size_t(H));
    EXPECT_LT(max_abs_diff(s.k_heads[1], kv.middleCols(D / 2, D / 2)), 1e-5f);  // K_1: memory rows
}

TEST(MultiHeadAttention, GroupedCrossAttentionStepsShareKeyValueHeadsOfTheMemory) {
    // 4 query heads, 2 K/V heads (Dh 2): W_in = [W_Q (8 rows); W_K (4); W_V (4)].
    // [K|V] = M·[W_K; W_V]ᵀ + b: (S, 2·Ikv) = (5, 8); query head h reads K/V head h / 2.
    const int T = 3, S = 5, D = 8, H = 4, Hkv = 2, Dh = 2, Ikv = Hkv * Dh;
    const AttentionWeights full = random_attention(D, H, 71);
    AttentionWeights w = full;
    w.kv_heads = Hkv;
    w.in_proj_weight.resize(D + 2 * Ikv, D);
    w.in_proj_weight << full.in_proj_weight.topRows(D), full.in_proj_weight.middleRows(D, Ikv),
        full.in_proj_weight.middleRows(2 * D, Ikv);
    w.in_proj_bias.resize(D + 2 * Ikv);
    w.in_proj_bias << full.in_proj_bias.head(D), full.in_proj_bias.segment(D, Ikv), full.in_proj_bias.segment(2 * D, Ikv);
    const Matrix x = random_input(T, D, 72), memory = random_input(S, D, 73);
    AttentionSteps s;
    const AttentionRun r = run_attention(w, x, memory, {}, &s);
    Matrix q = x * w.in_proj_weight.topRows(D).transpose();
    q.rowwise() += w.in_proj_bias.head(D).transpose();
    Matrix kv = memory * w.in_proj_weight.bottomRows(2 * Ikv).transpose();
    kv.rowwise() += w.in_proj_bias.tail(2 * Ikv).transpose();
    ASSERT_EQ(s.kv_memory.rows(), S);
    ASSERT_EQ(s.kv_memory.cols(), 2 * Ikv);
    EXPECT_LT(max_abs_diff(s.kv_memory, kv), 1e-5f);
    ASSERT_EQ(s.k_heads.size(), std::size_t(H));
    ASSERT_EQ(r.weights.size(), std::size_t(H));
    for (int h = 0; h < H; ++h) {
        const int g = h / (H / Hkv);
        EXPECT_LT(max_abs_diff(s.k_heads[h], kv.middleCols(g * Dh, Dh)), 1e-5f) << h;
        EXPECT_LT(max_abs_diff(s.v_heads[h], kv.middleCols(Ikv + g * Dh, Dh)), 1e-5f) << h;
        // A_h = softmax(Q_h K_gᵀ / √Dh), rows over the 5 memory positions
        Matrix a = q.middleCols(h * Dh, Dh) * kv.middleCols(g * Dh, Dh).transpose() / std::sqrt(float(Dh));
        for (int i = 0; i < T; ++i) {
            a.row(i) = (a.row(i).array() - a.row(i).maxCoeff()).exp();
            a.row(i) /= a.row(i).sum();
        }
        EXPECT_LT(max_abs_diff(r.weights[h], a), 1e-5f) << h;
    }
}

TEST(MultiHeadAttention, StepsRecordEveryIntermediateConsistently) {
    const int T = 3, D = 8, H = 2, Dh = 4;
    const AttentionWeights w = random_attention(D, H, 51);
    const Matrix x = random_input(T, D, 52);
    AttentionMask mask;
    mask.causal = true;
    AttentionSteps s;
    const AttentionRun r = run_attention(w, x, x, {.mask = mask}, &s, /*scores=*/true);
    // qkv = X W_inᵀ + b, computed here independently
    Matrix qkv = x * w.in_proj_weight.transpose();
    qkv.rowwise() += w.in_proj_bias.transpose();
    EXPECT_LT(max_abs_diff(s.qkv, qkv), 1e-6f);
    EXPECT_LT(max_abs_diff(s.q, qkv.leftCols(D)), 1e-6f);
    EXPECT_LT(max_abs_diff(s.v, qkv.rightCols(D)), 1e-6f);
    ASSERT_EQ(s.raw_scores.size(), static_cast<size_t>(H));
    EXPECT_FLOAT_EQ(s.scale, 0.5f);  // 1/√4
    for (int h = 0; h < H; ++h) {
        EXPECT_LT(max_abs_diff(s.q_heads[h], qkv.middleCols(h * Dh, Dh)), 1e-6f);
        const Matrix raw = s.q_heads[h] * s.k_heads[h].transpose();
        EXPECT_LT(max_abs_diff(s.raw_scores[h], raw), 1e-5f);
        EXPECT_LT(max_abs_diff(s.scaled_scores[h], raw * 0.5f), 1e-5f);
        EXPECT_TRUE(std::isinf(s.masked_scores[h](0, 1)));
        EXPECT_EQ(s.masked_scores[h](1, 0), s.scaled_scores[h](1, 0));
        EXPECT_LT(max_abs_diff(s.weights[h], r.weights[h]), 1e-7f);
        EXPECT_LT(max_abs_diff(s.head_outputs[h], s.weights[h] * s.v_heads[h]), 1e-5f);
        EXPECT_LT(max_abs_diff(s.concat.middleCols(h * Dh, Dh), s.head_outputs[h]), 1e-7f);
        EXPECT_LT(max_abs_diff(r.scores[h], s.scaled_scores[h]), 1e-7f);
    }
    // The causal mask hides keys; without a mask the "+ mask" step changes nothing.
    EXPECT_TRUE(s.masked);
    AttentionSteps unmasked;
    run_attention(w, x, x, {}, &unmasked);
    EXPECT_FALSE(unmasked.masked);
    EXPECT_EQ(max_abs_diff(unmasked.masked_scores[0], unmasked.scaled_scores[0]), 0.0f);
    Matrix out = s.concat * w.out_proj_weight.transpose();
    out.rowwise() += w.out_proj_bias.transpose();
    EXPECT_LT(max_abs_diff(s.output, out), 1e-5f);
}

TEST(MultiHeadAttention, HandComputedSingleHeadExample) {
    // X = [[1,0],[0,1]], W_Q = W_K = W_V = I, W_o = I, one head, d_k = 2:
    // scores = X Xᵀ / √2 = [[1/√2, 0], [0, 1/√2]]; A row 0 = [σ, 1−σ] with σ = 1/(1+e^{−1/√2}).
    AttentionWeights w;
    w.heads = 1;
    w.in_proj_weight = Matrix::Zero(6, 2);
    w.in_proj_weight.topRows(2).setIdentity();
    w.in_proj_weight.middleRows(2, 2).setIdentity();
    w.in_proj_weight.bottomRows(2).setIdentity();
    w.in_proj_bias = Vector::Zero(6);
    w.out_proj_weight = Matrix::Identity(2, 2);
    w.out_proj_bias = Vector::Zero(2);
    Matrix x(2, 2);
    x << 1, 0, 0, 1;
    const AttentionRun r = run_attention(w, x, x, {});
    const double sigma = 1.0 / (1.0 + std::exp(-1.0 / std::sqrt(2.0)));
    EXPECT_NEAR(r.weights[0](0, 0), sigma, 1e-6);
    EXPECT_NEAR(r.weights[0](0, 1), 1 - sigma, 1e-6);
    EXPECT_NEAR(r.output(0, 0), sigma, 1e-6);      // A · V with V = X
    EXPECT_NEAR(r.output(1, 1), sigma, 1e-6);
}

TEST(MultiHeadAttention, RejectsInputOfTheWrongWidth) {
    const AttentionWeights w = random_attention(8, 2, 61);
    const Matrix x = random_input(3, 6, 62);
    EXPECT_EQ(error_of([&] { run_attention(w, x, x, {}); }),
              "attention input has 6 columns, expected d_model 8");
}

}  // namespace
}  // namespace hs
