// Live edits (issue 6): a heads edit reuses the playground model's weights
// (Model::with_heads, open_playground); the parallel initialisation fills every tensor from
// its own stream exactly as one serial pass would.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/model/attention.h"
#include "core/model/config.h"
#include "core/error.h"
#include "core/kernels/gemm.h"
#include "core/kernels/packed_cache.h"
#include "core/model/model.h"
#include "core/rng.h"
#include "core/open_source.h"
#include "core/source.h"
#include "core/model/weights.h"
#include "tests/packed_weights.h"

namespace hs {
namespace {

// The per-tensor stream seed as documented in core/weights.cpp, written out again here
// as an independent reference: FNV-1a of the name, xor the seed times the golden ratio.
std::uint64_t reference_tensor_key(std::uint64_t seed, const std::string& name) {
    std::uint64_t h = 1469598103934665603ULL;
    for (unsigned char ch : name) h = (h ^ ch) * 1099511628211ULL;
    return seed * 0x9E3779B97F4A7C15ULL ^ h;
}

// SplitMix64 (Steele, Lea & Flood 2014), stepped serially: adds γ, then mixes.
std::uint64_t reference_splitmix64(std::uint64_t& x) {
    x += 0x9E3779B97F4A7C15ULL;
    std::uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}


// (Not AttentionWeights::heads: a Model reads its matrices with config().heads, and
// with_heads shares them between head counts.)
void expect_same_attention(const AttentionWeights& a, const AttentionWeights& b) {
    EXPECT_EQ(a.in_proj_weight, b.in_proj_weight);
    EXPECT_EQ(a.in_proj_bias, b.in_proj_bias);
    EXPECT_EQ(a.out_proj_weight, b.out_proj_weight);
    EXPECT_EQ(a.out_proj_bias, b.out_proj_bias);
}

void expect_same_ffn(const FeedForwardWeights& a, const FeedForwardWeights& b) {
    EXPECT_EQ(a.linear1_weight, b.linear1_weight);
    EXPECT_EQ(a.linear2_weight, b.linear2_weight);
    EXPECT_EQ(a.linear1_bias, b.linear1_bias);
    EXPECT_EQ(a.linear2_bias, b.linear2_bias);
}

void expect_same_weights(const ModelWeights& a, const ModelWeights& b) {
    EXPECT_EQ(a.embed, b.embed);
    EXPECT_EQ(a.pos_embed, b.pos_embed);
    ASSERT_EQ(a.layers.size(), b.layers.size());
    for (std::size_t i = 0; i < a.layers.size(); ++i) {
        expect_same_attention(a.layers[i].self_attn, b.layers[i].self_attn);
        expect_same_ffn(a.layers[i].ffn, b.layers[i].ffn);
        EXPECT_EQ(a.layers[i].norm1.weight, b.layers[i].norm1.weight);
        EXPECT_EQ(a.layers[i].norm2.bias, b.layers[i].norm2.bias);
    }
    ASSERT_EQ(a.decoder_layers.size(), b.decoder_layers.size());
    for (std::size_t i = 0; i < a.decoder_layers.size(); ++i) {
        expect_same_attention(a.decoder_layers[i].self_attn, b.decoder_layers[i].self_attn);
        expect_same_attention(a.decoder_layers[i].cross_attn, b.decoder_layers[i].cross_attn);
        expect_same_ffn(a.decoder_layers[i].ffn, b.decoder_layers[i].ffn);
    }
    EXPECT_EQ(a.final_norm.has_value(), b.final_norm.has_value());
    EXPECT_EQ(a.decoder_final_norm.has_value(), b.decoder_final_norm.has_value());
}

void expect_same_maps(const StackTrace& a, const StackTrace& b) {
    ASSERT_EQ(a.layers.size(), b.layers.size());
    for (std::size_t l = 0; l < a.layers.size(); ++l) {
        ASSERT_EQ(a.layers[l].self_attn.weights.size(), b.layers[l].self_attn.weights.size());
        for (std::size_t h = 0; h < a.layers[l].self_attn.weights.size(); ++h)
            EXPECT_EQ(a.layers[l].self_attn.weights[h], b.layers[l].self_attn.weights[h]);
    }
    EXPECT_EQ(a.final_output, b.final_output);
}

const char* kSpec4 =
    "random:arch=encoder-decoder,d_model=64,heads=4,layers=2,d_ff=96,vocab=300,max_len=40,"
    "pe=learned,norm=pre-ln,act=gelu,seed=11";

TEST(ModelWithHeads, EqualsAFreshRandomModelOfTheNewSpecWeightsAndTrace) {
    ModelConfig c = parse_playground_spec(kSpec4);
    const Model four = Model::random(c);
    const Model eight = four.with_heads(8);
    c.heads = 8;
    const Model fresh = Model::random(c);
    EXPECT_EQ(eight.config().heads, 8);
    EXPECT_EQ(eight.name(), fresh.name());
    EXPECT_EQ(eight.name(), to_playground_spec(c));
    EXPECT_EQ(eight.parameter_count(), fresh.parameter_count());
    expect_same_weights(eight.weights(), fresh.weights());
    // The source model keeps its own head count.
    EXPECT_EQ(four.config().heads, 4);

    ForwardInput in;
    in.ids = {3, 14, 15, 92, 65, 35};
    in.decoder_ids = {2, 7, 18, 28};
    const Trace a = eight.forward(in), b = fresh.forward(in);
    ASSERT_EQ(a.main.layers[0].self_attn.weights.size(), 8u);
    expect_same_maps(a.main, b.main);
    ASSERT_TRUE(a.decoder.has_value());
    expect_same_maps(*a.decoder, *b.decoder);
}

TEST(ModelWithHeads, SharesTheWeightsAndEditingOneUnsharesIt) {
    const Model four = Model::random(parse_playground_spec(kSpec4));
    Model two = four.with_heads(2);
    EXPECT_EQ(&two.weights(), &four.weights());  // no copy
    // Editing one model's weights copies them first: the other keeps its own.
    const float before = four.weights().layers[0].self_attn.in_proj_bias(0);
    two.mutable_weights().layers[0].self_attn.in_proj_bias(0) = before + 1.0f;
    EXPECT_NE(&two.weights(), &four.weights());
    EXPECT_EQ(four.weights().layers[0].self_attn.in_proj_bias(0), before);
    EXPECT_EQ(two.weights().layers[0].self_attn.in_proj_bias(0), before + 1.0f);
    // The other model's weights stay registered (EditedWeightsReachTheForward checks that
    // no stale panels reach an edited model's forward).
    EXPECT_NE(test::pack_registered(four.weights().layers[0].self_attn.in_proj_weight), nullptr);
}

TEST(ModelWithHeads, EditedWeightsReachTheForward) {
    // An edit of a linear weight after construction (mutable_weights) changes the output:
    // no stale packed copy is used. Checked against the naive per-head attention.
    ModelConfig c = parse_playground_spec("random:d_model=128,heads=2,layers=1,d_ff=64,vocab=50,pe=none");
    Model m = Model::random(c);
    AttentionWeights& w = m.mutable_weights().layers[0].self_attn;
    w.in_proj_weight *= 2.0f;
    ForwardInput in;
    in.ids = {1, 2, 3, 4, 5, 6, 7, 8};
    const Trace t = m.forward(in);
    const Matrix x = embed_tokens(m, in.ids);
    const AttentionResult naive = multi_head_attention_naive(w, x, x, AttentionMask{});
    for (int h = 0; h < 2; ++h)
        EXPECT_TRUE(t.main.layers[0].self_attn.weights[h].isApprox(naive.weights[h], 1e-4f)) << "head " << h;
}

TEST(PackedCache, HoldsEveryLinearLayerWhileTheModelLivesAndTheWeightsStayPlain) {
    const ModelConfig c = parse_playground_spec("random:d_model=512,heads=8,layers=6");
    const ModelWeights fresh = init_weights(c);
    const float* w1_data = nullptr;
    {
        const Model m = Model::random(c);
        const FeedForwardWeights& f = m.weights().layers[2].ffn;
        EXPECT_EQ(f.linear1_weight, fresh.layers[2].ffn.linear1_weight);  // plain PyTorch layout
        EXPECT_EQ(f.linear2_weight, fresh.layers[2].ffn.linear2_weight);
        EXPECT_EQ(f.d_ff(), 2048);
        EXPECT_EQ(f.d_model(), 512);
        // 6 × (3·512² + 3·512 + 512² + 512 + 2·512·2048 + 2048 + 512 + 4·512) + 8192·512
        EXPECT_EQ(m.parameter_count(), 23108608);
        // Registered, packed on the second product; panel q holds W1ᵀ[:, 64q : 64q + 64]:
        // input i, output 64q + j at [i·64 + j].
        EXPECT_EQ(packed_panels(f.linear1_weight), nullptr);
        const gemm::PackedWeights* p = test::pack_registered(f.linear1_weight);
        ASSERT_NE(p, nullptr);
        EXPECT_EQ(p->n, 2048);
        EXPECT_EQ(p->k, 512);
        EXPECT_EQ(p->panel(5)[7 * 64 + 3], f.linear1_weight(5 * 64 + 3, 7));
        for (const WeightRows& w : linear_weights(m.weights()))
            EXPECT_NE(test::pack_registered(Eigen::Map<const Matrix>(w.data, w.rows, w.cols)), nullptr);
        EXPECT_EQ(linear_weights(m.weights()).size(), 6u * 4u);
        // A block of a matrix is not the matrix: not registered.
        EXPECT_EQ(test::pack_registered(f.linear1_weight.topRows(64)), nullptr);
        w1_data = f.linear1_weight.data();
    }
    // Gone with the model: the address (only compared, not read) is no longer registered.
    EXPECT_EQ(packed_panels(Eigen::Map<const Matrix>(w1_data, 2048, 512)), nullptr);
}

// Forwards of one fresh model from several threads at once: the weights' first products
// (panels packed on the fly), their second (packed once, under the entry's lock) and the
// later ones (the kept panels) race. Every trace equals the model run alone, within the
// rounding that separates the per-head fused path (packed W_in) from the unfused one.
TEST(PackedCache, ConcurrentForwardsOfAFreshModelAgreeWithTheModelRunAlone) {
    const ModelConfig c = parse_playground_spec("random:d_model=512,heads=8,layers=2,d_ff=256,vocab=100,seed=5");
    ForwardInput in;
    for (int i = 0; i < 24; ++i) in.ids.push_back(1 + 3 * i);
    const Trace alone = Model::random(c).forward(in);
    const Model shared = Model::random(c);
    std::vector<Trace> traces(6);
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t)
        threads.emplace_back([&, t] {
            for (int run = 0; run < 2; ++run) traces[static_cast<std::size_t>(2 * t + run)] = shared.forward(in);
        });
    for (std::thread& t : threads) t.join();
    for (std::size_t i = 0; i < traces.size(); ++i) {
        SCOPED_TRACE(i);
        const StackTrace& a = traces[i].main;
        ASSERT_EQ(a.layers.size(), alone.main.layers.size());
        EXPECT_LT((a.final_output - alone.main.final_output).cwiseAbs().maxCoeff(), 1e-4f);
        for (std::size_t l = 0; l < a.layers.size(); ++l)
            for (std::size_t h = 0; h < a.layers[l].self_attn.weights.size(); ++h)
                EXPECT_LT((a.layers[l].self_attn.weights[h] - alone.main.layers[l].self_attn.weights[h]).cwiseAbs().maxCoeff(),
                          1e-5f);
    }
    // Six forwards: every weight had its second product, so every panel set is kept.
    for (const WeightRows& w : linear_weights(shared.weights()))
        EXPECT_NE(packed_panels(Eigen::Map<const Matrix>(w.data, w.rows, w.cols)), nullptr);
}

TEST(ModelWithHeads, SharesThePackedPanelsInsteadOfRepacking) {
    auto four = std::make_unique<Model>(Model::random(parse_playground_spec(kSpec4)));
    const Model two = four->with_heads(2);
    EXPECT_EQ(&two.weights(), &four->weights());
    const Matrix& w2 = two.weights().decoder_layers[1].ffn.linear2_weight;
    const gemm::PackedWeights* panels = test::pack_registered(w2);  // packed through either model
    ASSERT_NE(panels, nullptr);
    EXPECT_EQ(packed_panels(four->weights().decoder_layers[1].ffn.linear2_weight), panels);
    // Cross-attention multiplies W_in as two row blocks: W_Q and [W_K; W_V].
    const AttentionWeights& cross = two.weights().decoder_layers[0].cross_attn;
    EXPECT_NE(test::pack_registered(cross.in_proj_weight.topRows(cross.inner())), nullptr);
    EXPECT_NE(test::pack_registered(cross.in_proj_weight.bottomRows(2 * cross.kv_inner())), nullptr);
    EXPECT_EQ(test::pack_registered(cross.in_proj_weight), nullptr);
    four.reset();  // the model the panels were made for
    EXPECT_EQ(packed_panels(w2), panels);  // still held for the model sharing them
}

TEST(ModelWithHeads, RejectsAHeadCountThatDoesNotDivideDModel) {
    const Model four = Model::random(parse_playground_spec(kSpec4));
    try {
        (void)four.with_heads(5);
        FAIL() << "expected hs::Error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("d_model 64 is not divisible by 5 heads"),
                  std::string::npos)
            << e.what();
    }
}

TEST(OpenPlayground, AHeadsOnlyEditReusesTheWeightsAndMatchesAFreshOpen) {
    const std::string before = "random:d_model=64,heads=4,layers=2,seed=3,mask=causal";
    const std::string after = "random:d_model=64,heads=16,layers=2,seed=3,mask=causal";
    const auto previous = open_source(before);
    const auto reopened = open_playground(parse_playground_spec(after), previous.get());
    const auto fresh = open_source(after);
    ASSERT_NE(reopened->model(), nullptr);
    EXPECT_EQ(reopened->kind(), "playground");
    EXPECT_EQ(reopened->name(), fresh->name());
    EXPECT_EQ(reopened->config().heads, 16);
    expect_same_weights(reopened->model()->weights(), fresh->model()->weights());
    // reused, not re-initialised or repacked: the very same weights and panels
    EXPECT_EQ(&reopened->model()->weights(), &previous->model()->weights());
    EXPECT_NE(test::pack_registered(reopened->model()->weights().layers[0].ffn.linear1_weight), nullptr);
    SourceInput input;
    input.text = "the cat sat on the mat";
    const Trace a = reopened->run(input, {}), b = fresh->run(input, {});
    expect_same_maps(a.main, b.main);
}

TEST(OpenPlayground, AnyOtherChangeInitialisesAFreshModel) {
    const std::string before = "random:d_model=64,heads=4,layers=2,seed=3";
    const auto previous = open_source(before);
    for (const std::string after : {"random:d_model=64,heads=8,layers=2,seed=4",
                                    "random:d_model=64,heads=8,layers=2,seed=3,mask=causal",
                                    "random:d_model=64,heads=8,layers=2,seed=3,d_ff=128",
                                    "random:d_model=32,heads=4,layers=2,seed=3"}) {
        const auto reopened = open_playground(parse_playground_spec(after), previous.get());
        const auto fresh = open_source(after);
        EXPECT_EQ(reopened->name(), fresh->name()) << after;
        EXPECT_EQ(reopened->model()->config().mask, fresh->model()->config().mask) << after;
        expect_same_weights(reopened->model()->weights(), fresh->model()->weights());
        EXPECT_NE(&reopened->model()->weights(), &previous->model()->weights()) << after;
    }
    // No previous source: a fresh model; an invalid config: the config check's error.
    EXPECT_EQ(open_playground(parse_playground_spec("random:d_model=64,heads=8,layers=1"), nullptr)->config().layers, 1);
    ModelConfig bad = parse_playground_spec(before);
    bad.heads = 5;
    EXPECT_THROW(open_playground(bad, previous.get()), Error);
}

TEST(SameButHeads, ComparesEveryFieldExceptHeads) {
    const ModelConfig base = parse_playground_spec("random:d_model=64,heads=4,layers=2");
    ModelConfig c = base;
    c.heads = 8;
    EXPECT_TRUE(same_but_heads(base, c));
    auto differs = [&](auto change) {
        ModelConfig d = base;
        change(d);
        return !same_but_heads(base, d);
    };
    EXPECT_TRUE(differs([](ModelConfig& d) { d.seed = 1; }));
    EXPECT_TRUE(differs([](ModelConfig& d) { d.d_ff = 100; }));
    EXPECT_TRUE(differs([](ModelConfig& d) { d.mask = MaskKind::Causal; }));
    EXPECT_TRUE(differs([](ModelConfig& d) { d.norm_eps = 1e-6f; }));
    EXPECT_TRUE(differs([](ModelConfig& d) { d.vocab = 100; }));
    EXPECT_TRUE(differs([](ModelConfig& d) { d.max_len = 100; }));
    EXPECT_TRUE(differs([](ModelConfig& d) { d.pe = PosEncoding::None; }));
    EXPECT_TRUE(differs([](ModelConfig& d) { d.norm = NormPlacement::PreLN; }));
    EXPECT_TRUE(differs([](ModelConfig& d) { d.activation = Activation::GELU; }));
    EXPECT_TRUE(differs([](ModelConfig& d) { d.arch = Arch::DecoderOnly; }));
    EXPECT_TRUE(differs([](ModelConfig& d) { d.layers = 3; }));
    EXPECT_TRUE(differs([](ModelConfig& d) { d.d_model = 32; }));
}

TEST(InitWeights, ParallelFillEqualsSerialPerTensorStreams) {
    const ModelConfig c = parse_playground_spec(
        "random:arch=encoder-decoder,d_model=32,heads=4,layers=2,vocab=600,max_len=300,pe=learned,seed=9");
    const ModelWeights w = init_weights(c);
    // Uniform tensors: SplitMix64 stepped serially from the tensor key, row by row; the
    // top 24 bits k of each output give bound · (k − 2²³) / 2²³.
    auto serial_uniform = [&](const std::string& name, int rows, int cols, float bound) {
        std::uint64_t x = reference_tensor_key(c.seed, name);
        Matrix m(rows, cols);
        for (int i = 0; i < rows; ++i)
            for (int j = 0; j < cols; ++j) {
                const std::uint64_t k = reference_splitmix64(x) >> 40;
                m(i, j) = static_cast<float>(double(bound) * (double(k) - 8388608.0) / 8388608.0);
            }
        return m;
    };
    EXPECT_EQ(w.layers[1].self_attn.in_proj_weight,
              serial_uniform("encoder.layers.1.self_attn.in_proj_weight", 96, 32, std::sqrt(6.0f / 128.0f)));
    EXPECT_EQ(w.decoder_layers[0].cross_attn.out_proj_weight,
              serial_uniform("decoder.layers.0.multihead_attn.out_proj.weight", 32, 32, 1.0f / std::sqrt(32.0f)));
    EXPECT_EQ(w.decoder_layers[1].ffn.linear2_weight,
              serial_uniform("decoder.layers.1.linear2.weight", 32, 128, 1.0f / std::sqrt(128.0f)));
    const Matrix bias = serial_uniform("encoder.layers.0.linear1.bias", 1, 128, 1.0f / std::sqrt(32.0f));
    EXPECT_EQ(Vector(w.layers[0].ffn.linear1_bias), Vector(bias.row(0).transpose()));
    // Normal tables: one counter-based tensor, element by element (600 × 32 = 19 200
    // elements, so the 2¹⁶-element jobs are checked by the 1000 × 128 table below).
    auto serial_normal = [&](const std::string& name, int rows, int cols) {
        const std::uint64_t key = reference_tensor_key(c.seed, name);
        Matrix m(rows, cols);
        for (int r = 0; r < rows; ++r)
            for (int j = 0; j < cols; ++j)
                fill_normal_counter(&m(r, j), 1, key, static_cast<std::uint64_t>(r) * cols + j);
        return m;
    };
    EXPECT_EQ(w.embed, serial_normal("embed.weight", 600, 32));
    EXPECT_EQ(w.pos_embed, serial_normal("pos_embed.weight", 300, 32));
    // A table of several fill jobs (1000 × 128 = 2 jobs of 2¹⁶ elements).
    const ModelConfig wide = parse_playground_spec("random:d_model=128,heads=2,layers=1,vocab=1000,seed=4");
    EXPECT_EQ(init_weights(wide).embed, [&] {
        Matrix m(1000, 128);
        const std::uint64_t key = reference_tensor_key(wide.seed, "embed.weight");
        for (int r = 0; r < 1000; ++r)
            for (int j = 0; j < 128; ++j) fill_normal_counter(&m(r, j), 1, key, static_cast<std::uint64_t>(r) * 128 + j);
        return m;
    }());
}

TEST(Rng, CounterUniformPartsEqualTheWholeAndCoverTheRange) {
    const std::uint64_t key = 0x1234567890ABCDEFULL;
    std::vector<float> whole(100'003), parts(100'003);
    fill_uniform_counter(whole.data(), whole.size(), key, 0, 0.5f);
    // Any split (odd sizes, unaligned starts) gives the same values.
    for (std::size_t first = 0; first < parts.size(); first += 777)
        fill_uniform_counter(parts.data() + first, std::min<std::size_t>(777, parts.size() - first), key, first, 0.5f);
    EXPECT_EQ(whole, parts);
    // In [−0.5, 0.5): mean ≈ 0 and variance ≈ (2·0.5)²/12 = 1/12 (100 k samples: the
    // standard error of the mean is 0.0009).
    double sum = 0.0, sq = 0.0;
    for (float v : whole) {
        ASSERT_GE(v, -0.5f);
        ASSERT_LT(v, 0.5f);
        sum += v;
        sq += double(v) * v;
    }
    const double mean = sum / double(whole.size());
    EXPECT_NEAR(mean, 0.0, 0.004);
    EXPECT_NEAR(sq / double(whole.size()) - mean * mean, 1.0 / 12.0, 0.002);
    // Another key gives other values.
    std::vector<float> other(16);
    fill_uniform_counter(other.data(), other.size(), key + 1, 0, 0.5f);
    EXPECT_NE(std::vector<float>(whole.begin(), whole.begin() + 16), other);
}

TEST(Rng, CounterNormalsHaveStandardNormalMomentsAndTails) {
    const int n = 2000000;
    std::vector<float> x(n);
    fill_normal_counter(x.data(), x.size(), 2024, 0);
    double sum = 0, sum2 = 0, sum4 = 0;
    int beyond2 = 0, beyond35 = 0, negative = 0;
    for (float v : x) {
        sum += v;
        sum2 += double(v) * v;
        sum4 += double(v) * v * v * v;
        beyond2 += std::abs(v) > 2.0f;
        beyond35 += std::abs(v) > 3.5f;  // only the tail formula reaches here
        negative += v < 0.0f;
    }
    EXPECT_NEAR(sum / n, 0.0, 0.003);
    EXPECT_NEAR(sum2 / n, 1.0, 0.005);
    EXPECT_NEAR(sum4 / n, 3.0, 0.05);                  // kurtosis of N(0, 1)
    EXPECT_NEAR(double(beyond2) / n, 0.0455, 0.001);   // P(|Z| > 2) = 0.04550
    EXPECT_NEAR(double(beyond35) / n, 4.65e-4, 6e-5);  // P(|Z| > 3.5) = 4.653e-4
    EXPECT_NEAR(double(negative) / n, 0.5, 0.002);
    // Parts equal the whole.
    std::vector<float> part(1000);
    fill_normal_counter(part.data(), part.size(), 2024, 12345);
    for (int i = 0; i < 1000; ++i) ASSERT_EQ(part[i], x[12345 + i]);
}

TEST(Rng, CounterNormalsAreTheInverseNormalCdfOfTheirUniforms) {
    // Element i is Φ⁻¹(p_i), p_i = (b + ½)/2⁵², b the top 52 bits of SplitMix64 output
    // i + 1. Reference:
    // Newton's method on Φ(x) = ½·erfc(−x/√2) in long double, independent of the
    // rational approximation; checked over 200 000 draws (≈ 9 700 in the tails).
    const std::uint64_t key = 77;
    const int n = 200000;
    std::vector<float> x(n);
    fill_normal_counter(x.data(), x.size(), key, 0);
    std::uint64_t state = key;
    int tails = 0;
    for (int i = 0; i < n; ++i) {
        const long double p = (static_cast<long double>(reference_splitmix64(state) >> 12) + 0.5L) / 4503599627370496.0L;
        long double z = 0.0L;
        for (int it = 0; it < 60; ++it) {
            const long double cdf = 0.5L * std::erfc(-z / std::sqrt(2.0L));
            const long double pdf = std::exp(-0.5L * z * z) / std::sqrt(2.0L * 3.14159265358979323846L);
            const long double step = (cdf - p) / pdf;
            z -= step;
            if (std::abs(step) < 1e-15L) break;
        }
        tails += p < 0.02425L || p > 0.97575L;
        ASSERT_NEAR(x[i], static_cast<float>(z), 1e-6 * std::max(1.0L, std::abs(z))) << "draw " << i << ", p " << double(p);
    }
    EXPECT_GT(tails, 9000);
}

}  // namespace
}  // namespace hs
