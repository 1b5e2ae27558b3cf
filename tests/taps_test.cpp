// Named intermediates of a forward (core/model/taps.h): every name a model lists is tapped
// exactly once, and the tapped values are what the math says, checked against each other
// and against products written out here with Eigen in double.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/kernels/parallel.h"
#include "core/kernels/attend.h"
#include "core/model/config.h"
#include "core/model/model.h"
#include "core/model/recorder.h"
#include "core/model/taps.h"
#include "tests/cli_runner.h"

namespace hs {
namespace {

using Md = Eigen::MatrixXd;

Md d(const Eigen::Ref<const Matrix>& m) { return m.cast<double>(); }

// y = x·Wᵀ + b in double.
Md linear(const Md& x, const Matrix& w, const Vector& b) {
    Md y = x * d(w).transpose();
    if (b.size()) y.rowwise() += b.cast<double>().transpose();
    return y;
}

// LayerNorm over each row, eps as PyTorch's default for the playground (1e-5).
Md layer_norm(const Md& x, const LayerNormWeights& n, double eps) {
    Md y(x.rows(), x.cols());
    for (Eigen::Index r = 0; r < x.rows(); ++r) {
        const double mean = x.row(r).mean();
        const double var = (x.row(r).array() - mean).square().mean();
        for (Eigen::Index c = 0; c < x.cols(); ++c)
            y(r, c) = (x(r, c) - mean) / std::sqrt(var + eps) * n.weight(c) + n.bias(c);
    }
    return y;
}

ForwardInput input_of(int n, int first = 1) {
    ForwardInput in;
    for (int i = 0; i < n; ++i) in.ids.push_back(first + i);
    return in;
}

// Every name the forward recorded, in order.
struct NameRecorder final : Recorder {
    std::vector<std::string> names;
    void record(const TapPoint& point, const Eigen::Ref<const Matrix>&) override { names.push_back(point.full_name()); }
};
std::vector<std::string> tapped_names(const Model& m, const ForwardInput& in) {
    NameRecorder recorder;
    TraceOptions opt;
    opt.recorder = &recorder;
    (void)m.forward(in, opt);
    return recorder.names;
}

// (A C string, not a std::string: a reference returned from a call with a temporary
// string argument reads to g++ 14 as possibly dangling.)
const Matrix& tap(const Trace& t, const char* name) {
    for (const Trace::Tapped& v : t.taps)
        if (v.name == name) return v.value;
    throw Error(std::string("no tap ") + name);
}

TEST(Taps, EveryListedNameIsTappedOnceInOrderForEveryArchitecture) {
    for (const char* spec :
         {"random:d_model=32,heads=4,layers=2,seed=1",  // post-LN encoder
          "random:arch=decoder,d_model=32,heads=4,kv_heads=2,layers=2,pe=rope,norm=rmsnorm,"
          "act=swiglu,bias=0,lm_head=tied,vocab=50,seed=2",
          "random:arch=encoder-decoder,d_model=32,heads=2,layers=2,norm=pre-ln,lm_head=separate,vocab=50,seed=3",
          "random:arch=encoder-decoder,d_model=32,heads=2,layers=1,seed=4",
          // d_model 256, 4 heads: Dh 64 runs the fused per-head path (with 2 threads)
          "random:arch=decoder,d_model=256,heads=4,layers=1,norm=pre-ln,seed=5"}) {
        SCOPED_TRACE(spec);
        const Model m = Model::random(parse_playground_spec(spec));
        ForwardInput in = input_of(20);
        if (m.config().arch == Arch::EncoderDecoder) in.decoder_ids = {3, 4, 5};
        EXPECT_EQ(tapped_names(m, in), tap_names(m.config()));
    }
}

TEST(Taps, ValuesOfAPreNormLayerFollowFromEachOtherAndTheWeights) {
    const Model m = Model::random(parse_playground_spec(
        "random:arch=decoder,d_model=32,heads=4,layers=2,d_ff=48,norm=pre-ln,pe=learned,"
        "lm_head=tied,vocab=40,seed=11"));
    const ModelWeights& w = m.weights();
    TraceOptions opt;
    opt.taps = {"embed", "layers.1.*", "norm", "logits"};
    const Trace t = m.forward(input_of(7, 3), opt);
    const double eps = m.config().norm_eps;
    const EncoderLayerWeights& l1 = w.layers[1];
    // embed is the input to layer 0; layers.1 reads layer 0's output.
    EXPECT_EQ(tap(t, "embed"), t.main.input);
    const Md x = d(t.main.layers[0].output);
    // attn_in = norm1(x); Q = attn_in · W_Qᵀ + b_Q (the first I rows of W_in)
    const Md attn_in = layer_norm(x, l1.norm1, eps);
    EXPECT_LT((d(tap(t, "layers.1.attn_in")) - attn_in).cwiseAbs().maxCoeff(), 1e-5);
    const int I = 32;
    const Md q = linear(attn_in, Matrix(l1.self_attn.in_proj_weight.topRows(I)),
                        Vector(l1.self_attn.in_proj_bias.head(I)));
    EXPECT_LT((d(tap(t, "layers.1.attn.q")) - q).cwiseAbs().maxCoeff(), 1e-4);
    const Md v = linear(attn_in, Matrix(l1.self_attn.in_proj_weight.bottomRows(I)),
                        Vector(l1.self_attn.in_proj_bias.tail(I)));
    EXPECT_LT((d(tap(t, "layers.1.attn.v")) - v).cwiseAbs().maxCoeff(), 1e-4);
    // head 2 of concat = A_2 · V_2 with the layer's own map
    const Md head2 = d(t.main.layers[1].self_attn.weights[2]) * v.middleCols(2 * 8, 8);
    EXPECT_LT((d(tap(t, "layers.1.attn.concat")).middleCols(16, 8) - head2).cwiseAbs().maxCoeff(), 1e-5);
    // attn_out = concat · W_oᵀ + b_o; ffn_in = norm2(x + attn_out)
    const Md attn_out = linear(d(tap(t, "layers.1.attn.concat")), l1.self_attn.out_proj_weight,
                               l1.self_attn.out_proj_bias);
    EXPECT_LT((d(tap(t, "layers.1.attn_out")) - attn_out).cwiseAbs().maxCoeff(), 1e-5);
    const Md h = x + attn_out;
    EXPECT_LT((d(tap(t, "layers.1.ffn_in")) - layer_norm(h, l1.norm2, eps)).cwiseAbs().maxCoeff(), 1e-4);
    // ffn_hidden = relu(ffn_in · W1ᵀ + b1); ffn_out = hidden · W2ᵀ + b2
    const Md hidden = linear(d(tap(t, "layers.1.ffn_in")), l1.ffn.linear1_weight, l1.ffn.linear1_bias).cwiseMax(0.0);
    EXPECT_LT((d(tap(t, "layers.1.ffn_hidden")) - hidden).cwiseAbs().maxCoeff(), 1e-5);
    const Md ffn_out = linear(d(tap(t, "layers.1.ffn_hidden")), l1.ffn.linear2_weight, l1.ffn.linear2_bias);
    EXPECT_LT((d(tap(t, "layers.1.ffn_out")) - ffn_out).cwiseAbs().maxCoeff(), 1e-5);
    // out = x + attn_out + ffn_out, the layer's output in the trace
    EXPECT_LT((d(tap(t, "layers.1.out")) - (h + ffn_out)).cwiseAbs().maxCoeff(), 1e-4);
    EXPECT_EQ(tap(t, "layers.1.out"), t.main.layers[1].output);
    // the final norm, and the tied head's logits of the last position
    EXPECT_EQ(tap(t, "norm"), t.main.final_output);
    const Md logits = d(tap(t, "norm")).bottomRows(1) * d(w.embed).transpose();
    ASSERT_EQ(tap(t, "logits").rows(), 1);
    EXPECT_LT((d(tap(t, "logits")) - logits).cwiseAbs().maxCoeff(), 1e-4);
    EXPECT_EQ(Vector(tap(t, "logits").row(0).transpose()), t.next_token_logits);
    // Only what was asked for: layer 0 is not kept.
    for (const Trace::Tapped& v : t.taps) EXPECT_EQ(v.name.rfind("layers.0.", 0), std::string::npos) << v.name;
}

TEST(Taps, RotaryQKeepsEachPairsLengthAndPositionZeroUnrotated) {
    const Model m = Model::random(parse_playground_spec(
        "random:arch=decoder,d_model=32,heads=2,kv_heads=1,layers=1,pe=rope,rope=interleaved,"
        "norm=rmsnorm,act=swiglu,bias=0,seed=12"));
    TraceOptions opt;
    opt.taps = {"layers.0.attn_in", "layers.0.attn.q", "layers.0.attn.k"};
    const Trace t = m.forward(input_of(6), opt);
    const AttentionWeights& a = m.weights().layers[0].self_attn;
    const Md q_plain = d(tap(t, "layers.0.attn_in")) * d(a.in_proj_weight.topRows(32)).transpose();
    const Matrix& q = tap(t, "layers.0.attn.q");
    ASSERT_EQ(q.cols(), 32);
    EXPECT_EQ(tap(t, "layers.0.attn.k").cols(), 16);  // one K/V head of Dh 16
    EXPECT_LT((d(q.row(0)) - q_plain.row(0)).cwiseAbs().maxCoeff(), 1e-5);  // angle 0
    for (Eigen::Index p = 1; p < q.rows(); ++p)
        for (int pair = 0; pair < 16; ++pair) {  // interleaved pairs (2i, 2i+1)
            const double before = std::hypot(q_plain(p, 2 * pair), q_plain(p, 2 * pair + 1));
            const double after = std::hypot(double(q(p, 2 * pair)), double(q(p, 2 * pair + 1)));
            EXPECT_NEAR(after, before, 1e-4 * (1 + before));
        }
    EXPECT_GT((d(q.row(3)) - q_plain.row(3)).cwiseAbs().maxCoeff(), 1e-3);  // rotated
}

TEST(Taps, PatternsMatchWithStars) {
    EXPECT_TRUE(tap_matches("layers.*.attn_out", "layers.3.attn_out"));
    EXPECT_FALSE(tap_matches("layers.*.attn_out", "decoder.layers.3.attn_out"));
    EXPECT_TRUE(tap_matches("*.q", "decoder.layers.1.cross.q"));
    EXPECT_FALSE(tap_matches("*.q", "layers.1.attn.qq"));
    EXPECT_TRUE(tap_matches("*", "logits"));
    EXPECT_TRUE(tap_matches("l*t*s", "logits"));
    EXPECT_FALSE(tap_matches("l*s*s", "logits"));  // one s only
    EXPECT_FALSE(tap_matches("logit", "logits"));
    EXPECT_TRUE(tap_matches("logits", "logits"));
}

TEST(Taps, AnUnknownNameOrTooMuchIsRefusedBeforeRunning) {
    const Model m = Model::random(parse_playground_spec("random:d_model=32,heads=4,layers=2"));
    TraceOptions opt;
    opt.taps = {"layers.9.out"};
    try {
        (void)m.forward(input_of(4), opt);
        FAIL() << "expected hs::Error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("no intermediate of this model is named 'layers.9.out'"),
                  std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("layers.0.attn_in"), std::string::npos) << e.what();
    }
    // 21 names × 2²⁰ tokens × 128 floats (d_ff): 10.5 GiB, refused by size before any forward.
    EXPECT_THROW(check_tap_patterns({"*"}, m.config(), 1 << 20), Error);
    EXPECT_NO_THROW(check_tap_patterns({"*"}, m.config(), 64));
}

TEST(Taps, CliForwardListsTheNamesAndWritesTheKeptValues) {
    cli_test::TempDir dir;
    const std::string spec = "random:arch=decoder,d_model=32,heads=4,layers=2,lm_head=tied,vocab=60,seed=3";
    const cli_test::RunResult list = cli_test::run_headscope({"forward", spec, "--list-taps"}, dir);
    ASSERT_EQ(list.status, 0) << list.err;
    std::string expected;
    for (const std::string& n : tap_names(parse_playground_spec(spec))) expected += n + "\n";
    EXPECT_EQ(list.out, expected);
    const nlohmann::json j = cli_test::run_for_json(
        {"forward", spec, "--text", "a b c d", "--tap", "layers.*.attn_out,logits", "--json", "t.json"}, dir,
        dir.file("t.json"));
    ASSERT_EQ(j.at("taps").size(), 3u);
    EXPECT_EQ(j["taps"][0]["name"], "layers.0.attn_out");
    EXPECT_EQ(j["taps"][0]["shape"], nlohmann::json({4, 32}));
    EXPECT_EQ(j["taps"][2]["name"], "logits");
    EXPECT_EQ(j["taps"][2]["shape"], nlohmann::json({1, 60}));
    const cli_test::RunResult bad = cli_test::run_headscope({"forward", spec, "--text", "a", "--tap", "q"}, dir);
    EXPECT_NE(bad.status, 0);
    EXPECT_NE(bad.err.find("no intermediate of this model is named 'q'"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace hs

namespace hs {
namespace {

// The Pipeline's numbers are the heatmap's at a size where the fused per-head kernel runs
// (Dh 64, 4 heads ≥ 2 · CTest's 2 threads, T·|W_in| ≥ 1e6), rotary positions included: the
// step capture runs the code the heatmaps ran, so the maps and the layer's output agree bit
// for bit, and the captured QKV is the projection before the rotation.
TEST(PipelineSteps, EqualTheHeatmapWhereTheFusedKernelRuns) {
    const Model m = Model::random(parse_playground_spec(
        "random:arch=decoder,d_model=256,heads=4,layers=1,pe=rope,norm=pre-ln,bias=0,seed=5"));
    const ForwardInput in = input_of(20);
    TraceOptions plain;
    plain.taps = {"layers.0.attn_in"};
    m.forward(in, plain);  // the weights' panels are packed by their first products
    m.forward(in, plain);
    const AttentionWeights& w = m.weights().layers[0].self_attn;
    ASSERT_TRUE(kernels::attends_per_head(w.in_proj_weight, 4, 4, 20, thread_count()))
        << "this size no longer takes the fused path: pick one that does";
    const Trace heatmap = m.forward(in, plain);
    TraceOptions detailed = plain;
    detailed.detail_layer = 0;
    const Trace pipeline = m.forward(in, detailed);
    ASSERT_TRUE(pipeline.steps);
    const AttentionSteps& st = *pipeline.steps;
    ASSERT_EQ(st.weights.size(), 4u);
    for (int h = 0; h < 4; ++h)
        EXPECT_EQ(st.weights[std::size_t(h)], heatmap.main.layers[0].self_attn.weights[std::size_t(h)]) << "head " << h;
    EXPECT_EQ(pipeline.main.layers[0].output, heatmap.main.layers[0].output);
    // QKV before the rotation = attn_in · W_inᵀ (no bias); Q after it differs from it.
    const Matrix qkv = tap(heatmap, "layers.0.attn_in") * w.in_proj_weight.transpose();
    EXPECT_LT((st.qkv - qkv).cwiseAbs().maxCoeff(), 1e-4f);
    EXPECT_GT((st.q - qkv.leftCols(256)).cwiseAbs().maxCoeff(), 1e-2f);
}

}  // namespace
}  // namespace hs
