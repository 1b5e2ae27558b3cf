// Head metrics (core/analysis/head_metrics.h) on hand-built attention maps whose values
// are worked out by hand below, plus the induction input and score.
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/analysis/head_metrics.h"
#include "core/analysis/induction.h"
#include "core/open_source.h"
#include "core/source.h"
#include "tests/test_util.h"

namespace hs {
namespace {

constexpr double kTol = 1e-6;

std::vector<std::string> words(int n) {
    std::vector<std::string> w;
    for (int i = 0; i < n; ++i) w.push_back("w" + std::to_string(i));
    return w;
}

HeadMetrics metrics_of(const Matrix& A, bool causal, std::vector<std::string> tokens = {}) {
    if (tokens.empty()) tokens = words(static_cast<int>(A.cols()));
    AttentionMask mask;
    mask.causal = causal;
    return compute_head_metrics(A, classify_tokens(tokens, {}), mask);
}

TEST(HeadMetrics, UniformMapOverFourKeys) {
    const int n = 4;
    const Matrix A = Matrix::Constant(n, n, 0.25f);
    const HeadMetrics m = metrics_of(A, false);
    EXPECT_NEAR(m[Metric::Entropy], std::log(4.0), kTol);
    EXPECT_NEAR(m[Metric::NormEntropy], 1.0, kTol);
    EXPECT_NEAR(m[Metric::EffectiveTokens], 4.0, 1e-5);
    // Σ_ij |i−j| over a 4×4 grid = 2·(3·1 + 2·2 + 1·3) = 20, each weighted 1/4, total weight 4
    EXPECT_NEAR(m[Metric::Distance], 20.0 / 16.0, kTol);
    // past key 0: rows 0..3 put (1+2+3, 0+1+2, 1+0+1, 2+1+0)/4 = 3.5 on weight 4 · 3/4 = 3
    EXPECT_NEAR(m[Metric::DistanceNoFirst], 3.5 / 3.0, kTol);
    // rows 2, 3 tie four ways at the top: 1/4 each, as a uniform head (4 keys, no mask) would
    EXPECT_NEAR(m[Metric::PrevPeak], 0.25, kTol);
    EXPECT_NEAR(m[Metric::PrevPeakUniform], 0.25, kTol);
    EXPECT_NEAR(m[Metric::Confidence], 0.25, kTol);
    EXPECT_NEAR(m[Metric::PrevToken], 0.25, kTol);
    EXPECT_NEAR(m[Metric::NextToken], 0.25, kTol);
    EXPECT_NEAR(m[Metric::Self], 0.25, kTol);
    EXPECT_NEAR(m[Metric::FirstToken], 0.25, kTol);
    EXPECT_NEAR(m[Metric::Punct], 0.0, kTol);
    EXPECT_TRUE(std::isnan(m[Metric::DuplicateToken]));  // no token repeats
    EXPECT_TRUE(std::isnan(m[Metric::Induction]));       // not computed here
}

TEST(HeadMetrics, IdentityMapIsSelfAttentionWithZeroEntropy) {
    const int n = 5;
    const Matrix A = Matrix::Identity(n, n);
    const HeadMetrics m = metrics_of(A, false);
    EXPECT_NEAR(m[Metric::Entropy], 0.0, kTol);
    EXPECT_NEAR(m[Metric::NormEntropy], 0.0, kTol);
    EXPECT_NEAR(m[Metric::EffectiveTokens], 1.0, kTol);
    EXPECT_NEAR(m[Metric::Distance], 0.0, kTol);
    EXPECT_NEAR(m[Metric::Confidence], 1.0, kTol);
    EXPECT_NEAR(m[Metric::Self], 1.0, kTol);
    EXPECT_NEAR(m[Metric::PrevToken], 0.0, kTol);
    EXPECT_NEAR(m[Metric::NextToken], 0.0, kTol);
    EXPECT_NEAR(m[Metric::FirstToken], 1.0 / n, kTol);  // only row 0 looks at key 0
}

TEST(HeadMetrics, ShiftedIdentityIsPreviousTokenAttention) {
    // Causal: row 0 can only see itself; row i ≥ 1 puts all weight on i − 1.
    const int n = 6;
    Matrix A = Matrix::Zero(n, n);
    A(0, 0) = 1;
    for (int i = 1; i < n; ++i) A(i, i - 1) = 1;
    const HeadMetrics m = metrics_of(A, true);
    EXPECT_NEAR(m[Metric::PrevToken], 1.0, kTol);          // rows 1..5
    EXPECT_NEAR(m[Metric::Self], 1.0 / n, kTol);           // row 0 only
    EXPECT_NEAR(m[Metric::NextToken], 0.0, kTol);
    EXPECT_NEAR(m[Metric::Distance], (n - 1.0) / n, kTol);  // five rows at distance 1
    EXPECT_NEAR(m[Metric::DistanceNoFirst], 1.0, kTol);      // rows 2..5 (rows 0, 1 read key 0)
    EXPECT_NEAR(m[Metric::PrevPeak], 1.0, kTol);             // rows 2..5 all peak on i − 1
    // uniform over j ≤ i: 1/(i+1) for rows 2..5
    EXPECT_NEAR(m[Metric::PrevPeakUniform], (1 / 3.0 + 1 / 4.0 + 1 / 5.0 + 1 / 6.0) / 4, kTol);
    EXPECT_NEAR(m[Metric::FirstToken], 2.0 / n, kTol);      // rows 0 and 1
    EXPECT_NEAR(m[Metric::Entropy], 0.0, kTol);
    EXPECT_NEAR(m[Metric::NormEntropy], 0.0, kTol);
    EXPECT_NEAR(m[Metric::Confidence], 1.0, kTol);
}

TEST(HeadMetrics, OneHotOnTokenZeroIsAFirstTokenSink) {
    const int n = 5;
    Matrix A = Matrix::Zero(n, n);
    A.col(0).setOnes();
    const HeadMetrics m = metrics_of(A, true);
    EXPECT_NEAR(m[Metric::FirstToken], 1.0, kTol);
    EXPECT_NEAR(m[Metric::Distance], (0 + 1 + 2 + 3 + 4) / 5.0, kTol);
    EXPECT_NEAR(m[Metric::Self], 1.0 / n, kTol);           // row 0
    EXPECT_NEAR(m[Metric::PrevToken], 1.0 / (n - 1), kTol);  // row 1 of rows 1..4
    EXPECT_NEAR(m[Metric::PrevPeak], 0.0, kTol);              // rows 2..4 peak on key 0
    EXPECT_TRUE(std::isnan(m[Metric::DistanceNoFirst]));      // no weight past key 0
    EXPECT_NEAR(m[Metric::Confidence], 1.0, kTol);
    EXPECT_NEAR(m[Metric::Entropy], 0.0, kTol);
}

TEST(HeadMetrics, CausalUniformHasFullNormalisedEntropy) {
    // A_ij = 1/(i+1) for j ≤ i: H_i = ln(i+1), the uniform entropy of the row.
    const int n = 6;
    Matrix A = Matrix::Zero(n, n);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j <= i; ++j) A(i, j) = 1.0f / (i + 1);
    const HeadMetrics m = metrics_of(A, true);
    double entropy = 0, effective = 0, inverse = 0, inverse_from_1 = 0;
    for (int i = 0; i < n; ++i) {
        entropy += std::log(i + 1.0);
        effective += i + 1.0;
        inverse += 1.0 / (i + 1);
        if (i >= 1) inverse_from_1 += 1.0 / (i + 1);
    }
    EXPECT_NEAR(m[Metric::Entropy], entropy / n, 1e-5);
    EXPECT_NEAR(m[Metric::NormEntropy], 1.0, 1e-5);  // rows 1..5 (row 0 has one key)
    EXPECT_NEAR(m[Metric::EffectiveTokens], effective / n, 1e-4);
    // row i: Σ_{j≤i} (i−j)/(i+1) = i/2, total weight n → mean distance (n−1)/4
    EXPECT_NEAR(m[Metric::Distance], (n - 1) / 4.0, 1e-5);
    EXPECT_NEAR(m[Metric::Self], inverse / n, 1e-6);
    EXPECT_NEAR(m[Metric::FirstToken], inverse / n, 1e-6);
    EXPECT_NEAR(m[Metric::PrevToken], inverse_from_1 / (n - 1), 1e-6);
    EXPECT_NEAR(m[Metric::NextToken], 0.0, kTol);
    EXPECT_NEAR(m[Metric::Confidence], inverse / n, 1e-6);
    // every row ties i + 1 ways: the peak share is exactly the uniform one
    EXPECT_NEAR(m[Metric::PrevPeak], (inverse - 1 - 0.5) / (n - 2), 1e-6);
    EXPECT_NEAR(m[Metric::PrevPeakUniform], (inverse - 1 - 0.5) / (n - 2), 1e-6);
}

TEST(HeadMetrics, ADiffusePreviousTokenHeadPeaksOnTheKeyBefore) {
    // Causal, 5 tokens. Rows 2..4 put 0.3 on i − 1 and 0.2 on key 0 (a sink); row 2 peaks on
    // itself, row 3's i − 1 ties with its self key, row 4 peaks on i − 1.
    Matrix A = Matrix::Zero(5, 5);
    A(0, 0) = 1;
    A(1, 0) = 0.5f, A(1, 1) = 0.5f;
    A(2, 0) = 0.2f, A(2, 1) = 0.3f, A(2, 2) = 0.5f;                   // peak: self
    A(3, 0) = 0.2f, A(3, 1) = 0.2f, A(3, 2) = 0.3f, A(3, 3) = 0.3f;   // tie of 2: 1/2
    A(4, 0) = 0.2f, A(4, 1) = 0.25f, A(4, 2) = 0.05f, A(4, 3) = 0.3f, A(4, 4) = 0.2f;  // peak: i − 1
    const HeadMetrics m = metrics_of(A, true);
    EXPECT_NEAR(m[Metric::PrevPeak], (0 + 0.5 + 1) / 3.0, kTol);
    EXPECT_NEAR(m[Metric::PrevPeakUniform], (1 / 3.0 + 1 / 4.0 + 1 / 5.0) / 3, kTol);
    EXPECT_NEAR(m[Metric::PrevToken], (0.5 + 0.3 + 0.3 + 0.3) / 4, kTol);
    // past key 0: row 1: 0.5·0; row 2: 0.3·1; row 3: 0.2·2 + 0.3·1; row 4: 0.25·3 + 0.05·2 + 0.3·1
    // on weight 0.5 + 0.8 + 0.8 + 0.8 (row 0 reads only key 0)
    EXPECT_NEAR(m[Metric::DistanceNoFirst], (0.3 + 0.7 + 1.15) / 2.9, 1e-6);
}

TEST(HeadMetrics, SpecialAndPunctuationKeysGetTheirShares) {
    const std::vector<std::string> tokens = {"[CLS]", "a", ",", "b", "[SEP]"};
    const Matrix A = Matrix::Constant(5, 5, 0.2f);
    const HeadMetrics m = metrics_of(A, false, tokens);
    EXPECT_NEAR(m[Metric::Cls], 0.2, kTol);
    EXPECT_NEAR(m[Metric::Sep], 0.2, kTol);
    EXPECT_NEAR(m[Metric::Punct], 0.2, kTol);  // "," only: brackets around CLS/SEP hold letters
    EXPECT_NEAR(m[Metric::FirstToken], 0.2, kTol);
}

TEST(HeadMetrics, PunctuationTokensAreRecognisedByDisplayString) {
    for (const std::string t : {",", " .", "!?", "，", "。", "(", " )", "+"}) {
        SCOPED_TRACE(t);
        EXPECT_TRUE(is_punctuation_token(t));
    }
    for (const std::string t : {"", " ", "a,", "[SEP]", "<s>x", " the", "秦"}) {
        SCOPED_TRACE(t);
        EXPECT_FALSE(is_punctuation_token(t));
    }
}

TEST(HeadMetrics, DuplicateTokenScoreSumsAttentionOnEarlierCopies) {
    // tokens a b a a: query 2 has one earlier copy (0); query 3 has two (0, 2)
    const std::vector<std::string> tokens = {"a", "b", "a", "a"};
    Matrix A = Matrix::Zero(4, 4);
    A(0, 0) = 1;
    A(1, 0) = 0.5f, A(1, 1) = 0.5f;
    A(2, 0) = 0.6f, A(2, 1) = 0.4f;                   // 0.6 on its copy
    A(3, 0) = 0.1f, A(3, 2) = 0.2f, A(3, 3) = 0.7f;  // 0.3 on its copies
    const HeadMetrics m = metrics_of(A, true, tokens);
    EXPECT_NEAR(m[Metric::DuplicateToken], (0.6 + 0.3) / 2, 1e-6);
}

TEST(HeadMetrics, FullyMaskedRowsAreSkipped) {
    // Row 1 masked out entirely (all zero): the metrics average rows 0 and 2 only.
    Matrix A = Matrix::Zero(3, 3);
    A(0, 0) = 1;
    A(2, 2) = 1;
    const HeadMetrics m = metrics_of(A, false);
    EXPECT_NEAR(m[Metric::Self], 1.0, kTol);
    EXPECT_NEAR(m[Metric::Confidence], 1.0, kTol);
    EXPECT_NEAR(m[Metric::FirstToken], 0.5, kTol);
    EXPECT_FALSE(std::isnan(m[Metric::Entropy]));
}

TEST(HeadMetrics, PaddedKeysShrinkTheUniformEntropy) {
    // Three keys, key 2 padded: uniform over two keys has normalised entropy 1 (ln 2 / ln 2).
    Matrix A = Matrix::Zero(3, 3);
    A.col(0).setConstant(0.5f);
    A.col(1).setConstant(0.5f);
    AttentionMask mask;
    mask.key_padding = {2};
    const HeadMetrics m = compute_head_metrics(A, classify_tokens(words(3), {}), mask);
    EXPECT_NEAR(m[Metric::NormEntropy], 1.0, 1e-6);
    EXPECT_NEAR(m[Metric::Entropy], std::log(2.0), 1e-6);
}

TEST(HeadMetrics, RejectsTokenCountDifferentFromKeys) {
    const Matrix A = Matrix::Identity(3, 3);
    test::expect_error([&] { metrics_of(A, false, {"a", "b"}); },
                       {"3 keys", "2 token strings"});
}

TEST(Induction, ScoreReadsTheTokenAfterTheEarlierCopy) {
    // BOS + r + r with m = 3: positions 0 | 1 2 3 | 4 5 6; query i reads key i − m + 1.
    InductionInput in;
    in.prefix = 1;
    in.m = 3;
    in.ids = {1, 7, 8, 9, 7, 8, 9};
    Matrix A = Matrix::Zero(7, 7);
    for (int i = 0; i < 7; ++i) A(i, 0) = 1;
    A(4, 0) = 0, A(4, 2) = 1;     // after the first 7 came 8 at position 2
    A(5, 0) = 0.5f, A(5, 3) = 0.5f;  // half on 9 at position 3
    A(6, 0) = 0, A(6, 4) = 1;     // after the first 9 came 7 at position 4
    EXPECT_NEAR(induction_score(A, in), (1 + 0.5 + 1) / 3.0, 1e-6);
    EXPECT_NEAR(induction_score(Matrix::Identity(7, 7), in), 0.0, 1e-9);
    test::expect_error([&] { induction_score(Matrix::Identity(5, 5), in); },
                       {"5×5", "smaller than the induction input (7 tokens)"});
}

TEST(Induction, PlaygroundInputRepeatsDistinctIdsWithoutPrefix) {
    const auto source = open_source("random:d_model=16,heads=2,layers=2,vocab=50,seed=3,arch=decoder");
    InductionOptions opt;
    opt.m = 10;
    const InductionInput in = make_induction_input(*source, opt);
    EXPECT_EQ(in.prefix, 0);
    EXPECT_EQ(in.m, 10);
    ASSERT_EQ(in.ids.size(), 20u);
    for (int k = 0; k < 10; ++k) {
        EXPECT_EQ(in.ids[k], in.ids[k + 10]);
        EXPECT_GE(in.ids[k], 1);
        EXPECT_LT(in.ids[k], 50);
        for (int j = 0; j < k; ++j) EXPECT_NE(in.ids[j], in.ids[k]);
    }
    const Trace t = run_induction_input(*source, in);
    EXPECT_EQ(t.main.tokens.size(), 20u);
    EXPECT_EQ(induction_scores(t, in).size(), 4u);  // 2 layers × 2 heads
}

TEST(Induction, BlockIsShortenedToFitMaxLen) {
    const auto source = open_source("random:d_model=16,heads=2,layers=1,vocab=50,max_len=9,seed=3");
    InductionOptions opt;
    opt.m = 30;
    EXPECT_EQ(make_induction_input(*source, opt).m, 4);  // 2m ≤ 9
}

TEST(Induction, WorkedExamplesHaveNoTokenIds) {
    const auto source = open_source(std::string(HEADSCOPE_ASSETS_DIR) + "/examples/causal_two_heads.json");
    test::expect_error([&] { make_induction_input(*source); },
                       {"needs a model that reads token ids", "has fixed inputs"});
}

}  // namespace
}  // namespace hs
