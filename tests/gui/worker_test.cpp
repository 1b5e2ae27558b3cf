// The app's background worker (app/worker.*) and its thumbnail downsampling: newest
// request wins, stale work never reaches the UI, errors come back as messages.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

#include <gtest/gtest.h>

#include "app/worker.h"
#include "core/generate.h"
#include "core/open_source.h"
#include "core/pretrained_source.h"

namespace hs {
namespace {

// Polls until a result arrives (the worker never blocks the caller).
ComputeResult wait_for_result(Worker& worker) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
    while (std::chrono::steady_clock::now() < deadline) {
        if (auto r = worker.take_result()) return std::move(*r);
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ADD_FAILURE() << "no result within 2 minutes";
    return {};
}

ComputeRequest request(const std::string& model, const std::string& text) {
    ComputeRequest r;
    r.model_arg = model;
    r.input.text = text;
    return r;
}

TEST(Worker, ReturnsTheTraceOfTheRequest) {
    Worker worker;
    const std::uint64_t gen = worker.submit(request("random:d_model=16,heads=2,layers=2,seed=1", "a b c"));
    const ComputeResult r = wait_for_result(worker);
    ASSERT_TRUE(r.trace) << r.error;
    EXPECT_EQ(r.generation, gen);
    EXPECT_EQ(r.trace->main.tokens, (std::vector<std::string>{"a", "b", "c"}));
    ASSERT_EQ(r.thumbnails->self.size(), 2u);
    EXPECT_EQ(r.thumbnails->self[0].size(), 2u);
    EXPECT_TRUE(r.thumbnails->self[1][1].isApprox(r.trace->main.layers[1].self_attn.weights[1]));
}

// A map longer than a thumbnail: the grid's auto range is the thumbnails' own (box means
// of 2 × 2 weights here), not the full maps' peaks, which no thumbnail cell reaches: on a
// trained model's sharp heads the grid drew flat purple at ~500 tokens.
TEST(Worker, ThumbnailsOfLongMapsRangeOverTheirOwnValues) {
    std::string text;
    while (text.size() < 1800) text += "Once upon a time, there was a little girl named Lily. She liked to play. ";
    Worker worker;
    ComputeRequest r0 = request(HEADSCOPE_STORIES260K, text);
    r0.input.keep_first = true;
    worker.submit(r0);
    const ComputeResult r = wait_for_result(worker);
    ASSERT_TRUE(r.trace) << r.error;
    ASSERT_GT(r.trace->main.tokens.size(), 400u);
    const int layers = static_cast<int>(r.trace->main.layers.size()), heads = static_cast<int>(r.thumbnails->self[0].size());
    float thumb_max = 0.0f, map_max = 0.0f;
    for (int l = 0; l < layers; ++l)
        for (int h = 0; h < heads; ++h) {
            const Matrix& thumb = r.thumbnails->self[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)];
            ASSERT_EQ(thumb.rows(), TraceThumbnails::kThumbMax);
            thumb_max = std::max(thumb_max, thumb.maxCoeff());
            map_max = std::max(map_max, r.trace->main.layers[static_cast<std::size_t>(l)].self_attn.weights[static_cast<std::size_t>(h)].maxCoeff());
        }
    ASSERT_LT(thumb_max, 0.6f * map_max);  // the case: box means well below the maps' peaks
    EXPECT_LE(r.thumbnails->hi[0], thumb_max);
    // At least each thumbnail's 99.9th percentile (to the 1/4096 of its span the robust
    // range bins by): here the last layer's head 1, sorted.
    const Matrix& last = r.thumbnails->self[1][1];
    std::vector<float> values(last.data(), last.data() + last.size());
    std::sort(values.begin(), values.end());
    const float p999 = values[static_cast<std::size_t>(0.999 * static_cast<double>(values.size() - 1))];
    EXPECT_GE(r.thumbnails->hi[0], p999 - (values.back() - values.front()) / 4096.0f);
    EXPECT_GE(r.thumbnails->lo[0], 0.0f);
}

TEST(Worker, NewestRequestWinsAndStaleOnesNeverArrive) {
    Worker worker;
    std::string long_text;
    for (int i = 0; i < 1500; ++i) long_text += "word" + std::to_string(i % 50) + " ";
    // A slow job, replaced while it runs by a quick one: only the quick one may come back.
    worker.submit(request("random:d_model=64,heads=4,layers=6,seed=2", long_text));
    while (!worker.busy()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const std::uint64_t newest = worker.submit(request("random:d_model=16,heads=2,layers=1,seed=3", "x y"));
    const ComputeResult r = wait_for_result(worker);
    ASSERT_TRUE(r.trace) << r.error;
    EXPECT_EQ(r.generation, newest);
    EXPECT_EQ(r.trace->main.tokens.size(), 2u);
    // Nothing else is delivered afterwards.
    while (!worker.idle()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    EXPECT_FALSE(worker.take_result().has_value());
}

TEST(Worker, QueuedRequestIsReplacedByANewerOne) {
    Worker worker;
    std::uint64_t newest = 0;
    for (int i = 1; i <= 20; ++i)
        newest = worker.submit(request("random:d_model=16,heads=2,layers=1,seed=" + std::to_string(i), "p q r"));
    const ComputeResult r = wait_for_result(worker);
    EXPECT_EQ(r.generation, newest);
    ASSERT_TRUE(r.trace) << r.error;
    EXPECT_NE(r.trace->model_name.find("seed=20"), std::string::npos) << r.trace->model_name;
}

TEST(Worker, ReportsCoreErrorsAsMessages) {
    Worker worker;
    worker.submit(request("random:d_model=16,heads=2,layers=1,bogus=1", "a b"));
    const ComputeResult r = wait_for_result(worker);
    EXPECT_FALSE(r.trace);
    EXPECT_NE(r.error.find("bogus"), std::string::npos) << r.error;
}

// stories260K is referenced in place (../shared/models); missing is a failure, not a skip.
const std::string kStories = HEADSCOPE_STORIES260K;

TEST(Worker, ReportsThePretrainedModelsArchitecture) {
    ASSERT_TRUE(std::filesystem::exists(kStories)) << kStories << " is missing";
    Worker worker;
    worker.submit(request(kStories, "Once upon a time"));
    const ComputeResult r = wait_for_result(worker);
    ASSERT_TRUE(r.trace) << r.error;
    EXPECT_TRUE(r.info.pretrained);
    EXPECT_EQ(r.info.family, "llama2.c");
    EXPECT_EQ(r.info.d_model, 64);
    EXPECT_EQ(r.info.heads, 8);
    EXPECT_EQ(r.info.kv_heads, 4);
    EXPECT_TRUE(r.info.grouped());
    EXPECT_EQ(r.info.layers, 5);
    EXPECT_EQ(r.info.vocab, 512);
    EXPECT_EQ(r.info.memory_bytes, r.info.parameters * 4);
    EXPECT_GT(r.load_ms, 0.0);
    EXPECT_EQ(r.trace->config.kv_heads, 4);
    EXPECT_EQ(r.trace->next_tokens.size(), 5u);
}

TEST(Worker, ContinueAppendsCoresGreedyTokensAndTracesTheLongerText) {
    ASSERT_TRUE(std::filesystem::exists(kStories)) << kStories << " is missing";
    ComputeRequest req = request(kStories, "Once upon a time");
    req.continue_tokens = 5;
    Worker worker;
    worker.submit(req);
    const ComputeResult r = wait_for_result(worker);
    ASSERT_TRUE(r.trace) << r.error;
    ASSERT_TRUE(r.adopt_text);
    EXPECT_EQ(r.adopt_text->notice, "Appended 5 tokens.");
    // Independent: core's generate over the same prompt ids.
    const auto source = open_source(kStories);
    std::vector<int> ids = source->tokenize("Once upon a time").ids;
    const std::vector<int> gen = generate(*source->model(), *source->tokenizer(), ids, 5);
    ASSERT_EQ(gen.size(), 5u);
    ids.insert(ids.end(), gen.begin(), gen.end());
    const std::string& text = r.adopt_text->text;
    EXPECT_EQ(r.trace->main.ids, ids) << "continued text: " << text;
    EXPECT_EQ(text.rfind("Once upon a time", 0), 0u) << text;
    EXPECT_GT(text.size(), std::string("Once upon a time").size());
}

TEST(Worker, ContinueNeedsADecoderLanguageModel) {
    ComputeRequest req = request("random:d_model=16,heads=2,layers=1,seed=1", "a b");
    req.continue_tokens = 3;
    Worker worker;
    worker.submit(req);
    const ComputeResult r = wait_for_result(worker);
    EXPECT_FALSE(r.trace);
    EXPECT_NE(r.error.find("(playground) cannot continue a text: its token ids do not read back as text"),
              std::string::npos) << r.error;
}

// A model opened by a request sends its first layers while the others run (here after
// every layer): the partial trace is of a model of that many layers, its maps and
// thumbnails those of the whole trace, and the Pipeline's steps once their layer ran; once
// the whole result is taken no part of it comes.
TEST(Worker, AModelOpenedNowSendsItsFirstLayersBeforeTheWholeTrace) {
    Worker worker(PartialTiming{0.0, 0.0});
    std::string long_text;
    for (int i = 0; i < 600; ++i) long_text += "word" + std::to_string(i % 50) + " ";
    ComputeRequest with_steps = request("random:d_model=64,heads=4,layers=6,seed=2", long_text);
    with_steps.options.detail_layer = 1;
    const std::uint64_t gen = worker.submit(with_steps);
    while (!worker.busy()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    while (worker.busy()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::optional<ComputeResult> part = worker.take_partial();  // the last one sent: 5 of 6 layers
    ASSERT_TRUE(part.has_value());
    EXPECT_FALSE(worker.take_partial().has_value());  // taken once
    const ComputeResult whole = wait_for_result(worker);
    ASSERT_TRUE(part->trace && whole.trace) << whole.error;
    EXPECT_TRUE(part->partial);
    EXPECT_FALSE(whole.partial);
    EXPECT_EQ(part->generation, gen);
    EXPECT_EQ(part->trace->config.layers, 5);
    ASSERT_EQ(part->trace->n_layers(), 5);
    EXPECT_EQ(whole.trace->n_layers(), 6);
    EXPECT_EQ(part->trace->main.tokens, whole.trace->main.tokens);
    EXPECT_TRUE(part->trace->next_tokens.empty());
    ASSERT_EQ(part->thumbnails->self.size(), 5u);
    EXPECT_TRUE(part->thumbnails->self[4][3].isApprox(whole.thumbnails->self[4][3]));
    const HeadMaps& kept = part->trace->main.layers[0].self_attn;
    ASSERT_TRUE(kept.resident);
    EXPECT_TRUE(kept.weights[2].isApprox(whole.trace->main.layers[0].self_attn.weights[2]));
    EXPECT_EQ(kept.weight_ranges.size(), 4u);
    EXPECT_EQ(part->main_norms->norms.size(), whole.main_norms->norms.size() - 1);  // L + 1 rows
    ASSERT_TRUE(part->trace->steps && whole.trace->steps);
    EXPECT_EQ(part->trace->steps_layer, 1);
    EXPECT_EQ(part->trace->steps->qkv, whole.trace->steps->qkv);
    // The model is open now: another text on it comes whole, with no part before it.
    worker.submit(request("random:d_model=64,heads=4,layers=6,seed=2", long_text + "again"));
    const ComputeResult again = wait_for_result(worker);
    ASSERT_TRUE(again.trace) << again.error;
    EXPECT_FALSE(worker.take_partial().has_value());
}

TEST(Worker, CancelDeliversNothing) {
    Worker worker;
    std::string long_text;
    for (int i = 0; i < 1500; ++i) long_text += "word" + std::to_string(i % 50) + " ";
    worker.submit(request("random:d_model=64,heads=4,layers=6,seed=2", long_text));
    while (!worker.busy()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    worker.cancel();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
    while (!worker.idle() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    EXPECT_TRUE(worker.idle());
    EXPECT_FALSE(worker.take_result().has_value());
    EXPECT_FALSE(worker.take_partial().has_value());
}

TEST(DownsampleMap, KeepsSmallMapsUnchanged) {
    Matrix m = Matrix::Random(5, 7);
    EXPECT_TRUE(downsample_map(m, 8) == m);
}

TEST(DownsampleMap, AveragesBlocks) {
    // (4, 6) -> (2, 3): each output cell is the mean of a 2×2 block.
    Matrix m(4, 6);
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 6; ++j) m(i, j) = static_cast<float>(i * 6 + j);
    const Matrix d = downsample_map(m, 3);
    ASSERT_EQ(d.rows(), 3);  // rows 4 -> 3 (max_side 3)
    ASSERT_EQ(d.cols(), 3);
    // Row block of output row 0 is rows [0, 1) (4·0/3 .. 4·1/3), columns [0, 2).
    EXPECT_FLOAT_EQ(d(0, 0), (0.0f + 1.0f) / 2.0f);
    // Output (2, 2): rows [2, 4), columns [4, 6): values 16, 17, 22, 23.
    EXPECT_FLOAT_EQ(d(2, 2), (16.0f + 17.0f + 22.0f + 23.0f) / 4.0f);
}

}  // namespace
}  // namespace hs
