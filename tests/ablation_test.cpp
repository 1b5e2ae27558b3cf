// Head ablation (issue 5): TraceOptions::ablate in the playground and pretrained paths,
// core/analysis/ablation (effects, KL, ranking) and `headscope ablate`.
// References are computed independently here: a layer's output by hand from bias-only
// attention, a head's contribution from its captured output and W_o, KL by a plain loop.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/analysis/ablation.h"
#include "core/model/attention.h"
#include "core/error.h"
#include "core/model/layers.h"
#include "core/model/model.h"
#include "core/pretrained_source.h"
#include "core/rng.h"
#include "core/open_source.h"
#include "core/source.h"
#include "tests/attention_run.h"
#include "tests/cli_runner.h"
#include "tests/test_util.h"

namespace hs {
namespace {

const std::string kAblationStories = std::string(HEADSCOPE_SHARED_DIR) + "/models/stories260K/stories260K.bin";
const std::string kText = "Once upon a time, there was a little girl named Lily";

// stories260K as a TraceSource, loaded once; a missing file FAILS the calling test.
const TraceSource& stories() {
    static const std::unique_ptr<TraceSource> source = [] {
        if (!std::filesystem::exists(kAblationStories))
            throw Error("stories260K is missing: expected " + kAblationStories);
        return open_source(kAblationStories);
    }();
    return *source;
}

SourceInput text_input(const std::string& text) {
    SourceInput in;
    in.text = text;
    return in;
}

double max_abs_diff(const Matrix& a, const Matrix& b) {
    EXPECT_EQ(a.rows(), b.rows());
    EXPECT_EQ(a.cols(), b.cols());
    if (a.rows() != b.rows() || a.cols() != b.cols()) return INFINITY;
    if (a.size() == 0) return 0.0;
    return (a - b).cwiseAbs().maxCoeff();
}

Matrix random_matrix(Rng& rng, int rows, int cols) {
    Matrix m(rows, cols);
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) m(i, j) = rng.uniform(-1.0f, 1.0f);
    return m;
}

// A playground model whose attention output biases are non-zero (they start at zero).
Model playground(const std::string& spec) {
    Model model = Model::random(parse_playground_spec(spec));
    Rng rng(99);
    auto set_bias = [&](AttentionWeights& a) {
        for (Eigen::Index i = 0; i < a.out_proj_bias.size(); ++i)
            a.out_proj_bias(i) = rng.uniform(-0.5f, 0.5f);
    };
    for (auto& l : model.mutable_weights().layers) set_bias(l.self_attn);
    for (auto& l : model.mutable_weights().decoder_layers) {
        set_bias(l.self_attn);
        set_bias(l.cross_attn);
    }
    return model;
}

ForwardInput ids_input(std::vector<int> ids) {
    ForwardInput in;
    in.ids = std::move(ids);
    return in;
}

std::vector<HeadRef> whole_layer(int layer, int heads) {
    std::vector<HeadRef> out;
    for (int h = 0; h < heads; ++h) out.push_back(HeadRef{layer, h, false, false});
    return out;
}

// ---------------------------------------------------------------------------------------
// Playground path

TEST(AblationPlayground, EveryHeadOfALayerLeavesOnlyTheOutputBias) {
    for (const std::string norm : {"pre-ln", "post-ln"}) {
        SCOPED_TRACE("norm=" + norm);
        const Model model = playground("random:d_model=16,heads=4,layers=2,d_ff=32,vocab=50,seed=5,"
                                       "act=gelu,norm=" + norm);
        const ModelConfig& c = model.config();
        const std::vector<int> ids{3, 14, 15, 9, 2, 6};
        TraceOptions opt;
        opt.ablate = whole_layer(0, c.heads);
        const Trace t = model.forward(ids_input(ids), opt);

        // By hand: attention output of layer 0 is b_o in every row.
        const EncoderLayerWeights& w = model.weights().layers[0];
        const Matrix x = embed_tokens(model, ids);
        Matrix attn(x.rows(), x.cols());
        attn.rowwise() = w.self_attn.out_proj_bias.transpose();
        Matrix expected;
        if (norm == "pre-ln") {  // x + SA = x + b_o; + FF(norm2(·))
            const Matrix h = x + attn;
            expected = h + feed_forward(layer_norm(h, w.norm2, c.norm_eps), w.ffn, c.activation);
        } else {  // norm1(x + b_o); norm2(h + FF(h))
            const Matrix h = layer_norm(x + attn, w.norm1, c.norm_eps);
            expected = layer_norm(h + feed_forward(h, w.ffn, c.activation), w.norm2, c.norm_eps);
        }
        EXPECT_LT(max_abs_diff(t.main.layers[0].output, expected), 1e-5);
        // The maps themselves are still computed (ablation acts after A_h V_h).
        const Trace plain = model.forward(ids_input(ids));
        for (int h = 0; h < c.heads; ++h)
            EXPECT_EQ(max_abs_diff(t.main.layers[0].self_attn.weights[h],
                                   plain.main.layers[0].self_attn.weights[h]), 0.0);
        EXPECT_GT(max_abs_diff(t.main.layers[0].output, plain.main.layers[0].output), 1e-3);
    }
}

TEST(AblationPlayground, AttentionWithAllHeadsAblatedOutputsTheBiasExactly) {
    const Model model = playground("random:d_model=12,heads=3,layers=1,seed=8");
    const AttentionWeights& w = model.weights().layers[0].self_attn;
    Rng rng(4);
    const Matrix x = random_matrix(rng, 5, 12);
    const AttentionRun r =
        run_attention(w, x, x, {.ablated = {0, 1, 2}});
    for (Eigen::Index i = 0; i < r.output.rows(); ++i)
        EXPECT_EQ(max_abs_diff(r.output.row(i), w.out_proj_bias.transpose()), 0.0) << "row " << i;
}

TEST(AblationPlayground, ZeroingOneHeadRemovesExactlyItsContribution) {
    // out − out' = head_h · W_o[:, block h]ᵀ, with head_h from the plain pass's steps.
    const Model model = playground("random:d_model=16,heads=4,layers=1,seed=2,mask=causal");
    const AttentionWeights& w = model.weights().layers[0].self_attn;
    Rng rng(6);
    const Matrix x = random_matrix(rng, 7, 16);
    AttentionMask mask;
    mask.causal = true;
    AttentionSteps steps;
    const AttentionRun plain = run_attention(w, x, x, {.mask = mask}, &steps);
    const int Dh = w.d_h();
    for (int h = 0; h < 4; ++h) {
        SCOPED_TRACE("head " + std::to_string(h));
        const AttentionRun abl =
        run_attention(w, x, x, {.mask = mask, .ablated = {h}});
        const Matrix contribution =
            steps.head_outputs[h] * w.out_proj_weight.middleCols(h * Dh, Dh).transpose();
        EXPECT_LT(max_abs_diff(plain.output - abl.output, contribution), 1e-5);
    }
}

TEST(AblationPlayground, MeanModeReplacesEveryRowByTheColumnMean) {
    // concat: (3, 4), H = 2 heads of Dh = 2; head 1 = columns 2..3.
    Matrix concat(3, 4);
    concat << 1, 2, 3, 4,
              5, 6, 7, 8,
              9, 10, 20, 0;
    Matrix mean = concat;
    ablate_heads(mean, {1}, 2, AblationMode::Mean);
    Matrix expected(3, 4);
    expected << 1, 2, 10, 4,
                5, 6, 10, 4,
                9, 10, 10, 4;
    EXPECT_EQ(max_abs_diff(mean, expected), 0.0);
    Matrix zero = concat;
    ablate_heads(zero, {0}, 2, AblationMode::Zero);
    expected << 0, 0, 3, 4,
                0, 0, 7, 8,
                0, 0, 20, 0;
    EXPECT_EQ(max_abs_diff(zero, expected), 0.0);
    test::expect_error([&] { ablate_heads(zero, {2}, 2, AblationMode::Zero); },
                       {"cannot ablate head 2", "heads 0..1"});
}

TEST(AblationPlayground, NoHeadAblatedEqualsThePlainForwardPassExactly) {
    for (const std::string spec :
         {"random:d_model=16,heads=4,layers=3,seed=1,arch=decoder",
          "random:d_model=16,heads=2,layers=2,seed=3,arch=encoder-decoder,norm=pre-ln"}) {
        SCOPED_TRACE(spec);
        const Model model = playground(spec);
        ForwardInput in = ids_input({4, 8, 15, 16, 23});
        in.decoder_ids = {1, 2, 3};
        const Trace plain = model.forward(in);
        TraceOptions opt;
        opt.ablate_mode = AblationMode::Mean;  // mode alone must not change anything
        const Trace same = model.forward(in, opt);
        for (int l = 0; l < plain.n_layers(); ++l) {
            EXPECT_EQ(max_abs_diff(plain.main.layers[l].output, same.main.layers[l].output), 0.0);
            if (plain.decoder) {
                EXPECT_EQ(max_abs_diff(plain.decoder->layers[l].output,
                                       same.decoder->layers[l].output), 0.0);
            }
        }
        EXPECT_EQ(max_abs_diff(plain.main.final_output, same.main.final_output), 0.0);
    }
}

TEST(AblationPlayground, MeanModeOnASinglePositionChangesNothing) {
    const Model model = playground("random:d_model=16,heads=4,layers=2,seed=9,arch=decoder");
    const Trace plain = model.forward(ids_input({7}));
    TraceOptions opt;
    opt.ablate = whole_layer(0, 4);
    opt.ablate.push_back(HeadRef{1, 2, false, false});
    opt.ablate_mode = AblationMode::Mean;
    const Trace mean = model.forward(ids_input({7}), opt);
    for (int l = 0; l < 2; ++l)
        EXPECT_EQ(max_abs_diff(plain.main.layers[l].output, mean.main.layers[l].output), 0.0);
    // Two positions: the mean differs from each row, so the output changes.
    const Trace plain2 = model.forward(ids_input({7, 11}));
    const Trace mean2 = model.forward(ids_input({7, 11}), opt);
    EXPECT_GT(max_abs_diff(plain2.main.layers[0].output, mean2.main.layers[0].output), 1e-4);
}

TEST(AblationPlayground, DecoderAndCrossHeadsAreAblatedInTheirOwnBlock) {
    const Model model =
        playground("random:d_model=16,heads=2,layers=2,seed=3,arch=encoder-decoder");
    ForwardInput in = ids_input({4, 8, 15});
    in.decoder_ids = {1, 2, 3, 5};
    const Trace plain = model.forward(in);
    TraceOptions opt;
    opt.ablate = {HeadRef{1, 0, true, true}};  // decoder layer 1, cross-attention head 0
    const Trace t = model.forward(in, opt);
    // Encoder and decoder layer 0 untouched; decoder layer 1 changes.
    for (int l = 0; l < 2; ++l)
        EXPECT_EQ(max_abs_diff(plain.main.layers[l].output, t.main.layers[l].output), 0.0);
    EXPECT_EQ(max_abs_diff(plain.decoder->layers[0].output, t.decoder->layers[0].output), 0.0);
    EXPECT_GT(max_abs_diff(plain.decoder->layers[1].output, t.decoder->layers[1].output), 1e-4);
}

TEST(AblationPlayground, OutOfRangeHeadsAreRefusedWithTheValidRange) {
    const Model model = playground("random:d_model=16,heads=4,layers=2,seed=1,arch=decoder");
    TraceOptions opt;
    opt.ablate = {HeadRef{2, 0, false, false}};
    test::expect_error([&] { model.forward(ids_input({1, 2}), opt); },
                       {"cannot ablate head 2.0", "layers 0..1", "heads 0..3"});
    opt.ablate = {HeadRef{0, 4, false, false}};
    test::expect_error([&] { model.forward(ids_input({1, 2}), opt); },
                       {"cannot ablate head 0.4", "heads 0..3"});
    opt.ablate = {HeadRef{0, 1, true, false}};
    test::expect_error([&] { model.forward(ids_input({1, 2}), opt); },
                       {"head 0.1 of the decoder", "single stack"});
}

// ---------------------------------------------------------------------------------------
// analysis/ablation on playground models

TEST(AblationEffect, NoHeadsGivesZeroChangeEverywhere) {
    const auto source = open_source("random:d_model=16,heads=4,layers=3,seed=1,arch=decoder");
    const AblationEffect e = ablate(*source, text_input("the cat sat on the mat"), {});
    ASSERT_EQ(e.hidden_change.size(), 3u);
    ASSERT_EQ(e.map_change.size(), 3u);
    for (int l = 0; l < 3; ++l) {
        EXPECT_EQ(e.hidden_change[l], 0.0);
        ASSERT_EQ(e.map_change[l].size(), 4u);
        for (double d : e.map_change[l]) EXPECT_EQ(d, 0.0);
    }
    EXPECT_FALSE(e.has_next_token);  // playground decoders have no LM head
}

TEST(AblationEffect, ChangesStartAtTheAblatedLayer) {
    const auto source = open_source("random:d_model=16,heads=4,layers=3,seed=1,arch=decoder");
    const SourceInput in = text_input("the cat sat on the mat");
    const AblationEffect e = ablate(*source, in, {HeadRef{1, 2, false, false}});
    EXPECT_EQ(e.hidden_change[0], 0.0);
    EXPECT_GT(e.hidden_change[1], 1e-4);
    EXPECT_GT(e.hidden_change[2], 1e-4);
    for (double d : e.map_change[0]) EXPECT_EQ(d, 0.0);
    for (double d : e.map_change[1]) EXPECT_EQ(d, 0.0);  // layer 1's maps precede its W_o
    EXPECT_GT(*std::max_element(e.map_change[2].begin(), e.map_change[2].end()), 0.0);
    EXPECT_EQ(e.last_layer_change, e.hidden_change[2]);

    // Independent reference for layer 2: ‖h' − h‖_F / ‖h‖_F and mean |ΔA| from the traces.
    TraceOptions opt;
    const Trace base = source->run(in, opt);
    opt.ablate = {HeadRef{1, 2, false, false}};
    const Trace abl = source->run(in, opt);
    const Matrix& h = base.main.layers[2].output;
    const Matrix& h2 = abl.main.layers[2].output;
    double num = 0, den = 0;
    for (Eigen::Index i = 0; i < h.size(); ++i) {
        num += std::pow(double(h2.data()[i]) - h.data()[i], 2);
        den += std::pow(double(h.data()[i]), 2);
    }
    EXPECT_NEAR(e.hidden_change[2], std::sqrt(num / den), 1e-9);
    const Matrix& a = base.main.layers[2].self_attn.weights[3];
    const Matrix& a2 = abl.main.layers[2].self_attn.weights[3];
    double sum = 0;
    for (Eigen::Index i = 0; i < a.size(); ++i) sum += std::abs(double(a2.data()[i]) - a.data()[i]);
    EXPECT_NEAR(e.map_change[2][3], sum / a.size(), 1e-12);
}

TEST(AblationEffect, RankHeadsOnAnEncoderSortsByLastLayerChange) {
    const auto source = open_source("random:d_model=16,heads=4,layers=2,seed=4");
    const SourceInput in = text_input("a b c d e");
    std::vector<int> progress;
    const HeadRanking r = rank_heads(*source, in, AblationMode::Zero, [&](int done, int total) {
        EXPECT_EQ(total, 8);
        progress.push_back(done);
        return true;
    });
    EXPECT_EQ(r.measure, "last_layer_change");
    ASSERT_EQ(r.heads.size(), 8u);
    EXPECT_EQ(progress, (std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8}));
    for (std::size_t i = 1; i < r.heads.size(); ++i)
        EXPECT_GE(r.heads[i - 1].effect, r.heads[i].effect);
    // Each entry is what ablate() reports for that head alone.
    const RankedHead& top = r.heads.front();
    EXPECT_DOUBLE_EQ(top.effect, ablate(*source, in, {top.head}).last_layer_change);
    EXPECT_GT(top.effect, 0.0);
}

TEST(AblationEffect, RankHeadsStopsWhenProgressSaysSo) {
    const auto source = open_source("random:d_model=16,heads=4,layers=2,seed=4");
    int calls = 0;
    EXPECT_THROW(rank_heads(*source, text_input("a b c"), AblationMode::Zero,
                            [&](int, int) { return ++calls < 3; }),
                 Cancelled);
    EXPECT_EQ(calls, 3);
}

TEST(AblationEffect, WorkedExamplesAreRefused) {
    const auto source = open_source(std::string(HEADSCOPE_ASSETS_DIR) +
                                    "/examples/article_two_heads.json");
    test::expect_error([&] { ablate(*source, SourceInput{}, {HeadRef{0, 0, false, false}}); },
                       {"cannot ablate heads of", "worked example", "ignores ablation"});
}

TEST(AblationEffect, ParsesHeadsAndModes) {
    EXPECT_EQ(parse_head_ref("0.3"), (HeadRef{0, 3, false, false}));
    EXPECT_EQ(parse_head_ref("dec:1.2"), (HeadRef{1, 2, true, false}));
    EXPECT_EQ(parse_head_ref("cross:4.0"), (HeadRef{4, 0, true, true}));
    EXPECT_EQ(to_string(HeadRef{1, 2, true, true}), "cross:1.2");
    // As the Heads table and analyze name them.
    EXPECT_EQ(parse_head_ref("L3.H0"), (HeadRef{3, 0, false, false}));
    EXPECT_EQ(parse_head_ref("dec:L1.H12"), (HeadRef{1, 12, true, false}));
    for (const std::string bad : {"3", "a.b", "1.", ".2", "1.-2", "1.2.3", "", "L3", "L.H1", "L3.H", "L3.0", "3.H0"})
        test::expect_error([&] { parse_head_ref(bad); }, {"'" + bad + "' is not a head"});
    EXPECT_EQ(parse_ablation_mode("mean"), AblationMode::Mean);
    test::expect_error([&] { parse_ablation_mode("half"); }, {"'half'", "zero, mean"});
}

// ---------------------------------------------------------------------------------------
// Pretrained path (stories260K: grouped-query attention, RoPE, RMSNorm)

// KL(p ‖ q) of softmax(a), softmax(b) by a plain double loop.
double reference_kl(const Vector& a, const Vector& b) {
    auto probs = [](const Vector& z) {
        double m = -INFINITY, s = 0;
        for (Eigen::Index i = 0; i < z.size(); ++i) m = std::max(m, double(z(i)));
        std::vector<double> p(z.size());
        for (Eigen::Index i = 0; i < z.size(); ++i) s += p[i] = std::exp(double(z(i)) - m);
        for (double& v : p) v /= s;
        return p;
    };
    const auto p = probs(a), q = probs(b);
    double kl = 0;
    for (std::size_t i = 0; i < p.size(); ++i) kl += p[i] * std::log(p[i] / q[i]);
    return kl;
}

TEST(AblationStories260K, AblatingAHeadChangesTheNextTokenDistribution) {
    const TraceSource& src = stories();
    const SourceInput in = text_input(kText);
    const AblationEffect e = ablate(src, in, {HeadRef{0, 1, false, false}});
    ASSERT_TRUE(e.has_next_token);
    EXPECT_GT(e.kl, 1e-6);
    TraceOptions opt;
    const Trace base = src.run(in, opt);
    opt.ablate = {HeadRef{0, 1, false, false}};
    const Trace abl = src.run(in, opt);
    ASSERT_EQ(base.next_token_logits.size(), 512);
    EXPECT_NEAR(e.kl, reference_kl(base.next_token_logits, abl.next_token_logits), 1e-9);
    // Top-k table: sorted by p_base, first row is the model's top prediction, texts filled.
    ASSERT_GE(e.top_tokens.size(), 5u);
    EXPECT_EQ(e.top_tokens[0].id, base.next_tokens[0].id);
    EXPECT_NEAR(e.top_tokens[0].p_base, base.next_tokens[0].prob, 1e-6);
    EXPECT_EQ(e.top_tokens[0].text, base.next_tokens[0].text);
    for (std::size_t i = 1; i < e.top_tokens.size(); ++i)
        EXPECT_GE(e.top_tokens[i - 1].p_base, e.top_tokens[i].p_base);
    for (const TokenChange& t : e.top_tokens) {
        if (t.id == abl.next_tokens[0].id) {
            EXPECT_NEAR(t.p_ablated, abl.next_tokens[0].prob, 1e-6);
        }
    }
}

TEST(AblationStories260K, AblatingNothingHasZeroKL) {
    const AblationEffect e = ablate(stories(), text_input(kText), {});
    ASSERT_TRUE(e.has_next_token);
    EXPECT_EQ(e.kl, 0.0);
    for (double d : e.hidden_change) EXPECT_EQ(d, 0.0);
    for (const TokenChange& t : e.top_tokens) EXPECT_EQ(t.p_base, t.p_ablated);
    EXPECT_EQ(e.top_tokens.size(), 5u);  // the same top 5 before and after
}

TEST(AblationStories260K, RankHeadsReturnsEveryHeadSortedByKL) {
    const TraceSource& src = stories();
    const int L = src.config().layers, H = src.config().heads;
    const SourceInput in = text_input("Lily went to the park");
    const HeadRanking r = rank_heads(src, in);
    EXPECT_EQ(r.measure, "kl");
    ASSERT_EQ(static_cast<int>(r.heads.size()), L * H);
    std::set<std::pair<int, int>> seen;
    for (const RankedHead& h : r.heads) seen.insert({h.head.layer, h.head.head});
    EXPECT_EQ(static_cast<int>(seen.size()), L * H);
    for (std::size_t i = 1; i < r.heads.size(); ++i)
        EXPECT_GE(r.heads[i - 1].effect, r.heads[i].effect);
    EXPECT_GT(r.heads.front().effect, 0.0);
    EXPECT_DOUBLE_EQ(r.heads.front().effect, ablate(src, in, {r.heads.front().head}).kl);
}

TEST(AblationStories260K, OneQueryHeadLeavesTheOtherHeadsOfItsLayerUnchanged) {
    const TraceSource& src = stories();
    const ModelConfig& c = src.config();
    ASSERT_LT(c.kv_head_count(), c.heads) << "stories260K should share key/value heads";
    const SourceInput in = text_input(kText);
    TraceOptions opt;
    opt.detail_layer = 2;
    const Trace base = src.run(in, opt);
    opt.ablate = {HeadRef{2, 3, false, false}};  // shares its KV head with query head 2
    const Trace abl = src.run(in, opt);
    // Every head's weights of layer 2 (and earlier) are unchanged; layer 3 changes.
    for (int l = 0; l <= 2; ++l)
        for (int h = 0; h < c.heads; ++h)
            EXPECT_EQ(max_abs_diff(base.main.layers[l].self_attn.weights[h],
                                   abl.main.layers[l].self_attn.weights[h]), 0.0)
                << "layer " << l << " head " << h;
    double later = 0;
    for (int h = 0; h < c.heads; ++h)
        later = std::max(later, max_abs_diff(base.main.layers[3].self_attn.weights[h],
                                             abl.main.layers[3].self_attn.weights[h]));
    EXPECT_GT(later, 1e-6);
    // concat: only head 3's block is zeroed; the other blocks are the plain outputs.
    ASSERT_TRUE(base.steps && abl.steps);
    const int Dh = c.d_h();
    for (int h = 0; h < c.heads; ++h) {
        const Matrix b = base.steps->concat.middleCols(h * Dh, Dh);
        const Matrix a = abl.steps->concat.middleCols(h * Dh, Dh);
        if (h == 3)
            EXPECT_EQ(a.cwiseAbs().maxCoeff(), 0.0);
        else
            EXPECT_EQ(max_abs_diff(a, b), 0.0) << "head " << h;
    }
}

TEST(AblationStories260K, GqaAttentionAblatesOnlyTheNamedQueryHead) {
    Rng rng(12);
    const int T = 5, D = 6, H = 4, Hkv = 2, Dh = 3;
    AttentionWeights w;  // in_proj: (H·Dh + 2·Hkv·Dh, D), no biases
    w.heads = H;
    w.kv_heads = Hkv;
    w.in_proj_weight = random_matrix(rng, H * Dh + 2 * Hkv * Dh, D);
    w.out_proj_weight = random_matrix(rng, D, H * Dh);
    const Matrix x = random_matrix(rng, T, D);
    AttentionMask causal;
    causal.causal = true;
    AttentionSteps plain, mean;
    const AttentionRun r_plain = run_attention(w, x, x,
        {.mask = causal}, &plain);
    const AttentionRun r_mean =
        run_attention(w, x, x,
            {.mask = causal, .ablated = {1}, .ablate_mode = AblationMode::Mean}, &mean);
    for (int h = 0; h < H; ++h) {
        EXPECT_EQ(max_abs_diff(r_plain.weights[h], r_mean.weights[h]), 0.0);
        const Matrix b = plain.concat.middleCols(h * Dh, Dh);
        const Matrix a = mean.concat.middleCols(h * Dh, Dh);
        if (h != 1) {
            EXPECT_EQ(max_abs_diff(a, b), 0.0);
            continue;
        }
        for (int t = 0; t < T; ++t)
            EXPECT_LT(max_abs_diff(a.row(t), b.colwise().mean()), 1e-6) << "row " << t;
    }
}

TEST(AblationStories260K, OutOfRangeAndDecoderHeadsAreRefused) {
    const TraceSource& src = stories();
    TraceOptions opt;
    opt.ablate = {HeadRef{0, src.config().heads, false, false}};
    test::expect_error([&] { src.run(text_input("Lily"), opt); },
                       {"cannot ablate head 0." + std::to_string(src.config().heads), "heads 0.."});
    opt.ablate = {HeadRef{0, 0, true, true}};
    test::expect_error([&] { src.run(text_input("Lily"), opt); },
                       {"cross-attention", "single stack"});
}

// ---------------------------------------------------------------------------------------
// CLI

TEST(AblateCommand, WritesTheEffectAndRankingAsJson) {
    ASSERT_TRUE(std::filesystem::exists(kAblationStories)) << "stories260K is missing: " << kAblationStories;
    const test::TempDir dir;
    const std::string json = dir.file("ablate.json");
    const nlohmann::json j = cli_test::run_for_json(
        {"ablate", kAblationStories, "--text", "Lily went", "--head", "0.1", "--head=1.2,1.3", "--mode",
         "mean", "--rank", "--json", json},
        dir, json);
    ASSERT_TRUE(j.contains("ablation"));
    EXPECT_EQ(j["ablation"]["mode"], "mean");
    EXPECT_EQ(j["ablation"]["heads"], (nlohmann::json{"0.1", "1.2", "1.3"}));
    EXPECT_GT(j["ablation"]["kl"].get<double>(), 0.0);
    EXPECT_EQ(j["ablation"]["hidden_change"].size(), 5u);
    EXPECT_GT(j["ablation"]["hidden_change"][0].get<double>(), 0.0);  // 0.1 is in layer 0
    for (const auto& d : j["ablation"]["map_change"][0]) EXPECT_EQ(d.get<double>(), 0.0);
    EXPECT_GT(j["ablation"]["map_change"][1].size(), 0u);
    EXPECT_EQ(j["ranking"]["measure"], "kl");
    EXPECT_EQ(j["ranking"]["heads"].size(), 40u);
    // The same mean-mode ablation in-process gives the same KL.
    const AblationEffect e =
        ablate(stories(), text_input("Lily went"),
               {HeadRef{0, 1, false, false}, HeadRef{1, 2, false, false}, HeadRef{1, 3, false, false}},
               AblationMode::Mean);
    EXPECT_NEAR(j["ablation"]["kl"].get<double>(), e.kl, 1e-12);
}

TEST(AblateCommand, PrintsTheTableAndRejectsBadHeads) {
    const test::TempDir dir;
    const auto ok = cli_test::run_headscope(
        {"ablate", "random:d_model=16,heads=4,layers=2,seed=1", "--text", "a b c", "--head", "1.0"},
        dir);
    EXPECT_EQ(ok.status, 0) << ok.err;
    test::expect_contains(ok.out, {"ablated heads (zero): 1.0", "main stack", "hidden-state"});
    const auto bad = cli_test::run_headscope(
        {"ablate", "random:d_model=16,heads=4,layers=2,seed=1", "--text", "a", "--head", "2.0"},
        dir);
    EXPECT_EQ(bad.status, 1);
    test::expect_contains(bad.err, {"headscope ablate: cannot ablate head 2.0", "layers 0..1"});
    const auto syntax = cli_test::run_headscope(
        {"ablate", "random:d_model=16,heads=4,layers=2,seed=1", "--text", "a", "--head", "x"}, dir);
    EXPECT_EQ(syntax.status, 2);
    test::expect_contains(syntax.err, {"--head 'x' is not a head"});
    const auto none = cli_test::run_headscope(
        {"ablate", "random:d_model=16,heads=4,layers=2,seed=1", "--text", "a"}, dir);
    EXPECT_EQ(none.status, 2);
    test::expect_contains(none.err, {"--head LAYER.HEAD", "--rank"});
}

}  // namespace
}  // namespace hs
