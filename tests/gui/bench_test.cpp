// The window's measured runs (app/bench.*, app/options.*): percentile lines that scripts
// parse, the pan path, the live-edit sequence and the option checks.
#include <gtest/gtest.h>

#include "app/bench.h"
#include "app/options.h"
#include "core/error.h"

namespace hs {
namespace {

TEST(BenchPercentiles, NearestRankOfSortedValues) {
    // 1..21 shuffled: p50 = rank round(0.5·20) = 10 -> 11; p95 = rank 19 -> 20; max 21.
    std::vector<double> ms;
    for (int i = 21; i >= 1; --i) ms.push_back(i % 2 ? i : 22 - i);
    std::vector<double> sorted = ms;
    std::sort(sorted.begin(), sorted.end());
    ASSERT_EQ(sorted.front(), 1.0);
    ASSERT_EQ(sorted.back(), 21.0);
    const Percentiles p = percentiles(ms);
    EXPECT_EQ(p.count, 21u);
    EXPECT_EQ(p.p50, 11.0);
    EXPECT_EQ(p.p95, 20.0);
    EXPECT_EQ(p.max, 21.0);
}

TEST(BenchPercentiles, EmptyInputGivesZeroCount) {
    EXPECT_EQ(percentiles({}).count, 0u);
    EXPECT_EQ(bench_line("edits", {}), "edits 0");
}

TEST(BenchLine, MatchesTheFormatScriptsParse) {
    EXPECT_EQ(bench_line("pan frames", {4.0, 2.0, 3.0}), "pan frames 3  p50 3.00 ms  p95 4.00 ms  max 4.00 ms");
    EXPECT_EQ(bench_line("frames", {16.666}), "frames 1  p50 16.67 ms  p95 16.67 ms  max 16.67 ms");
}

TEST(PanUv, StaysInsideTheMapAtAQuarterZoomAndMovesEveryFrame) {
    PanUv prev = pan_uv(0);
    EXPECT_FLOAT_EQ(prev.u0, 0.0f);
    EXPECT_FLOAT_EQ(prev.v0, 0.375f);  // a quarter period ahead: half-way along [0, 3/4]
    for (int f = 1; f <= 480; ++f) {
        SCOPED_TRACE(testing::Message() << "frame " << f);
        const PanUv p = pan_uv(f);
        EXPECT_GE(p.u0, 0.0f);
        EXPECT_GE(p.v0, 0.0f);
        EXPECT_LE(p.u1, 1.0f + 1e-6f);
        EXPECT_LE(p.v1, 1.0f + 1e-6f);
        EXPECT_FLOAT_EQ(p.u1 - p.u0, 0.25f);
        EXPECT_FLOAT_EQ(p.v1 - p.v0, 0.25f);
        EXPECT_TRUE(p.u0 != prev.u0 || p.v0 != prev.v0);
        prev = p;
    }
    EXPECT_FLOAT_EQ(pan_uv(120).u0, 0.75f);  // far edge after half a period
    EXPECT_FLOAT_EQ(pan_uv(240).u0, pan_uv(0).u0);
}

TEST(EditedConfig, AlternatesBetweenStartAndHalvedKey) {
    ModelConfig start;
    start.d_model = 512;
    start.heads = 8;
    start.layers = 6;
    EXPECT_EQ(edited_config(start, "heads", 0).heads, 8);
    EXPECT_EQ(edited_config(start, "heads", 1).heads, 4);
    EXPECT_EQ(edited_config(start, "heads", 2).heads, 8);
    EXPECT_EQ(edited_config(start, "heads", 3).d_model, 512);
    EXPECT_EQ(edited_config(start, "d_model", 1).d_model, 256);
    EXPECT_EQ(edited_config(start, "d_model", 1).heads, 8);
    EXPECT_EQ(edited_config(start, "d_model", 4).d_model, 512);
}

TEST(EditedConfig, RejectsOtherKeysAndInvalidHalves) {
    ModelConfig start;
    start.d_model = 48;
    start.heads = 1;  // half of one head is zero heads
    try {
        edited_config(start, "heads", 1);
        FAIL() << "halving 1 head must fail";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("halves heads of d_model 48, heads 1"), std::string::npos) << e.what();
    }
    try {
        edited_config(start, "layers", 1);
        FAIL() << "layers is not an edit key";
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()), "the live-edit benchmark edits heads or d_model, got 'layers'.");
    }
}

GuiOptions parse(std::vector<std::string> args) {
    args.insert(args.begin(), "headscope");
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    return parse_gui_options(static_cast<int>(argv.size()), argv.data());
}

TEST(GuiOptionsBench, PanAndBusyDefaultTo300Frames) {
    EXPECT_EQ(parse({"--bench-pan"}).bench_frames, 300);
    EXPECT_TRUE(parse({"--bench-pan"}).bench_pan);
    EXPECT_EQ(parse({"--bench-busy", "--bench-frames", "40"}).bench_frames, 40);
    const GuiOptions e = parse({"--bench-edits", "6", "--bench-edit", "d_model"});
    EXPECT_EQ(e.bench_edits, 6);
    EXPECT_EQ(e.bench_edit, "d_model");
    EXPECT_EQ(e.bench_frames, 0);
}

TEST(GuiOptionsBench, RejectsConflictingOrBadBenchOptions) {
    auto message = [](std::vector<std::string> args) {
        try {
            parse(std::move(args));
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(message({"--bench-pan", "--bench-busy"}),
              "options --bench-pan, --bench-busy, --bench-train and --bench-edits measure different things: pick one.");
    EXPECT_EQ(message({"--bench-train", "--bench-edits", "3"}),
              "options --bench-pan, --bench-busy, --bench-train and --bench-edits measure different things: pick one.");
    EXPECT_EQ(message({"--bench-edit", "layers"}), "option --bench-edit must be heads or d_model, got 'layers'.");
    EXPECT_EQ(message({"--bench-edits", "3", "--bench-frames", "10"}),
              "option --bench-edits times edits, not frames: drop --bench-frames.");
    EXPECT_EQ(message({"--bench-edits", "x"}), "option --bench-edits needs a whole number, got 'x'.");
}

// A negative layer or head is refused (−1 is "not given").
TEST(GuiOptionsSize, NegativeLayerOrHeadIsRefused) {
    EXPECT_EQ(parse({"--layer", "2", "--head", "0"}).layer, 2);
    try {
        parse({"--layer", "-2"});
        ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()), "option --layer needs a layer or head number from 0, got -2.");
    }
}

// A window no panel fits in, or larger than a GL framebuffer can be, is refused up front.
TEST(GuiOptionsSize, AcceptsUsableSizesAndNamesTheRangeOtherwise) {
    const GuiOptions o = parse({"--size", "1280x720"});
    EXPECT_EQ(o.width, 1280);
    EXPECT_EQ(o.height, 720);
    EXPECT_TRUE(o.size_given);
    EXPECT_EQ(parse({"--size", "320x240"}).width, 320);
    EXPECT_EQ(parse({"--size", "16384x16384"}).height, 16384);
    for (const char* bad : {"0x0", "319x240", "320x239", "16385x1000", "1000x16385", "-5x100"}) {
        try {
            parse({"--size", bad});
            ADD_FAILURE() << bad << " accepted";
        } catch (const Error& e) {
            EXPECT_EQ(std::string(e.what()),
                      std::string("option --size must be between 320x240 and 16384x16384, got '") + bad + "'.");
        }
    }
}

// "Open with" in a file manager passes the path alone: the window opens it as --model would;
// a second model is refused, naming both.
TEST(GuiOptionsPath, APathArgumentIsTheModelToOpen) {
    EXPECT_EQ(parse({"/models/tiny.gguf"}).model, "/models/tiny.gguf");
    EXPECT_EQ(parse({"--size", "1280x720", "some dir"}).model, "some dir");
    try {
        parse({"--model", "default", "/models/tiny.gguf"});
        ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()), "give one model to open: 'default' and '/models/tiny.gguf' (or --model once).");
    }
}

}  // namespace
}  // namespace hs
