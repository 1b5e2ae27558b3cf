// The app's side of the map budget (issue 6, "Memory"): the worker's grid thumbnails cover
// layers the forward dropped, and LayerMapsWorker brings a dropped layer back off the UI
// thread, equal to a full capture.
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "app/layer_maps_worker.h"
#include "app/worker.h"
#include "core/image/heatmap_image.h"
#include "core/open_source.h"
#include "core/source.h"

namespace hs {
namespace {

const std::string kModel = "random:d_model=32,heads=4,layers=3,seed=4,mask=causal,norm=pre-ln";

// 300 tokens: thumbnails are box averages down to 256 × 256.
std::string long_text() {
    std::string text;
    for (int i = 0; i < 300; ++i) text += "w" + std::to_string(i % 37) + " ";
    return text;
}

TEST(MapBudgetWorker, ThumbnailsOfDroppedLayersAreBoxAveragesOfTheFullMaps) {
    const auto source = open_source(kModel);
    SourceInput in;
    in.text = long_text();
    const Trace full = source->run(in, TraceOptions{});
    ASSERT_EQ(full.main.tokens.size(), 300u);

    Worker worker;
    ComputeRequest r;
    r.model_arg = kModel;
    r.input = in;
    r.options.map_budget_bytes = 0;  // keep only layer 1
    r.options.resident_layer = 1;
    worker.submit(r);
    std::optional<ComputeResult> result;
    for (int i = 0; i < 24000 && !result; ++i) {  // polls; never blocks on the worker
        result = worker.take_result();
        if (!result) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ASSERT_TRUE(result && result->trace) << (result ? result->error : "no result");
    const Trace& t = *result->trace;
    EXPECT_FALSE(t.main.layers[0].self_attn.resident);
    EXPECT_TRUE(t.main.layers[1].self_attn.resident);
    EXPECT_FALSE(t.main.layers[2].self_attn.resident);
    const TraceThumbnails& th = *result->thumbnails;
    ASSERT_EQ(th.self.size(), 3u);
    float lo = 1e30f, hi = -1e30f;
    for (int l = 0; l < 3; ++l)
        for (int h = 0; h < 4; ++h) {
            SCOPED_TRACE(testing::Message() << "layer " << l << " head " << h);
            const Matrix& w = full.main.layers[l].self_attn.weights[h];
            const Matrix& thumb = th.self[l][h];
            // The grid's auto range: the smallest minimum and the largest robust top
            // (MapRange) of the thumbnails it draws (box means: the maps' peaks are not drawn).
            lo = std::min(lo, thumb.minCoeff());
            hi = std::max(hi, robust_high(thumb, thumb.minCoeff(), thumb.maxCoeff()));
            ASSERT_EQ(thumb.rows(), 256);
            ASSERT_EQ(thumb.cols(), 256);
            // Cell (i, j) averages rows [⌊i·300/256⌋, ⌊(i+1)·300/256⌋) and the same columns.
            for (int i : {0, 100, 255})
                for (int j : {0, 77, 255}) {
                    const int r0 = i * 300 / 256, r1 = (i + 1) * 300 / 256;
                    const int c0 = j * 300 / 256, c1 = (j + 1) * 300 / 256;
                    EXPECT_NEAR(thumb(i, j), w.block(r0, c0, r1 - r0, c1 - c0).mean(), 1e-6f);
                }
            EXPECT_LE((thumb - downsample_map(w, 256)).cwiseAbs().maxCoeff(), 1e-6f);
        }
    EXPECT_FLOAT_EQ(th.lo[0], lo);
    EXPECT_FLOAT_EQ(th.hi[0], hi);
}

TEST(MapBudgetWorker, LayerMapsWorkerRecomputesADroppedLayer) {
    std::shared_ptr<const TraceSource> source = open_source(kModel);
    SourceInput in;
    in.text = "one two three four five six seven";
    TraceOptions full_opt;
    full_opt.scores = true;
    const Trace full = source->run(in, full_opt);
    TraceOptions opt = full_opt;
    opt.map_budget_bytes = 0;
    auto dropped = std::make_shared<const Trace>(source->run(in, opt));
    ASSERT_FALSE(dropped->main.layers[2].self_attn.resident);

    LayerMapsWorker worker;
    worker.submit(LayerMapsRequest{source, dropped, HeadRef{2, 0, false, false}});
    std::optional<LayerMapsResult> r;
    for (int i = 0; i < 24000 && !r; ++i) {
        r = worker.take_result();
        if (!r) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ASSERT_TRUE(r && r->maps) << (r ? r->error : "no result");
    EXPECT_EQ(r->trace, dropped);
    EXPECT_EQ(r->block, (HeadRef{2, 0, false, false}));
    ASSERT_EQ(r->maps->weights.size(), 4u);
    ASSERT_EQ(r->maps->scores.size(), 4u);
    for (int h = 0; h < 4; ++h) {
        EXPECT_LE((r->maps->weights[h] - full.main.layers[2].self_attn.weights[h]).cwiseAbs().maxCoeff(), 1e-6f);
        EXPECT_LE((r->maps->scores[h] - full.main.layers[2].self_attn.scores[h]).cwiseAbs().maxCoeff(), 1e-6f);
    }
    EXPECT_FALSE(worker.busy());

    // A block that does not exist comes back as a message, not a crash.
    worker.submit(LayerMapsRequest{source, dropped, HeadRef{9, 0, false, false}});
    r.reset();
    for (int i = 0; i < 24000 && !r; ++i) {
        r = worker.take_result();
        if (!r) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ASSERT_TRUE(r.has_value());
    EXPECT_FALSE(r->maps);
    EXPECT_NE(r->error.find("layer 9 is out of range: the model has 3 layers (0..2)"),
              std::string::npos) << r->error;
}

}  // namespace
}  // namespace hs
