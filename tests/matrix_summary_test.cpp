// Summaries the window draws step matrices with (core/image/matrix_summary.*): finite
// ranges and, above 1024 on a side, the mip chain — computed by the worker, not the UI.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/image/box_mean.h"
#include "core/image/matrix_summary.h"

namespace hs {
namespace {

TEST(MatrixSummary, IsTheFiniteRangeAndMipLevelsOnlyAboveTheThreshold) {
    Matrix m(1, 4);
    m << -std::numeric_limits<float>::infinity(), 3.0f, std::nanf(""), -2.0f;
    const MatrixSummary small = summarize_matrix(m);
    EXPECT_FLOAT_EQ(small.lo, -2.0f);
    EXPECT_FLOAT_EQ(small.hi, 3.0f);
    EXPECT_TRUE(small.mip_levels.empty());
    // (2, 1025): one side above 1024 → levels (1, 512), (1, 256), … (1, 1).
    Matrix wide = Matrix::Constant(2, kMipLevelsAbove + 1, 0.5f);
    wide(1, 0) = 4.0f;
    const MatrixSummary big = summarize_matrix(wide);
    EXPECT_FLOAT_EQ(big.hi, 4.0f);
    ASSERT_EQ(big.mip_levels.size(), mip_chain(wide).size());
    EXPECT_EQ(big.mip_levels[0].cols(), 512);
    EXPECT_EQ(big.mip_levels.back().size(), 1);
    const Matrix none = Matrix::Constant(1, 1, std::nanf(""));
    EXPECT_FLOAT_EQ(summarize_matrix(none).lo, 0.0f);
    EXPECT_FLOAT_EQ(summarize_matrix(none).hi, 0.0f);
}

// Each mip level's own colour bound, min(max |v|, 2.5 RMS). A (2, 2048) pattern +1, −1, …
// averages to 0 from the first level on, except where one cell stands out. Hand-computed:
// cell (0, 0) = 9 → level 1 (1, 1024) cell 0 = (9 − 1 + 1 − 1)/4 = 2, the rest 0:
// RMS = 2/√1024 = 1/16, bound = min(2, 2.5/16) = 0.15625. Level 2 (1, 512): cell 0 = 1,
// RMS = 1/√512, bound 2.5/√512. Level 11 (1, 1): one cell 2/1024, RMS = max: that value.
TEST(MatrixSummary, GivesEachMipLevelItsOwnColourBound) {
    Matrix m(2, 2048);
    for (int c = 0; c < 2048; ++c) m(0, c) = m(1, c) = c % 2 == 0 ? 1.0f : -1.0f;
    m(0, 0) = 9.0f;
    const MatrixSummary s = summarize_matrix(m);
    ASSERT_EQ(s.mip_bound.size(), s.mip_levels.size());
    ASSERT_EQ(s.mip_levels.size(), 11u);  // (1, 1024) … (1, 1)
    EXPECT_FLOAT_EQ(s.mip_bound[0], 0.15625f);
    EXPECT_FLOAT_EQ(s.mip_bound[1], 2.5f / std::sqrt(512.0f));
    EXPECT_FLOAT_EQ(s.mip_bound[10], 2.0f / 1024.0f);
    // A level without outliers keeps its max: a constant 3 → every level's bound is 3.
    const MatrixSummary flat = summarize_matrix(Matrix::Constant(1, 2048, 3.0f));
    for (const float b : flat.mip_bound) EXPECT_FLOAT_EQ(b, 3.0f);
}

TEST(MatrixSummary, CoversEveryStepMatrixAndHiddenStateOfATrace) {
    Trace t;
    t.main.input = Matrix::Constant(2, 3, 1.0f);
    t.main.layers.resize(2);
    t.main.layers[0].output = Matrix::Constant(2, 3, -5.0f);
    t.main.layers[1].output = Matrix::Constant(2, 3, 7.0f);
    AttentionSteps st;
    st.w_in = Matrix::Constant(9, 3, 0.25f);
    st.weights = {Matrix::Constant(2, 2, 0.5f), Matrix::Constant(2, 2, 0.75f)};
    st.masked_scores = {Matrix::Constant(2, 2, -1.0f)};
    t.steps = std::make_shared<const AttentionSteps>(std::move(st));
    const MatrixSummaries s = summarize_shown_matrices(t);
    EXPECT_EQ(s.size(), 3u + 1u + 2u + 1u);  // input + 2 outputs, W_in, 2 weights, 1 masked
    EXPECT_FLOAT_EQ(s.at(&t.main.layers[0].output).lo, -5.0f);
    EXPECT_FLOAT_EQ(s.at(&t.main.layers[1].output).hi, 7.0f);
    EXPECT_FLOAT_EQ(s.at(&t.steps->w_in).hi, 0.25f);
    EXPECT_FLOAT_EQ(s.at(&t.steps->weights[1]).lo, 0.75f);
    EXPECT_FLOAT_EQ(s.at(&t.steps->masked_scores[0]).lo, -1.0f);
}

}  // namespace
}  // namespace hs
