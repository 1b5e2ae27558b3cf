#include <cmath>
#include <limits>
#include <gtest/gtest.h>

#include "core/image/box_mean.h"

namespace hs {
namespace {

Matrix counting(int rows, int cols) {
    Matrix m(rows, cols);
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) m(i, j) = static_cast<float>(i * cols + j);
    return m;
}

TEST(BoxMean, AveragesEvenBlocks) {
    // (4, 6) -> (2, 3): 2 × 2 blocks; cell (1, 2) = rows 2-3, columns 4-5: 16, 17, 22, 23.
    const Matrix out = box_mean(counting(4, 6), 2, 3);
    ASSERT_EQ(out.rows(), 2);
    ASSERT_EQ(out.cols(), 3);
    EXPECT_FLOAT_EQ(out(0, 0), (0 + 1 + 6 + 7) / 4.0f);
    EXPECT_FLOAT_EQ(out(1, 2), (16 + 17 + 22 + 23) / 4.0f);
}

TEST(BoxMean, UnevenPartsCoverEveryCellOnce) {
    // (5, 3) -> (2, 1): rows [0, 2) and [2, 5) (5·1/2 = 2), all three columns.
    const Matrix out = box_mean(counting(5, 3), 2, 1);
    EXPECT_FLOAT_EQ(out(0, 0), (0 + 1 + 2 + 3 + 4 + 5) / 6.0f);
    EXPECT_FLOAT_EQ(out(1, 0), (6 + 7 + 8 + 9 + 10 + 11 + 12 + 13 + 14) / 9.0f);
    // The mean of the means, weighted by block sizes, is the mean of the map.
    EXPECT_FLOAT_EQ((out(0, 0) * 6 + out(1, 0) * 9) / 15.0f, 7.0f);
}

TEST(BoxMean, MipLevelsHalveDownToOneCell) {
    // 5 × 1 -> 2 × 1 (odd row joins its neighbours) -> 1 × 1, as GL sizes mip levels.
    Matrix m = counting(5, 1);
    Matrix l1 = mip_level_below(m);
    ASSERT_EQ(l1.rows(), 2);
    ASSERT_EQ(l1.cols(), 1);
    EXPECT_FLOAT_EQ(l1(0, 0), 0.5f);
    EXPECT_FLOAT_EQ(l1(1, 0), 3.0f);  // rows 2, 3, 4
    Matrix l2 = mip_level_below(l1);
    ASSERT_EQ(l2.rows(), 1);
    ASSERT_EQ(l2.cols(), 1);
    EXPECT_FLOAT_EQ(l2(0, 0), 1.75f);
    // Even sides take a 2 × 2 fast path: (6, 8) -> (3, 4), cell (2, 3) = rows 4-5,
    // columns 6-7 of the counting matrix: 38, 39, 46, 47.
    const Matrix even = mip_level_below(counting(6, 8));
    ASSERT_EQ(even.rows(), 3);
    ASSERT_EQ(even.cols(), 4);
    EXPECT_FLOAT_EQ(even(0, 0), (0 + 1 + 8 + 9) / 4.0f);
    EXPECT_FLOAT_EQ(even(2, 3), (38 + 39 + 46 + 47) / 4.0f);
    EXPECT_TRUE(even.isApprox(box_mean(counting(6, 8), 3, 4), 1e-6f));
    // 1536 × 512, the W_in of d_model 512: 768 × 256, then 384 × 128, …
    const Matrix big = Matrix::Constant(1536, 512, 0.25f);
    const Matrix half = mip_level_below(big);
    EXPECT_EQ(half.rows(), 768);
    EXPECT_EQ(half.cols(), 256);
    EXPECT_FLOAT_EQ(half(767, 255), 0.25f);
}

TEST(BoxMean, MipChainGoesDownToOneCellWithTheMapsMeanAtTheEnd) {
    // (4, 8) -> (2, 4) -> (1, 2) -> (1, 1): equal blocks all the way, so the last level is
    // the mean of 0 … 31 = 15.5; a 1 × 1 map has no level below it.
    const std::vector<Matrix> levels = mip_chain(counting(4, 8));
    ASSERT_EQ(levels.size(), 3u);
    EXPECT_EQ(levels[0].rows(), 2);
    EXPECT_EQ(levels[0].cols(), 4);
    EXPECT_EQ(levels[1].cols(), 2);
    ASSERT_EQ(levels[2].size(), 1);
    EXPECT_FLOAT_EQ(levels[2](0, 0), 15.5f);
    EXPECT_FLOAT_EQ(levels[0](1, 3), (22 + 23 + 30 + 31) / 4.0f);
    EXPECT_TRUE(mip_chain(Matrix::Constant(1, 1, 2.0f)).empty());
}

}  // namespace
}  // namespace hs

namespace hs {
namespace {

// The level nearest-level mipmapping samples: λ = log2 ρ, level 0 for λ ≤ ½, else
// ceil(λ + ½) − 1, clamped to the levels there are. By hand: ρ = √2 → λ = ½ → 0;
// ρ = 2 → λ = 1 → ceil(1.5) − 1 = 1; ρ = 2√2 → λ = 1.5 → ceil(2) − 1 = 1; ρ = 3 → λ ≈ 1.58
// → ceil(2.08) − 1 = 2; ρ = 1000 → λ ≈ 9.97 → 10, clamped to 4 levels → 4.
TEST(SampledMipLevel, FollowsTheNearestLevelRuleAndStopsAtTheLastLevel) {
    EXPECT_EQ(sampled_mip_level(0.5f, 10), 0);
    EXPECT_EQ(sampled_mip_level(1.0f, 10), 0);
    EXPECT_EQ(sampled_mip_level(1.414f, 10), 0);
    EXPECT_EQ(sampled_mip_level(1.42f, 10), 1);
    EXPECT_EQ(sampled_mip_level(2.0f, 10), 1);
    EXPECT_EQ(sampled_mip_level(2.8f, 10), 1);
    EXPECT_EQ(sampled_mip_level(3.0f, 10), 2);
    EXPECT_EQ(sampled_mip_level(1000.0f, 10), 10);
    EXPECT_EQ(sampled_mip_level(1000.0f, 4), 4);
    EXPECT_EQ(sampled_mip_level(8.0f, 0), 0);  // no levels below 0
}

}  // namespace
}  // namespace hs

// A causal map's masked scores (−∞) do not swallow the scores beside them when zoomed out:
// a block's mean is over its finite cells, −∞ only when all are masked. By hand.
TEST(BoxMean, MaskedCellsAreLeftOutOfABlocksMean) {
    const float inf = std::numeric_limits<float>::infinity();
    hs::Matrix m(4, 4);
    m << 1.0f, -inf, -inf, -inf,  //
        2.0f, 3.0f, -inf, -inf,   //
        4.0f, 5.0f, 6.0f, -inf,   //
        7.0f, 8.0f, 9.0f, 10.0f;
    const hs::Matrix half = hs::mip_level_below(m);
    EXPECT_FLOAT_EQ(half(0, 0), 2.0f);  // (1 + 2 + 3) / 3
    EXPECT_EQ(half(0, 1), -inf);        // every cell masked
    EXPECT_FLOAT_EQ(half(1, 0), 6.0f);  // (4 + 5 + 7 + 8) / 4
    EXPECT_FLOAT_EQ(half(1, 1), 25.0f / 3.0f);
    const hs::Matrix one = hs::box_mean(m, 1, 1);
    EXPECT_FLOAT_EQ(one(0, 0), 55.0f / 10.0f);  // the ten finite cells
    const hs::Matrix odd = hs::box_mean(m, 3, 3);  // uneven blocks take the slow path too
    EXPECT_TRUE(std::isfinite(odd(2, 2)));
}
