// Helpers over a Trace (core/trace.h) that the frontends show without computing.
#include <gtest/gtest.h>

#include "core/image/colormap.h"

#include <cmath>
#include <limits>

#include "core/io/trace_export.h"
#include "core/model/trace.h"

namespace hs {
namespace {

// input rows (3, 4), (0, 1) → ‖h‖ 5, 1 (mean 3); layer 0 output rows (1, 0), (0, 0) → 1, 0.
TEST(HiddenNorms, GivesEachTokensL2NormPerHiddenStateWithMeansAndMax) {
    StackTrace stack;
    stack.input = Matrix(2, 2);
    stack.input << 3, 4, 0, 1;
    stack.layers.resize(1);
    stack.layers[0].output = Matrix(2, 2);
    stack.layers[0].output << 1, 0, 0, 0;
    const HiddenNorms n = hidden_norms(stack);
    ASSERT_EQ(n.norms.size(), 2u);
    EXPECT_FLOAT_EQ(n.norms[0](0), 5.0f);
    EXPECT_FLOAT_EQ(n.norms[0](1), 1.0f);
    EXPECT_FLOAT_EQ(n.norms[1](0), 1.0f);
    EXPECT_FLOAT_EQ(n.norms[1](1), 0.0f);
    EXPECT_FLOAT_EQ(n.means[0], 3.0f);
    EXPECT_FLOAT_EQ(n.means[1], 0.5f);
    EXPECT_FLOAT_EQ(n.max, 5.0f);
}

TEST(ScoresLimit, KeepsScoresUpToTheLimitAndDropsThemBeyond) {
    TraceOptions o;
    o.scores = true;
    o.scores_cell_limit = 100;
    EXPECT_TRUE(with_scores_limit(o, 100).scores);
    EXPECT_FALSE(with_scores_limit(o, 101).scores);
    o.scores = false;
    EXPECT_FALSE(with_scores_limit(o, 1).scores);
}

// Weights (0.1, 0.9; 0.5, 0.2) → [0.1, 0.9]; scores with a −∞ and a NaN → the finite
// [−2, 3]; a map with no finite value → [0, 0].
TEST(MapRanges, AreTheFiniteMinAndMaxOfEachHeadsMap) {
    const float inf = std::numeric_limits<float>::infinity();
    HeadMaps maps;
    maps.weights = {Matrix(2, 2), Matrix(1, 1)};
    maps.weights[0] << 0.1f, 0.9f, 0.5f, 0.2f;
    maps.weights[1] << -inf;
    maps.scores = {Matrix(1, 4)};
    maps.scores[0] << -inf, 3.0f, std::nanf(""), -2.0f;
    fill_map_ranges(maps);
    ASSERT_EQ(maps.weight_ranges.size(), 2u);
    EXPECT_FLOAT_EQ(maps.weight_ranges[0].lo, 0.1f);
    EXPECT_FLOAT_EQ(maps.weight_ranges[0].hi, 0.9f);
    EXPECT_FLOAT_EQ(maps.weight_ranges[1].lo, 0.0f);
    EXPECT_FLOAT_EQ(maps.weight_ranges[1].hi, 0.0f);
    ASSERT_EQ(maps.score_ranges.size(), 1u);
    EXPECT_FLOAT_EQ(maps.score_ranges[0].lo, -2.0f);
    EXPECT_FLOAT_EQ(maps.score_ranges[0].hi, 3.0f);
}

// A map of one value has a colour range with two ends: a one-token map's weight 1 gives
// [0, 1] (it drew in the bottom colour on a bar reading 1 at both ends), equal scores of
// −2 give [−2, 0], all zeros [0, 1]; two values or more keep their own range.
TEST(MapRanges, AMapOfOneValueGetsARangeWithTwoEnds) {
    HeadMaps maps;
    maps.weights = {Matrix::Constant(1, 1, 1.0f), Matrix::Zero(2, 2)};
    maps.scores = {Matrix::Constant(1, 3, -2.0f), Matrix::Constant(1, 1, 0.25f)};
    fill_map_ranges(maps);
    ASSERT_EQ(maps.weight_ranges.size(), 2u);
    EXPECT_FLOAT_EQ(maps.weight_ranges[0].lo, 0.0f);
    EXPECT_FLOAT_EQ(maps.weight_ranges[0].hi, 1.0f);
    EXPECT_FLOAT_EQ(maps.weight_ranges[0].max, 1.0f);
    EXPECT_FLOAT_EQ(maps.weight_ranges[1].lo, 0.0f);
    EXPECT_FLOAT_EQ(maps.weight_ranges[1].hi, 1.0f);
    ASSERT_EQ(maps.score_ranges.size(), 2u);
    EXPECT_FLOAT_EQ(maps.score_ranges[0].lo, -2.0f);
    EXPECT_FLOAT_EQ(maps.score_ranges[0].hi, 0.0f);
    EXPECT_FLOAT_EQ(maps.score_ranges[1].lo, 0.0f);
    EXPECT_FLOAT_EQ(maps.score_ranges[1].hi, 0.25f);
    // and the weight 1 draws at the top of its bar
    ColorScale scale;
    scale.lo = maps.weight_ranges[0].lo;
    scale.hi = maps.weight_ranges[0].hi;
    EXPECT_FLOAT_EQ(scale.normalized(1.0f), 1.0f);
}

// A self-attention block's steps have no separate [K|V] of a memory: the JSON leaves
// kv_memory out instead of writing an empty matrix; a cross-attention block's is written.
TEST(StepsJson, WritesKvMemoryOnlyForCrossAttention) {
    AttentionSteps self;
    self.q = Matrix::Constant(2, 3, 1.0f);
    const nlohmann::json j = steps_to_json(self);
    EXPECT_EQ(j.at("q"), nlohmann::json({{1.0, 1.0, 1.0}, {1.0, 1.0, 1.0}}));
    EXPECT_FALSE(j.contains("kv_memory"));

    AttentionSteps cross;
    cross.kv_memory = Matrix(2, 2);
    cross.kv_memory << 0.5f, -1.0f, 2.0f, 0.25f;  // S = 2 memory rows, [K|V] with I_kv = 1
    const nlohmann::json c = steps_to_json(cross);
    ASSERT_TRUE(c.contains("kv_memory"));
    EXPECT_EQ(c.at("kv_memory"), nlohmann::json({{0.5, -1.0}, {2.0, 0.25}}));
}

}  // namespace
}  // namespace hs
