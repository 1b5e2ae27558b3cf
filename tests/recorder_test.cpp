// The forward's one channel (core/model/recorder.h): on-demand values are made only when a
// recorder wants them, and they equal what they are made from.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/model/config.h"
#include "core/model/model.h"
#include "core/model/recorder.h"

namespace hs {
namespace {

ForwardInput five_tokens() {
    ForwardInput in;
    in.ids = {3, 1, 4, 1, 5};
    return in;
}

// Wants the on-demand values of one layer's self-attention and keeps everything it is shown
// there.
struct LayerWatcher final : Recorder {
    int layer = 0;
    std::vector<std::string> map_names;  // every record_maps call, any layer
    Matrix qkv, q, k, v, heads, concat;
    std::vector<Matrix> weights;
    bool wants(const TapPoint& p) const override { return p.layer == layer && p.block() == "attn"; }
    void record(const TapPoint& p, const Eigen::Ref<const Matrix>& value) override {
        if (p.layer != layer) return;
        const std::pair<const char*, Matrix*> slots[] = {{"attn.qkv", &qkv}, {"attn.q", &q},         {"attn.k", &k},
                                                        {"attn.v", &v},     {"attn.heads", &heads}, {"attn.concat", &concat}};
        for (const auto& [name, slot] : slots)
            if (p.name == name) *slot = value;
    }
    void record_maps(const TapPoint& p, const std::vector<Matrix>& maps) override {
        map_names.push_back(p.full_name());
        if (p.layer == layer && p.name == "attn.weights") weights = maps;
    }
};

TEST(Recorder, TapPointsNameTheirPlaceAsTapsDo) {
    const TapPoint q{"decoder.", 3, "cross.q"};
    EXPECT_EQ(q.full_name(), "decoder.layers.3.cross.q");
    EXPECT_TRUE(q.in_decoder());
    EXPECT_EQ(q.block(), "cross");
    EXPECT_EQ(q.part(), "q");
    const TapPoint in{"", 0, "attn_in"};
    EXPECT_EQ(in.full_name(), "layers.0.attn_in");
    EXPECT_EQ(in.block(), "attn");
    EXPECT_EQ(in.part(), "");
    EXPECT_EQ((TapPoint{"encoder.", -1, "norm"}).full_name(), "encoder.norm");
    EXPECT_TRUE(is_on_demand(TapPoint{"", 2, "attn.weights"}));
    EXPECT_TRUE(is_on_demand(TapPoint{"decoder.", 0, "cross.memory"}));
    EXPECT_FALSE(is_on_demand(TapPoint{"", 2, "attn.q"}));
    EXPECT_FALSE(is_on_demand(TapPoint{"", 2, "ffn_pre"}));
}

TEST(Recorder, MapsAreMadeOnlyForTheBlocksARecorderWants) {
    const Model m = Model::random(parse_playground_spec("random:d_model=16,heads=4,layers=3,seed=5"));
    LayerWatcher watcher;
    watcher.layer = 1;
    TraceOptions opt;
    opt.head_weights = false;  // the trace keeps no maps …
    opt.recorder = &watcher;   // … and the watcher wants layer 1's only
    const Trace t = m.forward(five_tokens(), opt);
    EXPECT_EQ(watcher.map_names, (std::vector<std::string>{"layers.1.attn.scores", "layers.1.attn.weights"}));
    for (const LayerTrace& lt : t.main.layers) EXPECT_TRUE(lt.self_attn.weights.empty());
    // What the watcher was shown is what a full capture keeps.
    const Trace full = m.forward(five_tokens());
    ASSERT_EQ(watcher.weights.size(), 4u);
    for (int h = 0; h < 4; ++h) EXPECT_EQ(watcher.weights[h], full.main.layers[1].self_attn.weights[h]);
}

TEST(Recorder, OnDemandValuesEqualWhatTheyAreMadeFrom) {
    // Learned positions (no rotation): V is the last block of [Q|K|V] unchanged.
    const Model m = Model::random(parse_playground_spec("random:d_model=16,heads=4,layers=2,seed=5"));
    LayerWatcher plain;
    TraceOptions opt;
    opt.recorder = &plain;
    (void)m.forward(five_tokens(), opt);
    ASSERT_EQ(plain.qkv.cols(), 48);
    EXPECT_EQ(plain.qkv.leftCols(16), plain.q);
    EXPECT_EQ(plain.qkv.rightCols(16), plain.v);
    EXPECT_EQ(plain.heads, plain.concat);  // no ablation
    // Ablating head 2 changes concat there only; the heads before ablation stay.
    LayerWatcher ablated;
    opt.recorder = &ablated;
    opt.ablate = {HeadRef{0, 2, false, false}};
    (void)m.forward(five_tokens(), opt);
    EXPECT_EQ(ablated.heads, plain.heads);
    EXPECT_TRUE(ablated.concat.middleCols(8, 4).isZero(0.0f));
    EXPECT_EQ(ablated.concat.leftCols(8), plain.concat.leftCols(8));
    EXPECT_FALSE(plain.heads.middleCols(8, 4).isZero(0.0f));
}

TEST(Recorder, MapsHandedToACallersKeeperStayInTheTraceToo) {
    // Both the caller's MapsKeeper and the trace keep layer 0's maps: the trace (the last
    // that wants them) takes them, the keeper copies; neither is left empty.
    const Model m = Model::random(parse_playground_spec("random:d_model=16,heads=4,layers=1,seed=5"));
    MapsKeeper keeper(/*scores=*/true);
    TraceOptions opt;
    opt.scores = true;
    opt.recorder = &keeper;
    const Trace t = m.forward(five_tokens(), opt);
    ASSERT_EQ(keeper.weights.size(), 4u);
    ASSERT_EQ(t.main.layers[0].self_attn.weights.size(), 4u);
    ASSERT_EQ(t.main.layers[0].self_attn.scores.size(), 4u);
    for (int h = 0; h < 4; ++h) {
        EXPECT_EQ(keeper.weights[h], t.main.layers[0].self_attn.weights[h]);
        EXPECT_EQ(keeper.scores[h], t.main.layers[0].self_attn.scores[h]);
    }
}

}  // namespace
}  // namespace hs
