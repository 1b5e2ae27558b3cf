// The kernel layer's own contracts (core/kernels/): the SIMD level in use is the one the
// kernels really run, HEADSCOPE_SIMD's names, and the softmax row against hand-computed
// values, at every SIMD level this CPU has (tests/simd_levels.h).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/rng.h"
#include "core/kernels/activations.h"
#include "core/kernels/dispatched.h"
#include "core/kernels/fma_ceiling.h"
#include "core/kernels/norms.h"
#include "core/kernels/simd.h"
#include "core/kernels/softmax.h"
#include "core/model/config.h"
#include "core/model/weights.h"
#include "tests/simd_levels.h"

namespace hs {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

class SimdDispatch : public test::AtSimdLevel {};
class SoftmaxRow : public test::AtSimdLevel {};
HEADSCOPE_AT_EVERY_SIMD_LEVEL(SimdDispatch);
class Activations : public test::AtSimdLevel {};
HEADSCOPE_AT_EVERY_SIMD_LEVEL(SoftmaxRow);
class CounterFills : public test::AtSimdLevel {};
HEADSCOPE_AT_EVERY_SIMD_LEVEL(Activations);
class Norms : public test::AtSimdLevel {};
HEADSCOPE_AT_EVERY_SIMD_LEVEL(CounterFills);
HEADSCOPE_AT_EVERY_SIMD_LEVEL(Norms);
class MultiplyAddChains : public test::AtSimdLevel {};
HEADSCOPE_AT_EVERY_SIMD_LEVEL(MultiplyAddChains);

TEST_P(SimdDispatch, TheKernelsRunTheForcedLevel) {
    EXPECT_EQ(kernels::simd_level(), GetParam());
    EXPECT_EQ(kernels::running_simd_level(), GetParam());
}

TEST(SimdLevels, GenericIsAlwaysSupportedAndListedFirst) {
    const auto levels = kernels::supported_simd_levels();
    ASSERT_FALSE(levels.empty());
    EXPECT_EQ(levels.front(), kernels::SimdLevel::Generic);
}

TEST(SimdLevels, NamesRoundTripAndUnknownNamesAreRefusedWithTheChoices) {
    for (auto l : {kernels::SimdLevel::Generic, kernels::SimdLevel::AVX2, kernels::SimdLevel::AVX512})
        EXPECT_EQ(kernels::parse_simd_level(kernels::simd_name(l)), l);
    try {
        kernels::parse_simd_level("sse9");
        FAIL() << "expected hs::Error";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "unknown SIMD level 'sse9': choose avx512, avx2 or generic");
    }
}

// softmax([1, 2, 3]) = e^(x−3) / Σ: e^−2 = 0.135335283, e^−1 = 0.367879441, 1; Σ = 1.503214724
TEST_P(SoftmaxRow, MatchesHandComputedValues) {
    std::vector<float> row{1, 2, 3};
    kernels::softmax_row(row.data(), 3, 3);
    EXPECT_NEAR(row[0], 0.090030573f, 1e-7f);
    EXPECT_NEAR(row[1], 0.244728471f, 1e-7f);
    EXPECT_NEAR(row[2], 0.665240956f, 1e-7f);
}

// 37 keys: whole vectors and a tail at every width. Masked keys (−∞) get exactly 0, keys
// from n_allowed on are zeroed, the rest sum to 1 and follow exp(s_j − max) in double.
TEST_P(SoftmaxRow, MaskedAndFutureKeysGetExactlyZero) {
    for (int allowed : {1, 5, 16, 17, 31, 37}) {
        SCOPED_TRACE(testing::Message() << "allowed " << allowed);
        std::vector<float> row(37);
        for (int j = 0; j < 37; ++j) row[j] = std::sin(0.7f * j) * 9.0f;
        row[allowed / 2] = -kInf;
        if (allowed > 1) row[0] = -kInf;
        const std::vector<float> s = row;
        kernels::softmax_row(row.data(), allowed, 37);
        double m = -kInf, sum = 0;
        for (int j = 0; j < allowed; ++j) m = std::max<double>(m, s[j]);
        for (int j = 0; j < allowed; ++j) sum += s[j] == -kInf ? 0.0 : std::exp(s[j] - m);
        for (int j = 0; j < 37; ++j) {
            const double want = j < allowed && s[j] != -kInf ? std::exp(s[j] - m) / sum : 0.0;
            if (want == 0.0)
                ASSERT_EQ(row[j], 0.0f) << "key " << j;
            else
                ASSERT_NEAR(row[j], want, 1e-6 * (1 + want)) << "key " << j;
        }
    }
}

TEST_P(SoftmaxRow, AFullyMaskedRowBecomesZerosNotNan) {
    std::vector<float> row(21, -kInf);
    row[20] = 5.0f;  // outside n_allowed: the causal future
    kernels::softmax_row(row.data(), 20, 21);
    for (int j = 0; j < 21; ++j) EXPECT_EQ(row[j], 0.0f) << "key " << j;
}

// 203 inputs from −12 to 12 (whole vectors and a tail at every width), each activation
// against its formula in double with the C library's erf / tanh / exp.
std::vector<float> activation_inputs() {
    std::vector<float> x(203);
    for (int i = 0; i < 203; ++i) x[i] = -12.0f + 24.0f * i / 202.0f;
    x[101] = 0.0f;
    return x;
}

// Soft-capping, cap·tanh(s / cap) against the C library's tanh in double over 203 inputs
// (whole vectors and a tail at every width): 0 stays 0, every value stays within ±cap, and
// the elements past n are untouched.
TEST_P(SoftmaxRow, SoftcapFollowsCapTimesTanhAndStaysWithinTheCap) {
    std::vector<float> x = activation_inputs();
    for (float& v : x) v *= 10.0f;  // −120 … 120 around a cap of 50
    const std::vector<float> in = x;
    for (int n : {1, 7, 16, 17, 202}) {
        std::vector<float> row = in;
        kernels::softcap_row(row.data(), n, 50.0f);
        for (int i = 0; i < 203; ++i) {
            if (i >= n) {
                ASSERT_EQ(row[i], in[i]) << "element " << i << " past n " << n;
                continue;
            }
            const double want = 50.0 * std::tanh(static_cast<double>(in[i]) / 50.0);
            ASSERT_NEAR(row[i], want, 2e-6 * (1 + std::abs(want))) << "softcap(" << in[i] << ")";
            ASSERT_LE(std::abs(row[i]), 50.0f);
        }
    }
    std::vector<float> zero{0.0f};
    kernels::softcap_row(zero.data(), 1, 2.0f);
    EXPECT_EQ(zero[0], 0.0f);
}

TEST_P(Activations, GeluErfMatchesTheFormulaInDouble) {
    std::vector<float> x = activation_inputs();
    const std::vector<float> in = x;
    kernels::gelu_erf(x.data(), static_cast<long>(x.size()));
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double v = in[i], want = 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
        ASSERT_NEAR(x[i], want, 2e-6 * (1 + std::abs(want))) << "gelu(" << v << ")";
    }
    EXPECT_EQ(x[101], 0.0f);
}

TEST_P(Activations, GeluTanhMatchesTheFormulaInDouble) {
    std::vector<float> x = activation_inputs();
    const std::vector<float> in = x;
    kernels::gelu_tanh(x.data(), static_cast<long>(x.size()));
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double v = in[i];
        const double want = 0.5 * v * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v)));
        ASSERT_NEAR(x[i], want, 2e-6 * (1 + std::abs(want))) << "gelu_tanh(" << v << ")";
    }
}

TEST_P(Activations, SiluMatchesTheFormulaInDouble) {
    std::vector<float> x = activation_inputs();
    x.push_back(-120.0f);  // e^120 overflows float: silu → −0
    x.push_back(120.0f);   // e^−120 underflows: silu → x
    const std::vector<float> in = x;
    kernels::silu(x.data(), static_cast<long>(x.size()));
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double v = in[i], want = v / (1.0 + std::exp(-v));
        ASSERT_NEAR(x[i], want, 2e-6 * (1 + std::abs(want))) << "silu(" << v << ")";
    }
}

// The same seed gives the same weights on every CPU: the vectorised fills at each level
// equal the generic level's values bit for bit (uniforms, and normals in both the
// central and the tail formula: 100 003 draws hold ~5 000 tail draws).
TEST_P(CounterFills, EqualTheGenericLevelBitForBit) {
    const std::size_t n = 100'003;
    std::vector<float> uniform(n), normal(n), uniform_generic(n), normal_generic(n);
    fill_uniform_counter(uniform.data(), n, 0xC0FFEE, 5, 0.25f);
    fill_normal_counter(normal.data(), n, 0xC0FFEE, 5);
    kernels::force_simd_level(kernels::SimdLevel::Generic);
    fill_uniform_counter(uniform_generic.data(), n, 0xC0FFEE, 5, 0.25f);
    fill_normal_counter(normal_generic.data(), n, 0xC0FFEE, 5);
    for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(uniform[i], uniform_generic[i]) << "uniform " << i;
        ASSERT_EQ(normal[i], normal_generic[i]) << "normal " << i;
    }
}

// A seeded playground model is the same on every CPU. With a·b + c contracted into FMAs
// at avx2 and avx512, about 1 normal draw in 25 M came out 1 ulp away from the generic
// level's (all in Acklam's central formula). These seeds' embeddings (8192 × 512 draws
// each) hold such draws: seed 99 its element 843907 (1.9444938 against 1.9444939),
// seeds 100, 101, 123 and 132 their elements 2784592, 4050499, 165583 and 92060.
TEST_P(CounterFills, GiveTheSameSeededEmbeddingsAsTheGenericLevel) {
    if (GetParam() == kernels::SimdLevel::Generic) GTEST_SKIP() << "compares a level with the generic one";
    for (const int seed : {99, 100, 101, 123, 132}) {
        const ModelConfig config =
            parse_playground_spec("random:d_model=512,heads=8,layers=1,vocab=8192,seed=" + std::to_string(seed));
        kernels::force_simd_level(GetParam());
        const ModelWeights here = init_weights(config);
        kernels::force_simd_level(kernels::SimdLevel::Generic);
        const ModelWeights generic = init_weights(config);
        ASSERT_EQ(here.embed.size(), 8192 * 512);
        ASSERT_EQ(generic.embed.size(), here.embed.size());
        for (Eigen::Index i = 0; i < here.embed.size(); ++i)
            ASSERT_EQ(here.embed.data()[i], generic.embed.data()[i]) << "seed " << seed << ", element " << i;
    }
}

// x = (1, 2, 3, 4): μ = 2.5, σ² = 1.25, 1/σ = 0.894427191; γ = 1, β = 0.
TEST_P(Norms, LayerNormMatchesHandComputedValues) {
    const float x[4] = {1, 2, 3, 4}, gamma[4] = {1, 1, 1, 1}, beta[4] = {0, 0, 0, 0};
    float y[4];
    kernels::layer_norm_row(x, y, gamma, beta, 4, 0.0f);
    const float want[4] = {-1.341640786f, -0.447213595f, 0.447213595f, 1.341640786f};
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(y[i], want[i], 1e-6f) << i;
}

// x = (3, 4): mean x² = 12.5, rms = 3.535533906; γ = (1, 2).
TEST_P(Norms, RmsNormMatchesHandComputedValues) {
    const float x[2] = {3, 4}, gamma[2] = {1, 2};
    float y[2];
    kernels::rms_norm_row(x, y, gamma, 2, 0.0f);
    EXPECT_NEAR(y[0], 0.848528137f, 1e-6f);
    EXPECT_NEAR(y[1], 2.262741700f, 1e-6f);
}

// 37 features (whole vectors and a tail at every width), in place, against double.
TEST_P(Norms, LayerNormAndRmsNormMatchDoubleInPlace) {
    std::vector<float> x(37), gamma(37), beta(37);
    for (int i = 0; i < 37; ++i) {
        x[i] = 100.0f + std::sin(1.3f * i) * 3.0f;  // a large mean: the variance must not cancel
        gamma[i] = 0.5f + 0.01f * i;
        beta[i] = -0.2f + 0.03f * i;
    }
    double mean = 0, var = 0, sq = 0;
    for (float v : x) mean += v / 37.0;
    for (float v : x) var += (v - mean) * (v - mean) / 37.0;
    for (float v : x) sq += double(v) * v / 37.0;
    std::vector<float> ln = x, rms = x;
    kernels::layer_norm_row(ln.data(), ln.data(), gamma.data(), beta.data(), 37, 1e-5f);
    kernels::rms_norm_row(rms.data(), rms.data(), gamma.data(), 37, 1e-6f);
    for (int i = 0; i < 37; ++i) {
        EXPECT_NEAR(ln[i], (x[i] - mean) / std::sqrt(var + 1e-5) * gamma[i] + beta[i], 2e-5) << i;
        EXPECT_NEAR(rms[i], x[i] / std::sqrt(sq + 1e-6) * gamma[i], 2e-6) << i;
    }
}

// The ceiling's loop (headscope bench) does the arithmetic it counts: chain j starts at j
// in every lane, and three steps of a ← 2a + 1 give 8j + 7 (exact in float), so the sum
// over the twelve chains is Σ (8j + 7) = 8·66 + 12·7 = 612 per lane; the FLOPs are
// 12 chains · lanes · 3 steps · 2, with a whole register of the level per chain.
TEST_P(MultiplyAddChains, ComputeWhatTheyCountInWholeRegisters) {
    const kernels::MultiplyAddRun run = kernels::multiply_add_chains(3, 2.0f, 1.0f);
    const int lanes = run.lanes;
    // generic: Highway 1.0 (Debian 12) compiles a scalar level, 1.2+ (Debian 13) the SSE2 baseline.
    if (GetParam() == kernels::SimdLevel::AVX512) EXPECT_EQ(lanes, 16);
    else if (GetParam() == kernels::SimdLevel::AVX2) EXPECT_EQ(lanes, 8);
    else EXPECT_TRUE(lanes == 1 || lanes == 4) << lanes;
    EXPECT_EQ(run.flops, 12 * lanes * 3 * 2);
    EXPECT_EQ(run.sum, 612.0 * lanes);
    // No steps: the chains keep their start values, 0 + 1 + … + 11 = 66 per lane, and no FLOPs.
    const kernels::MultiplyAddRun none = kernels::multiply_add_chains(0, 2.0f, 1.0f);
    EXPECT_EQ(none.flops, 0);
    EXPECT_EQ(none.sum, 66.0 * lanes);
}

}  // namespace
}  // namespace hs
