// Sampled continuation (core/generate.h): the draws follow softmax(logits / T) restricted
// to top-k and the top-p nucleus, computed by hand here; a seed gives the same tokens.
#include <cmath>

#include <gtest/gtest.h>

#include "core/formats/gguf_model.h"
#include "core/generate.h"
#include "tests/test_util.h"

namespace hs {
namespace {

Vector logits_of(std::initializer_list<float> values) {
    Vector v(static_cast<Eigen::Index>(values.size()));
    Eigen::Index i = 0;
    for (float x : values) v[i++] = x;
    return v;
}

// Share of each id among `draws` picks.
std::vector<double> frequencies(const Vector& logits, const Sampling& s, int draws) {
    Rng rng(s.seed);
    std::vector<double> f(static_cast<std::size_t>(logits.size()), 0.0);
    for (int i = 0; i < draws; ++i) f.at(static_cast<std::size_t>(pick_next_token(logits, s, rng))) += 1.0 / draws;
    return f;
}

TEST(Sampling, GreedyIsTheFirstLargestLogit) {
    Rng rng(0);
    EXPECT_EQ(pick_next_token(logits_of({0.5f, 2.0f, 2.0f, -1.0f}), Sampling{}, rng), 1);
}

TEST(Sampling, DrawsFollowTheTemperedSoftmax) {
    // T = 0.5 on logits (1, 0, −1): p ∝ (e², 1, e⁻²) = (0.8668, 0.1173, 0.0159).
    const auto f = frequencies(logits_of({1.0f, 0.0f, -1.0f}), Sampling{0.5f, 0, 1.0f, 7}, 20000);
    EXPECT_NEAR(f[0], 0.8668, 0.01);
    EXPECT_NEAR(f[1], 0.1173, 0.01);
    EXPECT_NEAR(f[2], 0.0159, 0.005);
}

TEST(Sampling, TopKAndTopPDropTheTailAndRenormalise) {
    // T = 1 on log(0.5, 0.3, 0.2): top-p 0.7 keeps {0, 1} (0.5 < 0.7 ≤ 0.8): 0.625 / 0.375.
    const Vector l = logits_of({std::log(0.5f), std::log(0.3f), std::log(0.2f)});
    const auto nucleus = frequencies(l, Sampling{1.0f, 0, 0.7f, 3}, 20000);
    EXPECT_NEAR(nucleus[0], 0.625, 0.01);
    EXPECT_NEAR(nucleus[1], 0.375, 0.01);
    EXPECT_EQ(nucleus[2], 0.0);
    const auto top2 = frequencies(l, Sampling{1.0f, 2, 1.0f, 3}, 5000);
    EXPECT_EQ(top2[2], 0.0);
    EXPECT_NEAR(top2[0], 0.625, 0.02);
    const auto top1 = frequencies(l, Sampling{5.0f, 1, 1.0f, 3}, 500);
    EXPECT_NEAR(top1[0], 1.0, 1e-9);  // top-k 1 is greedy whatever the temperature
}

TEST(Sampling, OutOfRangeValuesAreNamed) {
    test::expect_error([] { check_sampling(Sampling{-0.5f, 0, 1.0f, 0}); }, {"temperature", "must be 0"});
    test::expect_error([] { check_sampling(Sampling{1.0f, -2, 1.0f, 0}); }, {"top-k -2"});
    test::expect_error([] { check_sampling(Sampling{1.0f, 0, 0.0f, 0}); }, {"top-p", "(0, 1]"});
    test::expect_error([] { check_sampling(Sampling{1.0f, 0, 1.5f, 0}); }, {"top-p"});
}

TEST(Sampling, ASeedGivesTheSameStoryAndTopOneIsGreedy) {
    const GgufCheckpoint s = load_gguf(std::string(HEADSCOPE_SHARED_DIR) + "/models/gguf/stories260K-F32.gguf");
    const std::vector<int> prompt = s.tokenizer->encode("Once upon a time").ids;
    const auto sample = [&](const Sampling& sampling) {
        Rng rng(sampling.seed);
        return generate(s.model, *s.tokenizer, prompt, 24, sampling, rng);
    };
    EXPECT_EQ(sample(Sampling{0.9f, 0, 1.0f, 1}), sample(Sampling{0.9f, 0, 1.0f, 1}));
    EXPECT_NE(sample(Sampling{0.9f, 0, 1.0f, 1}), sample(Sampling{0.9f, 0, 1.0f, 2}));
    EXPECT_EQ(sample(Sampling{1.0f, 1, 1.0f, 5}), generate(s.model, *s.tokenizer, prompt, 24));
}

}  // namespace
}  // namespace hs
