// Layers, positional encodings, initialisation and the full model forward.
#include <gtest/gtest.h>

#include <cmath>

#include "core/model/config.h"
#include "core/error.h"
#include "core/model/layers.h"
#include "core/model/model.h"
#include "core/open_source.h"
#include "core/source.h"
#include "core/rng.h"

namespace hs {
namespace {

TEST(SinusoidalPositions, MatchTheFormula) {
    const int T = 50, D = 16;
    const Matrix pe = sinusoidal_positions(T, D);
    for (int p : {0, 1, 7, 49})
        for (int i = 0; i < D / 2; ++i) {
            const double angle = p / std::pow(10000.0, 2.0 * i / D);
            EXPECT_NEAR(pe(p, 2 * i), std::sin(angle), 1e-6) << p << "," << i;
            EXPECT_NEAR(pe(p, 2 * i + 1), std::cos(angle), 1e-6) << p << "," << i;
        }
    EXPECT_EQ(pe(0, 0), 0.0f);
    EXPECT_EQ(pe(0, 1), 1.0f);
}

TEST(LayerNorm, NormalisesEachRowThenScalesAndShifts) {
    Matrix x(1, 4);
    x << 1, 2, 3, 4;  // mean 2.5, biased var 1.25
    LayerNormWeights w{Vector::Constant(4, 2.0f), Vector::Constant(4, 1.0f)};
    const Matrix y = layer_norm(x, w, 0.0f);
    const double s = 1.0 / std::sqrt(1.25);
    EXPECT_NEAR(y(0, 0), 2 * (-1.5 * s) + 1, 1e-6);
    EXPECT_NEAR(y(0, 3), 2 * (1.5 * s) + 1, 1e-6);
}

TEST(Activation, GeluUsesErfAndReluClamps) {
    Matrix x(1, 3);
    x << -1.0f, 0.0f, 2.0f;
    const Matrix g = activate(x, Activation::GELU);
    EXPECT_NEAR(g(0, 0), -0.5 * (1 + std::erf(-1 / std::sqrt(2.0))), 1e-6);
    EXPECT_NEAR(g(0, 2), 2 * 0.5 * (1 + std::erf(2 / std::sqrt(2.0))), 1e-6);
    const Matrix r = activate(x, Activation::ReLU);
    EXPECT_EQ(r(0, 0), 0.0f);
    EXPECT_EQ(r(0, 2), 2.0f);
}

TEST(Rng, SameSeedSameStreamOnEveryPlatform) {
    // Values pinned from this implementation (SplitMix64 seeding + xoshiro256**); a change
    // here means saved playground models would change weights.
    Rng a(42), b(42), c(43);
    const std::uint64_t first = a.next_u64();
    EXPECT_EQ(first, 1546998764402558742ULL);
    EXPECT_FLOAT_EQ(a.normal(), -0.592781007f);
    EXPECT_EQ(first, b.next_u64());
    EXPECT_NE(first, c.next_u64());
    Rng u(7);
    double sum = 0, sum_sq = 0;
    const int n = 200000;
    for (int i = 0; i < n; ++i) {
        const double v = u.normal();
        sum += v;
        sum_sq += v * v;
    }
    EXPECT_NEAR(sum / n, 0.0, 0.01);
    EXPECT_NEAR(sum_sq / n, 1.0, 0.01);
    Rng w(7);
    for (int i = 0; i < 1000; ++i) {
        const float f = w.uniform01();
        EXPECT_GE(f, 0.0f);
        EXPECT_LT(f, 1.0f);
    }
}

TEST(InitWeights, FollowsPyTorchDefaultBoundsAndIsDeterministic) {
    ModelConfig c = parse_playground_spec("random:d_model=64,heads=4,layers=2,seed=5");
    const ModelWeights a = init_weights(c), b = init_weights(c);
    EXPECT_EQ(a.layers[1].ffn.linear1_weight, b.layers[1].ffn.linear1_weight);
    const float xavier = std::sqrt(6.0f / (64 + 3 * 64));
    EXPECT_LE(a.layers[0].self_attn.in_proj_weight.cwiseAbs().maxCoeff(), xavier);
    EXPECT_GT(a.layers[0].self_attn.in_proj_weight.cwiseAbs().maxCoeff(), 0.9f * xavier);
    EXPECT_EQ(a.layers[0].self_attn.in_proj_bias.cwiseAbs().maxCoeff(), 0.0f);
    EXPECT_LE(a.layers[0].ffn.linear1_weight.cwiseAbs().maxCoeff(), 1.0f / 8.0f);
    EXPECT_EQ(a.layers[0].norm1.weight, Vector::Ones(64));
    // Changing the head count changes no weight; adding a layer keeps the first ones.
    c.heads = 8;
    EXPECT_EQ(init_weights(c).layers[0].self_attn.in_proj_weight,
              a.layers[0].self_attn.in_proj_weight);
    c.layers = 3;
    EXPECT_EQ(init_weights(c).layers[1].ffn.linear2_weight, a.layers[1].ffn.linear2_weight);
    c.seed = 6;
    EXPECT_NE(init_weights(c).layers[0].ffn.linear1_weight, a.layers[0].ffn.linear1_weight);
}

// kv_heads changes which heads share K and V, and nothing else: W_Q is the same matrix,
// K/V head g is plain attention's K/V head g (I = 64, Dh = 16: 2 K/V heads are 32 rows of
// W_K at rows 64…95 and 32 of W_V at rows 128…159 of the plain (192, 64) in_proj). It
// used to scale the whole matrix by √(6/(D + I + 2·Ikv)), changing W_Q and every map.
TEST(InitWeights, KvHeadsChangeOnlyTheSharingNotWq) {
    const ModelConfig plain = parse_playground_spec("random:d_model=64,heads=4,layers=1,seed=5");
    ModelConfig grouped = plain;
    grouped.kv_heads = 2;
    const Matrix p = init_weights(plain).layers[0].self_attn.in_proj_weight;
    const Matrix g = init_weights(grouped).layers[0].self_attn.in_proj_weight;
    ASSERT_EQ(p.rows(), 192);
    ASSERT_EQ(g.rows(), 128);
    EXPECT_EQ(Matrix(g.topRows(64)), Matrix(p.topRows(64)));            // W_Q
    EXPECT_EQ(Matrix(g.middleRows(64, 32)), Matrix(p.middleRows(64, 32)));   // W_K, heads 0 and 1
    EXPECT_EQ(Matrix(g.middleRows(96, 32)), Matrix(p.middleRows(128, 32)));  // W_V, heads 0 and 1
}

TEST(ModelForward, TraceHasOneMapPerLayerAndHeadAndHiddenStates) {
    const Model m = Model::random(parse_playground_spec("random:d_model=32,heads=4,layers=3,seed=1"));
    ForwardInput in;
    in.ids = {5, 6, 7, 8, 9};
    const Trace t = m.forward(in);
    ASSERT_EQ(t.main.layers.size(), 3u);
    for (const LayerTrace& l : t.main.layers) {
        ASSERT_EQ(l.self_attn.weights.size(), 4u);
        EXPECT_EQ(l.self_attn.weights[0].rows(), 5);
        EXPECT_EQ(l.output.rows(), 5);
        EXPECT_EQ(l.output.cols(), 32);
    }
    EXPECT_EQ(t.main.tokens[0], "5");
    // input = embedding rows + sinusoidal PE
    const Matrix expected_row = m.weights().embed.row(7) + sinusoidal_positions(5, 32).row(2);
    EXPECT_LT((t.main.input.row(2) - expected_row).cwiseAbs().maxCoeff(), 1e-6f);
    EXPECT_FALSE(t.steps);
}

// on_main_layer sees the trace after each layer: that layer's maps and output are the
// whole trace's, the later layers still empty, the Pipeline's steps there once their layer ran.
TEST(ModelForward, EachLayerIsShownToOnMainLayerAsItIsDone) {
    const Model m = Model::random(parse_playground_spec("random:d_model=32,heads=4,layers=3,seed=1"));
    ForwardInput in;
    in.ids = {5, 6, 7, 8, 9};
    std::vector<Trace> seen;
    std::vector<int> done;
    TraceOptions opt;
    opt.detail_layer = 1;
    opt.on_main_layer = [&](const Trace& so_far, int layers) {
        seen.push_back(so_far);
        done.push_back(layers);
    };
    const Trace whole = m.forward(in, opt);
    EXPECT_EQ(done, (std::vector<int>{1, 2, 3}));
    ASSERT_EQ(seen.size(), 3u);
    for (int k = 0; k < 3; ++k) {
        const LayerTrace& now = seen[k].main.layers[k];
        ASSERT_EQ(now.self_attn.weights.size(), 4u);
        EXPECT_EQ(now.self_attn.weights[3], whole.main.layers[k].self_attn.weights[3]);
        EXPECT_EQ(now.output, whole.main.layers[k].output);
        if (k + 1 < 3) {
            EXPECT_TRUE(seen[k].main.layers[k + 1].self_attn.weights.empty());
        }
        EXPECT_EQ(seen[k].main.final_output.size(), 0);
        EXPECT_TRUE(seen[k].next_tokens.empty());
        EXPECT_EQ(seen[k].steps != nullptr, k >= 1) << "after layer " << k;
    }
    ASSERT_TRUE(whole.steps);
    EXPECT_EQ(whole.steps_layer, 1);
    EXPECT_EQ(seen[1].steps->qkv, whole.steps->qkv);
    EXPECT_EQ(seen[2].steps->weights[3], whole.steps->weights[3]);
}

TEST(ModelForward, DetailLayerCapturesStepsOfThatLayerOnly) {
    const Model m = Model::random(parse_playground_spec("random:d_model=16,heads=2,layers=2,arch=encoder-decoder"));
    ForwardInput in;
    in.ids = {1, 2, 3};
    in.decoder_ids = {4, 5};
    TraceOptions opt;
    opt.detail_layer = 1;
    opt.detail_in_decoder = true;
    opt.detail_cross = true;
    const Trace t = m.forward(in, opt);
    ASSERT_TRUE(t.steps);
    EXPECT_EQ(t.steps_layer, 1);
    EXPECT_TRUE(t.steps_cross);
    EXPECT_EQ(t.steps->weights[0].rows(), 2);  // decoder queries
    EXPECT_EQ(t.steps->weights[0].cols(), 3);  // encoder keys
    EXPECT_EQ(t.steps->weights[1], t.decoder->layers[1].cross_attn->weights[1]);
}

// window=2, window_layers=GL: layer 0 is global (query 5 weighs every earlier key), layer 1
// local (query 5 sees keys 4 and 5 only); the Pipeline's steps and the maps recomputed for
// the heatmap's scores take each layer's own mask.
TEST(ModelForward, LocalAndGlobalLayersEachAttendWithTheirOwnMask) {
    const Model m = Model::random(
        parse_playground_spec("random:arch=decoder,d_model=16,heads=2,layers=2,window=2,window_layers=GL"));
    ForwardInput in;
    in.ids = {1, 2, 3, 4, 5, 6};
    for (const int detail : {0, 1}) {
        TraceOptions opt;
        opt.detail_layer = detail;
        const Trace t = m.forward(in, opt);
        ASSERT_TRUE(t.steps);
        for (int h = 0; h < 2; ++h) {
            const Matrix& global = t.main.layers[0].self_attn.weights[h];
            const Matrix& local = t.main.layers[1].self_attn.weights[h];
            for (int j = 0; j < 4; ++j) {
                EXPECT_GT(global(5, j), 0.0f) << "head " << h << " key " << j;
                EXPECT_EQ(local(5, j), 0.0f) << "head " << h << " key " << j;
            }
            EXPECT_NEAR(local(5, 4) + local(5, 5), 1.0f, 1e-6f);
            EXPECT_EQ(std::isinf(t.steps->masked_scores[h](5, 0)), detail == 1);
            const HeadMaps again = recompute_layer_maps(m, t, HeadRef{1, h, false, false}, false);
            EXPECT_EQ(again.weights[h], local);
        }
    }
}

TEST(ModelForward, BadInputGivesSpecificErrors) {
    const Model m = Model::random(parse_playground_spec("random:d_model=8,heads=2,layers=1,vocab=10,max_len=4"));
    auto message = [&](ForwardInput in) -> std::string {
        try {
            m.forward(in);
        } catch (const Error& e) {
            return e.what();
        }
        return "no error";
    };
    EXPECT_EQ(message({}), "the text has no tokens");
    EXPECT_EQ(message(ForwardInput::of({1, 2, 3, 4, 5})), "the text has 5 tokens; this model handles at most 4");
    EXPECT_EQ(message(ForwardInput::of({1, 10})), "token id 10 is outside the vocabulary (0..9)");
    ForwardInput padded = ForwardInput::of({1, 2});
    padded.key_padding = {2};
    EXPECT_EQ(message(padded), "key padding position 2 is outside the 2 tokens");
    ForwardInput given = ForwardInput::of({1, 2});
    given.embeddings = Matrix::Zero(2, 7);
    EXPECT_EQ(message(given), "the given embeddings are 2×7, but the text has 2 tokens and d_model is 8");
}

TEST(ModelForward, ATooLongTextIsAnInputErrorWithItsCounts) {
    const Model m = Model::random(parse_playground_spec("random:d_model=8,heads=2,layers=1,vocab=10,max_len=4"));
    try {
        m.forward(ForwardInput::of({1, 2, 3, 4, 5, 6}));
        FAIL() << "expected an InputError";
    } catch (const InputError& e) {
        EXPECT_EQ(e.tokens, 6);
        EXPECT_EQ(e.max_len, 4);
    }
    EXPECT_THROW(m.forward(ForwardInput{}), InputError);
}

TEST(ModelForward, KeepFirstRunsTheFirstMaxLenTokensAndCountsTheRest) {
    const Model m = Model::random(parse_playground_spec("random:d_model=8,heads=2,layers=2,vocab=10,max_len=4,mask=causal"));
    ForwardInput in;
    in.ids = {1, 2, 3, 4, 5, 6, 7};
    in.tokens = {"a", "b", "c", "d", "e", "f", "g"};
    in.key_padding = {1, 5};
    in.keep_first = true;
    const Trace cut = m.forward(in);
    EXPECT_EQ(cut.dropped_tokens, 3);
    EXPECT_EQ(cut.main.tokens, (std::vector<std::string>{"a", "b", "c", "d"}));
    // The same as running the first four tokens (padding past them dropped).
    ForwardInput first;
    first.ids = {1, 2, 3, 4};
    first.tokens = {"a", "b", "c", "d"};
    first.key_padding = {1};
    const Trace ref = m.forward(first);
    EXPECT_EQ(ref.dropped_tokens, 0);
    for (int l = 0; l < 2; ++l)
        for (int h = 0; h < 2; ++h)
            EXPECT_TRUE(cut.main.layers[l].self_attn.weights[h].isApprox(ref.main.layers[l].self_attn.weights[h], 0.0f))
                << "L" << l << " H" << h;
    // A text that fits is untouched.
    in.ids = {1, 2};
    in.tokens = {"a", "b"};
    in.key_padding.clear();
    EXPECT_EQ(m.forward(in).dropped_tokens, 0);
}

TEST(ModelForward, KeepFirstCutsTheDecoderTextTooAndCountsIt) {
    const Model m = Model::random(
        parse_playground_spec("random:d_model=8,heads=2,layers=1,vocab=10,max_len=3,arch=encoder-decoder"));
    ForwardInput in;
    in.ids = {1, 2};
    in.decoder_ids = {3, 4, 5, 6, 7};
    in.decoder_tokens = {"c", "d", "e", "f", "g"};
    EXPECT_THROW(m.forward(in), InputError);  // 5 decoder tokens > max_len 3
    in.keep_first = true;
    const Trace cut = m.forward(in);
    EXPECT_EQ(cut.dropped_tokens, 0);
    EXPECT_EQ(cut.dropped_decoder_tokens, 2);
    ASSERT_TRUE(cut.decoder);
    EXPECT_EQ(cut.decoder->tokens, (std::vector<std::string>{"c", "d", "e"}));
}

TEST(ModelForward, StepsKnowWhetherTheBiasesAreZero) {
    // The Pipeline writes "+ b" only for a bias that is not all zeros. A new playground
    // model's attention biases start at zero, as in PyTorch's nn.MultiheadAttention; the
    // default model trained them away from it.
    TraceOptions options;
    options.detail_layer = 0;
    const Model fresh = Model::random(parse_playground_spec("random:d_model=8,heads=2,layers=1"));
    const Trace t = fresh.forward(ForwardInput::of({1, 2, 3}), options);
    ASSERT_TRUE(t.steps);
    EXPECT_FALSE(t.steps->q_bias || t.steps->k_bias || t.steps->v_bias);
    EXPECT_FALSE(t.steps->out_bias);
    EXPECT_FALSE(t.steps->out_identity);
    SourceInput in;
    in.text = "Alice helped John";
    const Trace trained = open_source("default")->run(in, options);
    ASSERT_TRUE(trained.steps);
    EXPECT_TRUE(trained.steps->q_bias && trained.steps->k_bias && trained.steps->v_bias);
    EXPECT_TRUE(trained.steps->out_bias);
}

TEST(ModelForward, ProgressCanCancel) {
    const Model m = Model::random(parse_playground_spec("random:d_model=8,heads=2,layers=4"));
    ForwardInput in;
    in.ids = {1, 2};
    int calls = 0;
    EXPECT_THROW(m.forward(in, {}, [&](int done, int total) {
        ++calls;
        EXPECT_EQ(total, 4);
        return done < 2;
    }), Cancelled);
    EXPECT_EQ(calls, 2);
}

TEST(ModelForward, ParameterCountMatchesTheFormula) {
    // per layer: 4D² + 4D (attention) + 2·D·F + F + D (FFN) + 4D (norms)
    const int D = 32, F = 128, V = 100, L = 2;
    const Model m = Model::random(parse_playground_spec(
        "random:d_model=32,heads=4,layers=2,d_ff=128,vocab=100"));
    const long long per_layer = 4LL * D * D + 4 * D + 2LL * D * F + F + D + 4 * D;
    EXPECT_EQ(m.parameter_count(), V * D + L * per_layer);
}

}  // namespace
}  // namespace hs

namespace hs {
namespace {

TEST(EnsureMapsFit, RefusesMoreThanEightGigabytesOfMapsAndNamesTheSizes) {
    // 12 layers × 12 heads × 2048² floats = 2.25 GiB: fits; 24 × 14 × 8192² floats = 84 GiB.
    EXPECT_NO_THROW(ensure_maps_fit(2048.0 * 2048, 2048, 12, 12, false));
    try {
        ensure_maps_fit(8192.0 * 8192, 8192, 24, 14, false);
        FAIL() << "expected hs::Error";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(),
                     "the attention maps of 8192 tokens need 84 GB (24 layers × 14 heads of "
                     "8192×8192 floats), more than the 8 GB limit; use a shorter text or fewer "
                     "layers or heads");
    }
    // Scores double the memory.
    EXPECT_NO_THROW(ensure_maps_fit(4096.0 * 4096, 4096, 8, 8, false));  // 4 GiB
    EXPECT_THROW(ensure_maps_fit(4096.0 * 4096, 4096, 16, 8, true), Error);  // 16 GiB
}

// 2 layers × 2 heads × 6² tokens = 144 score cells: kept at a limit of 144, dropped at 143
// (the weights stay either way).
TEST(ModelForward, ScoresAreCapturedOnlyWithinTheCellLimit) {
    const Model m = Model::random(parse_playground_spec("random:d_model=16,heads=2,layers=2,d_ff=16"));
    ForwardInput in;
    in.ids = {1, 2, 3, 4, 5, 6};
    TraceOptions opt;
    opt.scores = true;
    opt.scores_cell_limit = 144;
    const Trace kept = m.forward(in, opt);
    EXPECT_EQ(kept.main.layers[1].self_attn.scores.size(), 2u);
    opt.scores_cell_limit = 143;
    const Trace dropped = m.forward(in, opt);
    EXPECT_TRUE(dropped.main.layers[1].self_attn.scores.empty());
    EXPECT_EQ(dropped.main.layers[1].self_attn.weights.size(), 2u);
}

}  // namespace
}  // namespace hs
