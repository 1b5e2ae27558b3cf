// Map budget (issue 6, "Memory"): a forward keeps full per-head maps only for the blocks
// that fit TraceOptions::map_budget_bytes; TraceSource::layer_maps recomputes the others
// from the stored hidden states. Every recomputed map is checked against a full capture
// of the same input.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/formats/hf_loader.h"
#include "core/model/recorder.h"
#include "core/open_source.h"
#include "core/source.h"
#include "core/model/trace.h"
#include "tests/test_util.h"

namespace hs {
namespace {

using test::expect_error;

float max_abs_diff(const std::vector<Matrix>& a, const std::vector<Matrix>& b) {
    EXPECT_EQ(a.size(), b.size());
    float worst = 0.0f;
    for (std::size_t h = 0; h < std::min(a.size(), b.size()); ++h) {
        EXPECT_EQ(a[h].rows(), b[h].rows());
        EXPECT_EQ(a[h].cols(), b[h].cols());
        if (a[h].rows() != b[h].rows() || a[h].cols() != b[h].cols()) return 1e30f;
        worst = std::max(worst, (a[h] - b[h]).cwiseAbs().maxCoeff());
    }
    return worst;
}

// Every block of the stacks of `full` (blocks listed by `blocks`): with budget 0 the
// forward drops all but `resident_layer`, and layer_maps gives back the full maps.
void expect_recompute_matches(const TraceSource& source, const SourceInput& input,
                              const std::vector<HeadRef>& blocks,
                              const std::vector<HeadRef>& ablate = {}) {
    TraceOptions full_opt;
    full_opt.scores = true;
    full_opt.ablate = ablate;
    const Trace full = source.run(input, full_opt);
    ASSERT_TRUE(all_maps_resident(full));

    TraceOptions small = full_opt;
    small.map_budget_bytes = 0;
    small.resident_layer = 1;
    const Trace dropped = source.run(input, small);
    EXPECT_FALSE(all_maps_resident(dropped));
    for (const HeadRef& b : blocks) {
        SCOPED_TRACE(testing::Message() << "layer " << b.layer << (b.in_decoder ? " decoder" : "")
                                        << (b.cross ? " cross" : ""));
        const HeadMaps& kept = maps_of(dropped, b);
        const bool wanted = b.layer == 1 && !b.in_decoder;
        EXPECT_EQ(kept.resident, wanted);
        EXPECT_EQ(kept.weights.empty(), !wanted);
        const HeadMaps again = source.layer_maps(dropped, b, true);
        ASSERT_FALSE(again.weights.empty());
        EXPECT_LE(max_abs_diff(again.weights, maps_of(full, b).weights), 1e-6f);
        EXPECT_LE(max_abs_diff(again.scores, maps_of(full, b).scores), 1e-6f);
    }
    // The hidden states are untouched by the budget.
    EXPECT_EQ(dropped.main.final_output, full.main.final_output);
}

std::vector<HeadRef> main_blocks(int layers) {
    std::vector<HeadRef> out;
    for (int l = 0; l < layers; ++l) out.push_back(HeadRef{l, 0, false, false});
    return out;
}

TEST(MapBudgetPlan, KeepsTheWantedBlockThenAPrefixWithinTheBudget) {
    const std::vector<double> bytes{10, 10, 10, 10};
    EXPECT_EQ(plan_resident_blocks(bytes, 25, 3), (std::vector<bool>{true, false, false, true}));
    EXPECT_EQ(plan_resident_blocks(bytes, 40, 2), (std::vector<bool>{true, true, true, true}));
    // The wanted block stays even when it alone exceeds the budget.
    EXPECT_EQ(plan_resident_blocks(bytes, 0, 1), (std::vector<bool>{false, true, false, false}));
    EXPECT_EQ(plan_resident_blocks(bytes, 9, -1), (std::vector<bool>{false, false, false, false}));
}

TEST(MapBudget, ForwardKeepsOnlyTheLayersThatFitTheBudget) {
    const auto source = open_source("random:d_model=16,heads=2,layers=4,seed=3,mask=causal");
    SourceInput in;
    in.text = "one two three four five six";  // T = 6: a layer's maps are 2·6·6·4 = 288 bytes
    TraceOptions opt;
    opt.map_budget_bytes = 288 * 2 + 100;  // room for two layers
    opt.resident_layer = 3;
    const Trace t = source->run(in, opt);
    const std::vector<bool> expected{true, false, false, true};
    for (int l = 0; l < 4; ++l) {
        SCOPED_TRACE(l);
        EXPECT_EQ(t.main.layers[l].self_attn.resident, expected[l]);
        EXPECT_EQ(t.main.layers[l].self_attn.weights.size(), expected[l] ? 2u : 0u);
        EXPECT_EQ(t.main.layers[l].output.rows(), 6);  // hidden states always kept
    }
    // Scores double each layer's bytes: only the wanted layer fits now.
    opt.scores = true;
    const Trace s = source->run(in, opt);
    EXPECT_TRUE(s.main.layers[3].self_attn.resident);
    EXPECT_EQ(s.main.layers[3].self_attn.scores.size(), 2u);
    EXPECT_FALSE(s.main.layers[0].self_attn.resident);
    // By default there is no budget: every map is kept.
    EXPECT_TRUE(all_maps_resident(source->run(in, TraceOptions{})));
}

TEST(MapBudget, PreLnCausalPlaygroundRecomputesDroppedLayersExactly) {
    const auto source =
        open_source("random:d_model=32,heads=4,layers=4,seed=11,mask=causal,norm=pre-ln,pe=learned");
    SourceInput in;
    in.text = "the cat sat on the mat and looked at the dog";
    expect_recompute_matches(*source, in, main_blocks(4));
}

TEST(MapBudget, PostLnEncoderDecoderRecomputesSelfAndCrossWithAblation) {
    const auto source = open_source(
        "random:arch=encoder-decoder,d_model=24,heads=3,layers=3,seed=5,norm=post-ln,mask=causal");
    SourceInput in;
    in.text = "a b c d e f g";
    in.decoder_text = "x y z w";
    in.key_padding = {6};
    std::vector<HeadRef> blocks = main_blocks(3);
    for (int l = 0; l < 3; ++l) {
        blocks.push_back(HeadRef{l, 0, true, false});
        blocks.push_back(HeadRef{l, 0, true, true});
    }
    // Ablating a decoder self-attention head changes what cross-attention sees.
    expect_recompute_matches(*source, in, blocks,
                             {HeadRef{1, 2, true, false}, HeadRef{0, 1, false, false}});
}

TEST(MapBudget, PreLnEncoderDecoderRecomputesCrossAttention) {
    const auto source = open_source(
        "random:arch=encoder-decoder,d_model=16,heads=2,layers=2,seed=9,norm=pre-ln");
    SourceInput in;
    in.text = "p q r s t";
    in.decoder_text = "u v w";
    std::vector<HeadRef> blocks = main_blocks(2);
    for (int l = 0; l < 2; ++l) {
        blocks.push_back(HeadRef{l, 0, true, false});
        blocks.push_back(HeadRef{l, 0, true, true});
    }
    expect_recompute_matches(*source, in, blocks);
}

TEST(MapBudget, HfCheckpointsRecomputeDroppedLayersExactly) {
    // gpt2: learned positions, pre-LN; llama: rotary, grouped-query attention, RMSNorm;
    // bert: post-LN, bidirectional. The fixtures carry no tokenizer: ids directly.
    for (const std::string name : {"gpt2", "llama", "bert"}) {
        SCOPED_TRACE(name);
        const Model model =
            load_hf_model(std::string(HEADSCOPE_FIXTURES_DIR) + "/hf/" + name);
        const std::vector<int> ids{1, 5, 9, 2, 7, 3, 8, 4, 6};
        TraceOptions opt;
        opt.scores = true;
        opt.ablate = {HeadRef{0, 1, false, false}};
        const Trace full = model.forward(ForwardInput::of(ids), opt);
        opt.map_budget_bytes = 0;
        opt.resident_layer = 1;
        const Trace dropped = model.forward(ForwardInput::of(ids), opt);
        ASSERT_GE(model.config().layers, 2);
        for (int l = 0; l < model.config().layers; ++l) {
            SCOPED_TRACE(l);
            EXPECT_EQ(dropped.main.layers[l].self_attn.resident, l == 1);
            const HeadMaps again = recompute_layer_maps(model, dropped, HeadRef{l, 0, false, false}, true);
            EXPECT_EQ(again.weights.size(), static_cast<std::size_t>(model.config().heads));
            EXPECT_LE(max_abs_diff(again.weights, full.main.layers[l].self_attn.weights), 1e-6f);
            EXPECT_LE(max_abs_diff(again.scores, full.main.layers[l].self_attn.scores), 1e-6f);
        }
    }
}

TEST(MapBudget, Llama2cCheckpointRecomputesDroppedLayersThroughItsSource) {
    const auto source =
        open_source(std::string(HEADSCOPE_SHARED_DIR) + "/models/stories260K/stories260K.bin");
    SourceInput in;
    in.text = "Once upon a time there was a little dog";
    expect_recompute_matches(*source, in, main_blocks(source->config().layers),
                             {HeadRef{0, 1, false, false}});
    // A pretrained model has a single stack.
    const Trace t = source->run(in, TraceOptions{});
    expect_error([&] { source->layer_maps(t, HeadRef{0, 0, true, false}, false); },
                 {"has no decoder stack"});
}

// A recorder that asks for every block's weights sees the maps of every layer, the same as
// a full capture, while the trace keeps only the budget's.
struct CompareEveryBlock final : Recorder {
    const Trace& full;
    std::vector<int> seen;
    explicit CompareEveryBlock(const Trace& t) : full(t) {}
    bool wants(const TapPoint& point) const override { return point.part() == "weights"; }
    void record_maps(const TapPoint& point, const std::vector<Matrix>& maps) override {
        if (point.part() != "weights") return;
        seen.push_back(point.layer);
        EXPECT_LE(max_abs_diff(maps, maps_of(full, HeadRef{point.layer, 0, false, false}).weights), 0.0f);
    }
};

TEST(MapBudget, ARecorderSeesEveryBlockBeforeItIsDropped) {
    const auto source = open_source("random:d_model=16,heads=2,layers=3,seed=2");
    SourceInput in;
    in.text = "alpha beta gamma delta";
    const Trace full = source->run(in, TraceOptions{});
    TraceOptions opt;
    opt.map_budget_bytes = 0;
    CompareEveryBlock recorder(full);
    opt.recorder = &recorder;
    const Trace t = source->run(in, opt);
    const std::vector<int>& seen = recorder.seen;
    EXPECT_EQ(seen, (std::vector<int>{0, 1, 2}));
    EXPECT_TRUE(t.main.layers[0].self_attn.resident);
    EXPECT_FALSE(t.main.layers[2].self_attn.resident);
}

TEST(MapBudget, RecomputeWithoutHiddenStatesSaysWhy) {
    const auto source = open_source("random:d_model=16,heads=2,layers=3,seed=2");
    SourceInput in;
    in.text = "alpha beta gamma delta";
    TraceOptions opt;
    opt.map_budget_bytes = 0;
    opt.hidden_states = false;
    const Trace t = source->run(in, opt);
    expect_error([&] { source->layer_maps(t, HeadRef{2, 0, false, false}, false); },
                 {"cannot recompute the maps of layer 2",
                  "the trace holds no hidden state entering it"});
    expect_error([&] { source->layer_maps(t, HeadRef{5, 0, false, false}, false); },
                 {"layer 5 is out of range: the model has 3 layers (0..2)"});
    expect_error([&] { source->layer_maps(t, HeadRef{0, 0, true, false}, false); },
                 {"this trace has no decoder stack"});
    // A resident block comes back as stored, with no hidden state needed.
    EXPECT_EQ(source->layer_maps(t, HeadRef{0, 0, false, false}, false).weights.size(), 2u);
}

}  // namespace
}  // namespace hs
