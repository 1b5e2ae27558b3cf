// Problems a new user ran into with the CLI and playground specs: each test pins the fix.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/common.h"
#include "core/io/atomic_file.h"
#include "core/model/config.h"
#include "core/model/model.h"
#include "core/open_source.h"
#include "core/source.h"
#include "tests/cli_runner.h"
#include "tests/test_util.h"

namespace hs {
namespace {

using cli_test::run_headscope;
using cli_test::RunResult;
using test::TempDir;

const std::string kUserSpec = "random:d_model=16,heads=2,layers=1,seed=3";

std::size_t count_lines(const std::string& s) {
    std::size_t n = 0;
    for (char c : s) n += c == '\n';
    return n;
}

void expect_one_line_failure(const RunResult& r, int status, const std::string& part) {
    EXPECT_TRUE(r.exited) << "crashed with signal " << r.status;
    EXPECT_EQ(r.status, status) << r.err;
    EXPECT_EQ(count_lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find(part), std::string::npos) << r.err;
}

TEST(CliExportGamma, RejectsNonPositiveNonFiniteAndTrailingJunk) {
    TempDir dir;
    for (const std::string g : {"0", "-1", "nan", "inf", "2x", "abc", ""}) {
        const RunResult r = run_headscope({"export", kUserSpec, "--text", "a b", "--layer", "0",
                                           "--head", "0", "--gamma", g, "--png", "x.png"},
                                          dir);
        expect_one_line_failure(r, 2, "--gamma needs a positive number");
        EXPECT_NE(r.err.find("got '" + g + "'"), std::string::npos) << r.err;
        EXPECT_FALSE(std::filesystem::exists(dir.file("x.png"))) << "gamma " << g;
    }
    const RunResult ok = run_headscope({"export", kUserSpec, "--text", "a b", "--layer", "0",
                                        "--head", "0", "--gamma", "0.5", "--png", "x.png"},
                                       dir);
    EXPECT_EQ(ok.status, 0) << ok.err;
    EXPECT_TRUE(std::filesystem::exists(dir.file("x.png")));
}

// Every output is checked before the first is written: an unwritable later one (here
// --csv, then --json) leaves no file, and nothing on stdout.
TEST(CliExportOutputs, AnUnwritableLaterOutputWritesNothing) {
    TempDir dir;
    const std::vector<std::string> head{"export", kUserSpec, "--text", "a b", "--layer", "0", "--head", "0"};
    std::vector<std::string> args = head;
    args.insert(args.end(), {"--png", "a.png", "--svg", "a.svg", "--csv", "missing/a.csv", "--json", "a.json"});
    RunResult r = run_headscope(args, dir);
    expect_one_line_failure(r, 1, "headscope export: cannot write missing/a.csv: directory missing does not exist");
    for (const char* file : {"a.png", "a.svg", "a.json"}) EXPECT_FALSE(std::filesystem::exists(dir.file(file))) << file;

    args = head;
    args.insert(args.end(), {"--csv", "-", "--json", "/proc/a.json"});
    r = run_headscope(args, dir);
    expect_one_line_failure(r, 1, "cannot write /proc/a.json");
    EXPECT_EQ(r.out, "");
}

TEST(CliExportStdout, CsvOnStdoutIsNotMixedWithStatusLines) {
    TempDir dir;
    const RunResult r = run_headscope({"export", kUserSpec, "--text", "a b c", "--layer", "0",
                                       "--head", "1", "--png", "h.png", "--csv", "-"},
                                      dir);
    ASSERT_EQ(r.status, 0) << r.err;
    // stdout is exactly the CSV: a header and one row per query token.
    EXPECT_EQ(r.out.rfind("query,\"a\",\"b\",\"c\"\n", 0), 0u) << r.out;
    EXPECT_EQ(count_lines(r.out), 4u) << r.out;
    EXPECT_EQ(r.out.find("wrote"), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("wrote h.png"), std::string::npos) << r.err;
}

TEST(CliExportStdout, PngToDashIsAUsageErrorNotAFileNamedDash) {
    TempDir dir;
    const RunResult r = run_headscope(
        {"export", kUserSpec, "--text", "a b", "--layer", "0", "--head", "0", "--png", "-"}, dir);
    expect_one_line_failure(r, 2, "--png needs a file name");
    EXPECT_FALSE(std::filesystem::exists(dir.file("-")));
}

TEST(CliForwardJson, TraceTooLargeForJsonIsRefusedWithOneLine) {
    // 4,200 tokens × 4 heads × 1 layer = 70.6 million weights > the 64 million limit.
    TempDir dir;
    std::string text;
    for (int i = 0; i < 4200; ++i) text += "w ";
    test::write_text(dir.file("long.txt"), text);
    const RunResult r = run_headscope({"forward", "random:d_model=4,heads=4,layers=1,max_len=5000",
                                       "--text-file", "long.txt", "--json", "t.json"},
                                      dir);
    expect_one_line_failure(r, 1, "the trace JSON would hold 70 million numbers");
    EXPECT_NE(r.err.find("4200 tokens now"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.file("t.json")));
}

TEST(CliWorkedExample, TextGivenToAWorkedExampleIsReportedAsUnused) {
    TempDir dir;
    const std::string example = std::string(HEADSCOPE_ASSETS_DIR) + "/examples/article_two_heads.json";
    const RunResult r = run_headscope({"forward", example, "--text", "hello world", "--quiet"}, dir);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "note: a worked example carries its own input X; --text is not used\n");
    const RunResult plain = run_headscope({"forward", example, "--quiet"}, dir);
    EXPECT_EQ(plain.status, 0) << plain.err;
    EXPECT_EQ(plain.err, "");
}

// Two outputs naming one file: refused before anything is written (--png and --svg of
// one path left only the SVG, with "wrote" printed twice); also through another spelling
// of the path, and for analyze's --csv and --json.
TEST(CliExportOutputs, TwoOutputsNamingOneFileAreRefused) {
    TempDir dir;
    const std::vector<std::string> head{"export", kUserSpec, "--text", "a b", "--layer", "0", "--head", "0"};
    std::vector<std::string> args = head;
    args.insert(args.end(), {"--png", "same.png", "--svg", "same.png"});
    expect_one_line_failure(run_headscope(args, dir), 2, "--png and --svg both name same.png: give each output its own file");
    EXPECT_FALSE(std::filesystem::exists(dir.file("same.png")));
    args = head;
    args.insert(args.end(), {"--csv", "m.csv", "--json", "./m.csv"});
    expect_one_line_failure(run_headscope(args, dir), 2, "--csv and --json both name ./m.csv");
    expect_one_line_failure(run_headscope({"analyze", kUserSpec, "--text", "a b", "--csv", "-", "--json", "-"}, dir), 2,
                            "--csv and --json both name -");
}

// --text-file reads as a file dropped on the window does: its final line break is no token
// (stories260K read "The dog ran\n" as 7 tokens from a file, the window as 6); --text with
// it is a usage error, not one of them silently ignored.
TEST(CliTextFile, TheFinalLineBreakIsNoTokenAndTextWithItIsAnError) {
    TempDir dir;
    const std::string stories = std::string(HEADSCOPE_SHARED_DIR) + "/models/stories260K/stories260K.bin";
    test::write_text(dir.file("t.txt"), "The dog ran\n");
    const RunResult from_file = run_headscope({"forward", stories, "--text-file", "t.txt", "--json", "f.json"}, dir);
    ASSERT_EQ(from_file.status, 0) << from_file.err;
    const RunResult typed = run_headscope({"forward", stories, "--text", "The dog ran", "--json", "t.json"}, dir);
    ASSERT_EQ(typed.status, 0) << typed.err;
    const RunResult with_newline = run_headscope({"forward", stories, "--text", "The dog ran\n", "--json", "n.json"}, dir);
    ASSERT_EQ(with_newline.status, 0) << with_newline.err;
    const auto tokens = [&](const char* file) {
        std::ifstream in(dir.file(file));
        return nlohmann::json::parse(in).at("tokens");
    };
    ASSERT_EQ(tokens("n.json").size(), tokens("t.json").size() + 1) << "the tokenizer reads a line break";
    EXPECT_EQ(tokens("f.json"), tokens("t.json"));
    EXPECT_EQ(input_text_of_file("x\r\n\n"), "x");
    EXPECT_EQ(input_text_of_file("x\n y"), "x\n y");
    expect_one_line_failure(run_headscope({"forward", kUserSpec, "--text", "a", "--text-file", "t.txt"}, dir), 2,
                            "give the input with --text or with --text-file, not both");
    expect_one_line_failure(run_headscope({"generate", kUserSpec, "--text-file", "t.txt", "--text", "a"}, dir), 2,
                            "not both");
    expect_one_line_failure(run_headscope({"analyze", kUserSpec, "--corpus", "--text-file", "t.txt", "--text", "a"}, dir), 2,
                            "give the sentences with --text-file, or one with --text, not both");
}

TEST(CliForwardJson, NumberCountCoversInputsOutputsAndEveryMap) {
    const auto source = open_source("random:d_model=8,heads=2,layers=3,seed=1");
    SourceInput in;
    in.text = "a b c d e";  // T = 5
    TraceOptions opts;
    opts.scores = true;
    const Trace t = source->run(in, opts);
    // input + final_output: 2·T·D; per layer: output T·D + 2 heads × (weights + scores) T².
    const std::size_t T = 5, D = 8, L = 3;
    EXPECT_EQ(trace_number_count(t), 2 * T * D + L * (T * D + 2 * 2 * T * T));
    // The count `forward --json` checks before running: the same, from the config alone.
    EXPECT_EQ(trace_number_count(source->config(), T, /*scores=*/true), trace_number_count(t));
    EXPECT_EQ(trace_number_count(source->config(), T, /*scores=*/false), 2 * T * D + L * (T * D + 2 * T * T));
}

TEST(ModelCaptureLimit, MapsBeyondEightGigabytesAreRefusedBeforeAllocating) {
    // 2 layers × 8 heads × 12000² floats = 9.2 GB of maps: refused with the sizes named.
    const Model model = Model::random(
        parse_playground_spec("random:d_model=8,heads=8,layers=2,max_len=65536,vocab=16"));
    ForwardInput in;
    in.ids.assign(12000, 1);
    test::expect_error([&] { model.forward(in, TraceOptions{}); },
                       {"the attention maps of 12000 tokens need 9 GB", "2 layers × 8 heads",
                        "12000×12000", "8 GB limit"});
    // Without captured maps (bench) only per-thread scratch is used: no refusal, and the
    // check is on captured maps only, so a short text still runs.
    in.ids.assign(16, 1);
    EXPECT_EQ(model.forward(in, TraceOptions{}).main.layers.size(), 2u);
}

TEST(PlaygroundSpecUser, SpacesAroundKeysAndValuesAreIgnored) {
    const ModelConfig c = parse_playground_spec("random: d_model = 64 , heads=4,  mask=causal ");
    EXPECT_EQ(c.d_model, 64);
    EXPECT_EQ(c.heads, 4);
    EXPECT_EQ(c.mask, MaskKind::Causal);
}

TEST(PlaygroundSpecUser, AKeyGivenTwiceIsAnError) {
    test::expect_error([] { parse_playground_spec("random:d_model=64,heads=4,d_model=32"); },
                       {"'d_model' is given twice", "d_model=64", "d_model=32"});
    test::expect_error([] { parse_playground_spec("random:act=gelu,activation=relu"); },
                       {"'act' is given twice"});
}

TEST(ConfigJsonUser, NormEpsIsWrittenAsTheShortFloatDecimal) {
    ModelConfig c;
    c.norm_eps = 1e-5f;
    const nlohmann::json j = config_to_json(c);
    EXPECT_EQ(j["norm_eps"].dump(), "1e-05");
    EXPECT_EQ(config_from_json(j).norm_eps, 1e-5f);
    c.norm_eps = 1e-6f;
    EXPECT_EQ(config_to_json(c)["norm_eps"].dump(), "1e-06");
}

}  // namespace
}  // namespace hs
