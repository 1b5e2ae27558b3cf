// End-to-end tests of `headscope forward | inspect | save | bench` and the CLI's error
// exits (DESIGN §5), run as a subprocess; numbers are checked against the library
// called in-process and against hand-computed values.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/cli.h"
#include "core/model/config.h"
#include "core/model/model.h"
#include "core/open_source.h"
#include "core/source.h"
#include "core/kernels/simd.h"
#include "tests/cli_runner.h"

namespace hs {
namespace {

using cli_test::read_text;
using cli_test::run_for_json;
using cli_test::run_headscope;
using cli_test::RunResult;
using cli_test::TempDir;
using nlohmann::json;

const std::string kQinText = "我是秦始皇";
const std::string kCausalSpec = "random:d_model=64,heads=4,layers=2,seed=7,mask=causal";
const std::string kOpenSpec = "random:d_model=64,heads=4,layers=2,seed=7,mask=none";
const std::string kEncDecSpec =
    "random:d_model=32,heads=2,layers=2,seed=5,arch=encoder-decoder,mask=causal";
const std::string kTwoHeadsExample =
    std::string(HEADSCOPE_ASSETS_DIR) + "/examples/article_two_heads.json";

// Shape of a JSON matrix, checking every row has the same length.
std::pair<std::size_t, std::size_t> shape_of(const json& m) {
    EXPECT_TRUE(m.is_array());
    const std::size_t cols = m.empty() ? 0 : m[0].size();
    for (const json& row : m) EXPECT_EQ(row.size(), cols);
    return {m.size(), cols};
}

float max_abs_diff(const json& m, const Matrix& ref) {
    EXPECT_EQ(m.size(), static_cast<std::size_t>(ref.rows()));
    float worst = 0.0f;
    for (Eigen::Index i = 0; i < ref.rows() && i < static_cast<Eigen::Index>(m.size()); ++i) {
        EXPECT_EQ(m[i].size(), static_cast<std::size_t>(ref.cols()));
        for (Eigen::Index j = 0; j < ref.cols() && j < static_cast<Eigen::Index>(m[i].size()); ++j)
            worst = std::max(worst, std::abs(m[i][j].get<float>() - ref(i, j)));
    }
    return worst;
}

Trace library_trace(const std::string& spec, const std::string& text) {
    SourceInput in;
    in.text = text;
    return open_source(spec)->run(in, TraceOptions{});
}

// An error exit: non-zero status, no crash, exactly one line on stderr naming `phrase`.
void expect_one_line_error(const RunResult& r, const std::string& phrase) {
    EXPECT_TRUE(r.exited) << "killed by signal " << r.status;
    EXPECT_NE(r.status, 0);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(r.err.empty() || r.err.back() != '\n') << r.err;
    EXPECT_NE(r.err.find(phrase), std::string::npos) << "stderr: " << r.err;
}

// ---------------------------------------------------------------- forward --json

// --help lists every command and, in the binary with the window, every window option.
TEST(CliHelp, ListsTheCommandsAndTheWindowOptions) {
    TempDir dir;
    const RunResult r = run_headscope({"--help"}, dir);
    ASSERT_EQ(r.status, 0) << r.err;
    for (const char* command : {"headscope train", "headscope analyze MODEL --relations", "headscope corpus", "default"})
        EXPECT_NE(r.out.find(command), std::string::npos) << command;
#ifdef HEADSCOPE_BINARY_HAS_WINDOW
    for (const char* option : {"--model MODEL", "--text TEXT", "--layer L", "--head H", "--size WxH", "--screenshot FILE",
                               "--script FILE", "--no-settings", "--colormap NAME", "docs/SCRIPTING.md"})
        EXPECT_NE(r.out.find(option), std::string::npos) << option;
#endif
}

// `COMMAND --help`, `COMMAND -h` and `help COMMAND` print the same help of that command
// alone on stdout: what it does, its usage lines and its options; exit status 0.
TEST(CliHelp, EachCommandHasItsOwnHelpThreeWays) {
    TempDir dir;
    for (const char* command :
         {"forward", "export", "inspect", "bench", "save", "train", "generate", "ablate", "analyze", "corpus"}) {
        SCOPED_TRACE(command);
        const RunResult help = run_headscope({"help", command}, dir);
        ASSERT_EQ(help.status, 0) << help.err;
        EXPECT_EQ(help.err, "");
        EXPECT_EQ(help.out.rfind(std::string("headscope ") + command + ": ", 0), 0u) << help.out;
        EXPECT_NE(help.out.find("\nusage:\n  headscope " + std::string(command)), std::string::npos) << help.out;
        EXPECT_EQ(help.out.find("commands:"), std::string::npos) << "not the global help";
        EXPECT_EQ(help.out.find("--screenshot"), std::string::npos) << "not the window's options";
        for (const char* flag : {"--help", "-h"}) {
            const RunResult r = run_headscope({command, flag}, dir);
            EXPECT_EQ(r.status, 0) << flag << ": " << r.err;
            EXPECT_EQ(r.out, help.out) << flag;
            EXPECT_EQ(r.err, "") << flag;
        }
    }
}

TEST(CliHelp, CommandHelpNamesItsOptionsAndTheModelForms) {
    TempDir dir;
    RunResult r = run_headscope({"export", "--help"}, dir);
    ASSERT_EQ(r.status, 0) << r.err;
    for (const char* text : {"heatmap PNG/SVG/CSV/JSON of one head", "options:", "--layer L --head H", "--colormap NAME",
                             "MODEL is one of", "input options: --text"})
        EXPECT_NE(r.out.find(text), std::string::npos) << text;
    // --help after other arguments: the help, and nothing run.
    r = run_headscope({"train", "copy", "--steps", "5", "--help"}, dir);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("--save DIR"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("MODEL is one of"), std::string::npos) << "train takes no MODEL";
    EXPECT_EQ(r.out.find("held-out loss"), std::string::npos) << "nothing trained";
}

// "-h" as an option's value is that value, not a request for help.
TEST(CliHelp, DashHAsAnOptionValueIsAValue) {
    TempDir dir;
    const RunResult r = run_headscope({"forward", kCausalSpec, "--text", "-h", "--quiet"}, dir);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "");
}

// A bare word runs the CLI (an unknown command is reported), unless it names an existing
// file or directory: that is a model for the window to open ("Open with").
TEST(CliCommand, ABareWordIsACommandUnlessItIsAnExistingPath) {
    TempDir dir;
    const std::string existing = dir.file("model.gguf");
    test::write_text(existing, "x");
    const auto cli = [](std::vector<std::string> args) {
        args.insert(args.begin(), "headscope");
        std::vector<char*> argv;
        for (std::string& a : args) argv.push_back(a.data());
        return is_cli_command(static_cast<int>(argv.size()), argv.data());
    };
    EXPECT_TRUE(cli({"forward", "default"}));
    EXPECT_TRUE(cli({"frobnicate"}));
    EXPECT_TRUE(cli({"--version"}));
    EXPECT_FALSE(cli({existing}));
    EXPECT_FALSE(cli({dir.str()}));
    EXPECT_FALSE(cli({"--model", "default"}));
    EXPECT_FALSE(cli({}));
}

// --version names the version and the git revision of the build.
TEST(CliHelp, VersionNamesTheVersionAndTheRevision) {
    TempDir dir;
    const RunResult r = run_headscope({"--version"}, dir);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(std::regex_search(r.out, std::regex("^headscope [0-9]+\\.[0-9]+\\.[0-9]+ \\(git [0-9a-z.-]+\\)\n"))) << r.out;
}

TEST(CliHelp, HelpForAnUnknownCommandIsAUsageError) {
    TempDir dir;
    RunResult r = run_headscope({"help", "nosuch"}, dir);
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.out, "");
    expect_one_line_error(r, "headscope help: unknown command 'nosuch' (see 'headscope help')");
    r = run_headscope({"help", "forward", "export"}, dir);
    EXPECT_EQ(r.status, 2);
    expect_one_line_error(r, "unexpected argument 'export'");
}

// A usage mistake points at the command's own help.
TEST(CliHelp, UsageErrorsPointAtTheCommandsHelp) {
    TempDir dir;
    const RunResult r = run_headscope({"forward", kCausalSpec, "--nosuch"}, dir);
    EXPECT_EQ(r.status, 2);
    expect_one_line_error(r, "headscope forward: unknown option --nosuch (see 'headscope help forward')");
}

TEST(CliForward, JsonFollowsTheDesignSchemaWithTraceShapes) {
    TempDir dir;
    const json j = run_for_json({"forward", kCausalSpec, "--text", kQinText, "--json", "t.json"},
                                dir, dir.file("t.json"));
    // 我是秦始皇: one token per CJK character.
    EXPECT_EQ(j.at("tokens"), json({"我", "是", "秦", "始", "皇"}));
    ASSERT_EQ(j.at("ids").size(), 5u);
    EXPECT_EQ(j.at("config").at("d_model"), 64);
    EXPECT_EQ(j.at("config").at("heads"), 4);
    EXPECT_EQ(j.at("config").at("layers"), 2);
    EXPECT_EQ(j.at("config").at("mask"), "causal");
    EXPECT_EQ(shape_of(j.at("input")), std::make_pair(std::size_t{5}, std::size_t{64}));
    ASSERT_EQ(j.at("layers").size(), 2u);
    for (const json& layer : j.at("layers")) {
        ASSERT_EQ(layer.at("heads").size(), 4u);
        for (const json& head : layer.at("heads"))
            EXPECT_EQ(shape_of(head.at("weights")), std::make_pair(std::size_t{5}, std::size_t{5}));
        EXPECT_EQ(shape_of(layer.at("output")), std::make_pair(std::size_t{5}, std::size_t{64}));
        EXPECT_FALSE(layer.contains("cross_heads"));
    }
    EXPECT_FALSE(j.contains("decoder"));
    EXPECT_FALSE(j.contains("steps"));
}

TEST(CliForward, EveryWeightRowSumsToOneAndCausalMapsAreZeroAboveTheDiagonal) {
    TempDir dir;
    const json j = run_for_json({"forward", kCausalSpec, "--text", kQinText, "--json", "t.json"},
                                dir, dir.file("t.json"));
    for (std::size_t l = 0; l < j.at("layers").size(); ++l) {
        for (std::size_t h = 0; h < j["layers"][l]["heads"].size(); ++h) {
            SCOPED_TRACE(testing::Message() << "layer " << l << " head " << h);
            const json& w = j["layers"][l]["heads"][h]["weights"];
            for (std::size_t i = 0; i < w.size(); ++i) {
                double sum = 0;
                for (std::size_t k = 0; k < w[i].size(); ++k) {
                    sum += w[i][k].get<double>();
                    if (k > i) EXPECT_EQ(w[i][k].get<double>(), 0.0) << "row " << i << " col " << k;
                    else EXPECT_GT(w[i][k].get<double>(), 0.0);
                }
                EXPECT_NEAR(sum, 1.0, 1e-5) << "row " << i;
            }
        }
    }
}

TEST(CliForward, UnmaskedMapsAttendToFutureKeys) {
    TempDir dir;
    const json j = run_for_json({"forward", kOpenSpec, "--text", kQinText, "--json", "t.json"},
                                dir, dir.file("t.json"));
    const json& w = j.at("layers")[0]["heads"][0]["weights"];
    ASSERT_EQ(w.size(), 5u);
    EXPECT_GT(w[0][4].get<double>(), 0.0);  // first query sees the last key
    double sum = 0;
    for (const json& v : w[0]) sum += v.get<double>();
    EXPECT_NEAR(sum, 1.0, 1e-5);
}

TEST(CliForward, JsonNumbersEqualTheLibraryRunInProcess) {
    TempDir dir;
    const json j = run_for_json({"forward", kCausalSpec, "--text", kQinText, "--json", "t.json"},
                                dir, dir.file("t.json"));
    const Trace ref = library_trace(kCausalSpec, kQinText);
    ASSERT_EQ(ref.main.tokens.size(), 5u);
    EXPECT_EQ(j.at("ids"), json(ref.main.ids));
    EXPECT_LT(max_abs_diff(j.at("input"), ref.main.input), 1e-6f);
    ASSERT_EQ(j.at("layers").size(), ref.main.layers.size());
    for (std::size_t l = 0; l < ref.main.layers.size(); ++l) {
        const LayerTrace& lt = ref.main.layers[l];
        for (std::size_t h = 0; h < lt.self_attn.weights.size(); ++h) {
            SCOPED_TRACE(testing::Message() << "layer " << l << " head " << h);
            EXPECT_LT(max_abs_diff(j["layers"][l]["heads"][h]["weights"], lt.self_attn.weights[h]),
                      1e-6f);
        }
        EXPECT_LT(max_abs_diff(j["layers"][l]["output"], lt.output), 1e-6f);
    }
}

TEST(CliForward, SameSpecAndTextGiveByteIdenticalJson) {
    TempDir dir;
    for (const char* name : {"a.json", "b.json"}) {
        const RunResult r = run_headscope(
            {"forward", kCausalSpec, "--text", kQinText, "--json", name}, dir);
        ASSERT_EQ(r.status, 0) << r.err;
    }
    const std::string a = read_text(dir.file("a.json")), b = read_text(dir.file("b.json"));
    EXPECT_GT(a.size(), 1000u);
    EXPECT_TRUE(a == b) << "two runs of the same spec and text differ";
    // A different seed is a different model: the test above can fail.
    const RunResult r = run_headscope(
        {"forward", "random:d_model=64,heads=4,layers=2,seed=8,mask=causal", "--text", kQinText,
         "--json", "c.json"},
        dir);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(read_text(dir.file("c.json")), a);
}

TEST(CliForward, DetailLayerAddsEveryAttentionStep) {
    TempDir dir;
    const json j = run_for_json(
        {"forward", kCausalSpec, "--text", kQinText, "--detail-layer", "0", "--json", "t.json"},
        dir, dir.file("t.json"));
    ASSERT_TRUE(j.contains("steps"));
    const json& s = j["steps"];
    EXPECT_EQ(s.at("layer"), 0);
    EXPECT_EQ(s.at("block"), "self");
    EXPECT_NEAR(s.at("scale").get<double>(), 1.0 / std::sqrt(16.0), 1e-7);  // d_k = 64 / 4
    EXPECT_EQ(shape_of(s.at("qkv")), std::make_pair(std::size_t{5}, std::size_t{192}));
    ASSERT_EQ(s.at("heads").size(), 4u);
    for (std::size_t h = 0; h < 4; ++h) {
        SCOPED_TRACE(testing::Message() << "head " << h);
        const json& sh = s["heads"][h];
        EXPECT_EQ(shape_of(sh.at("q")), std::make_pair(std::size_t{5}, std::size_t{16}));
        EXPECT_EQ(sh.at("weights"), j["layers"][0]["heads"][h]["weights"]);
        // Causal: the masked scores above the diagonal are −∞, written as null.
        EXPECT_TRUE(sh.at("masked_scores")[0][1].is_null());
        EXPECT_FALSE(sh.at("masked_scores")[1][0].is_null());
    }
}

TEST(CliForward, EncoderDecoderJsonHasDecoderWithCrossHeads) {
    TempDir dir;
    const json j = run_for_json({"forward", kEncDecSpec, "--text", "the cat sat", "--decoder-text",
                                 "le chat", "--json", "t.json"},
                                dir, dir.file("t.json"));
    EXPECT_EQ(j.at("tokens"), json({"the", "cat", "sat"}));
    ASSERT_TRUE(j.contains("decoder"));
    const json& d = j["decoder"];
    EXPECT_EQ(d.at("tokens"), json({"le", "chat"}));
    EXPECT_EQ(shape_of(d.at("input")), std::make_pair(std::size_t{2}, std::size_t{32}));
    ASSERT_EQ(d.at("layers").size(), 2u);
    for (const json& layer : d["layers"]) {
        ASSERT_EQ(layer.at("heads").size(), 2u);
        ASSERT_EQ(layer.at("cross_heads").size(), 2u);
        for (const json& head : layer["heads"]) {  // decoder self-attention: causal (2, 2)
            EXPECT_EQ(shape_of(head["weights"]), std::make_pair(std::size_t{2}, std::size_t{2}));
            EXPECT_EQ(head["weights"][0][1].get<double>(), 0.0);
        }
        for (const json& head : layer["cross_heads"]) {  // queries: decoder, keys: encoder
            EXPECT_EQ(shape_of(head["weights"]), std::make_pair(std::size_t{2}, std::size_t{3}));
            for (const json& row : head["weights"]) {
                double sum = 0;
                for (const json& v : row) sum += v.get<double>();
                EXPECT_NEAR(sum, 1.0, 1e-5);
            }
        }
        EXPECT_EQ(shape_of(layer.at("output")), std::make_pair(std::size_t{2}, std::size_t{32}));
    }
    for (const json& layer : j["layers"]) EXPECT_FALSE(layer.contains("cross_heads"));
}

TEST(CliForward, PaddedKeysGetZeroWeightInEveryRow) {
    TempDir dir;
    const json j = run_for_json(
        {"forward", kOpenSpec, "--text", kQinText, "--pad", "1,3", "--json", "t.json"}, dir,
        dir.file("t.json"));
    EXPECT_EQ(j.at("key_padding"), json({1, 3}));
    for (const json& layer : j.at("layers"))
        for (const json& head : layer.at("heads"))
            for (const json& row : head.at("weights")) {
                EXPECT_EQ(row[1].get<double>(), 0.0);
                EXPECT_EQ(row[3].get<double>(), 0.0);
                EXPECT_NEAR(row[0].get<double>() + row[2].get<double>() + row[4].get<double>(), 1.0,
                            1e-5);
            }
}

TEST(CliForward, KeepFirstRunsTheFirstMaxLenTokensAndSaysHowManyWereLeftOut) {
    TempDir dir;
    const std::string spec = "random:d_model=8,heads=2,layers=1,max_len=4";
    const RunResult whole = run_headscope({"forward", spec, "--text", "a b c d e f", "--quiet"}, dir);
    EXPECT_NE(whole.status, 0);
    EXPECT_NE(whole.err.find("the text has 6 tokens; this model handles at most 4; --keep-first runs its first 4"),
              std::string::npos)
        << whole.err;
    const RunResult first = run_headscope(
        {"forward", spec, "--text", "a b c d e f", "--keep-first", "--json", "t.json"}, dir);
    ASSERT_EQ(first.status, 0) << first.err;
    EXPECT_NE(first.err.find("ran the first 4 tokens of the text; 2 more were left out"), std::string::npos)
        << first.err;
    const json j = json::parse(read_text(dir.file("t.json")));
    EXPECT_EQ(j.at("tokens"), json({"a", "b", "c", "d"}));
}

// The map budget's line gives small maps in bytes: layer 0's weights, 2 heads × 3 × 3
// floats = 72 bytes kept, which "0 MiB" made look like nothing.
TEST(CliForward, SmallKeptMapsAreCountedInBytes) {
    TempDir dir;
    const RunResult r = run_headscope(
        {"forward", "random:d_model=32,heads=2,layers=2", "--text", "a b c", "--map-budget", "0", "--quiet"}, dir);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("attention maps: 1 of 2 blocks kept in memory (72 bytes)"), std::string::npos) << r.err;
}

// Words outside the default model's vocabulary are read as <unk>: the CLI says which,
// as the window's input panel does, instead of running them silently.
TEST(CliForward, NamesTheWordsOutsideTheVocabulary) {
    TempDir dir;
    const RunResult known = run_headscope({"forward", "default", "--text", "the cat and the dog", "--quiet"}, dir);
    ASSERT_EQ(known.status, 0) << known.err;
    EXPECT_EQ(known.err.find("vocabulary"), std::string::npos) << known.err;
    const RunResult unknown =
        run_headscope({"forward", "default", "--text", "the zorblax and the fnord zorblax", "--quiet"}, dir);
    ASSERT_EQ(unknown.status, 0) << unknown.err;
    EXPECT_NE(unknown.err.find("note: 2 words are not in the vocabulary of 'default': each was read as its "
                               "unknown token ([zorblax] [fnord])"),
              std::string::npos)
        << unknown.err;
}

// generate says why it added fewer tokens than asked, and which words it read as <unk>:
// "<bos> the zorblax" is 3 of the default model's 64 positions, so 61 fit.
TEST(CliGenerate, SaysWhyItStoppedEarlyAndWhichWordsItCouldNotRead) {
    TempDir dir;
    const RunResult r = run_headscope({"generate", "default", "--text", "the zorblax", "--tokens", "64"}, dir);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("note: generated 61 of the 64 tokens asked for: the model's max_len (64 tokens)"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("note: 1 word is not in the vocabulary of 'default': it was read as its unknown token ([zorblax])"), std::string::npos) << r.err;
    const RunResult few = run_headscope({"generate", "default", "--text", "the cat", "--tokens", "4"}, dir);
    ASSERT_EQ(few.status, 0) << few.err;
    EXPECT_EQ(few.err, "");
}

// A PNG draws a character no installed font has as a box: export names it (Egyptian
// hieroglyphs are in none of the fonts deps.sh installs), and says nothing of the others.
TEST(CliExport, NamesTheCharactersNoFontDraws) {
    TempDir dir;
    const std::string model = "random:d_model=16,heads=2,layers=1,seed=3";
    const RunResult r = run_headscope({"export", model, "--text", "ok \U00013000 猫 😀", "--layer", "0", "--head", "0",
                                       "--png", dir.file("h.png")}, dir);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("note: no installed font has U+13000 \U00013000: the PNG draws a box for each"),
              std::string::npos)
        << r.err;
    const RunResult drawn = run_headscope({"export", model, "--text", "ok 猫 😀", "--layer", "0", "--head", "0",
                                           "--png", dir.file("d.png")}, dir);
    ASSERT_EQ(drawn.status, 0) << drawn.err;
    EXPECT_EQ(drawn.err.find("no installed font"), std::string::npos) << drawn.err;
}

// A llama2.c vocabulary without a piece for a character spells it in bytes: 猫 is 3.
TEST(CliForward, CountsTheCharactersSpelledAsRawBytes) {
    TempDir dir;
    const std::string stories = std::string(HEADSCOPE_SHARED_DIR) + "/models/stories260K/stories260K.bin";
    const RunResult r = run_headscope({"forward", stories, "--text", "the 猫 sat", "--quiet"}, dir);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("note: 3 tokens are raw bytes such as <0xE7>"), std::string::npos) << r.err;  // 猫 = E7 8C AB
}

TEST(CliForward, TextFileAndJsonOnStdoutGiveTheSameTrace) {
    TempDir dir;
    { std::ofstream(dir.file("in.txt")) << kQinText; }
    const RunResult from_file =
        run_headscope({"forward", kCausalSpec, "--text-file", "in.txt", "--json", "-"}, dir);
    ASSERT_EQ(from_file.status, 0) << from_file.err;
    const json a = json::parse(from_file.out);  // stdout holds the JSON and nothing else
    const json b = run_for_json({"forward", kCausalSpec, "--text", kQinText, "--json", "b.json"},
                                dir, dir.file("b.json"));
    EXPECT_EQ(a.at("tokens").size(), 5u);
    EXPECT_TRUE(a == b);
}

// The article's two-head example: both heads have Q = K = V = [[4,6],[6,4]], so the
// scores are [[52,48],[48,52]] / √2 and softmax gives a = 1 / (1 + e^{−4/√2}) ≈ 0.9442.
TEST(CliForward, WorkedTwoHeadExampleGivesHandComputedWeights) {
    TempDir dir;
    const json j = run_for_json({"forward", kTwoHeadsExample, "--json", "t.json"}, dir,
                                dir.file("t.json"));
    const double s_same = 52.0 / std::sqrt(2.0), s_other = 48.0 / std::sqrt(2.0);
    const double a = std::exp(s_same) / (std::exp(s_same) + std::exp(s_other));
    EXPECT_NEAR(a, 0.9442, 1e-4);
    ASSERT_EQ(j.at("layers").size(), 1u);
    ASSERT_EQ(j["layers"][0].at("heads").size(), 2u);
    for (const json& head : j["layers"][0]["heads"]) {
        const json& w = head.at("weights");
        ASSERT_EQ(shape_of(w), std::make_pair(std::size_t{2}, std::size_t{2}));
        EXPECT_NEAR(w[0][0].get<double>(), a, 1e-6);
        EXPECT_NEAR(w[0][1].get<double>(), 1 - a, 1e-6);
        EXPECT_NEAR(w[1][0].get<double>(), 1 - a, 1e-6);
        EXPECT_NEAR(w[1][1].get<double>(), a, 1e-6);
    }
    // head_i = A V with V = [[4,6],[6,4]]; W_O = I, so the output is the heads side by side.
    const double h00 = a * 4 + (1 - a) * 6, h01 = a * 6 + (1 - a) * 4;
    const json& out = j["layers"][0].at("output");
    ASSERT_EQ(shape_of(out), std::make_pair(std::size_t{2}, std::size_t{4}));
    for (int c : {0, 2}) {
        EXPECT_NEAR(out[0][c].get<double>(), h00, 1e-5);
        EXPECT_NEAR(out[0][c + 1].get<double>(), h01, 1e-5);
        EXPECT_NEAR(out[1][c].get<double>(), h01, 1e-5);
        EXPECT_NEAR(out[1][c + 1].get<double>(), h00, 1e-5);
    }
}

// ---------------------------------------------------------------- save / inspect / bench

TEST(CliSave, ForwardOnTheSavedDirectoryGivesTheSameJson) {
    for (const std::string& spec : {kCausalSpec, kEncDecSpec}) {
        SCOPED_TRACE(spec);
        TempDir dir;
        const RunResult saved = run_headscope({"save", spec, "model"}, dir);
        ASSERT_EQ(saved.status, 0) << saved.err;
        EXPECT_TRUE(std::filesystem::exists(dir.file("model/config.json")));
        EXPECT_TRUE(std::filesystem::exists(dir.file("model/model.safetensors")));
        json a = run_for_json({"forward", spec, "--text", kQinText, "--json", "a.json"}, dir,
                              dir.file("a.json"));
        json b = run_for_json({"forward", "model", "--text", kQinText, "--json", "b.json"}, dir,
                              dir.file("b.json"));
        // Only the display name differs (the spec vs the directory).
        EXPECT_EQ(b.at("model"), "model");
        a.erase("model");
        b.erase("model");
        EXPECT_TRUE(a == b) << "the saved directory computes a different trace";
    }
}

TEST(CliInspect, PrintsParameterCountAndTensorShapes) {
    const std::string spec = "random:d_model=512,heads=8,layers=2,seed=1";
    TempDir dir;
    const RunResult r = run_headscope({"inspect", spec}, dir);
    ASSERT_EQ(r.status, 0) << r.err;
    const long long expected = Model::random(parse_playground_spec(spec)).parameter_count();
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.out, m, std::regex("parameters: *([0-9]+)"))) << r.out;
    EXPECT_EQ(std::stoll(m[1]), expected);
    for (const char* line :
         {"layers.0.self_attn.in_proj_weight [1536, 512]", "layers.0.self_attn.in_proj_bias [1536]",
          "layers.1.self_attn.out_proj.weight [512, 512]", "layers.1.linear1.weight [2048, 512]",
          "layers.1.norm2.weight [512]", "embed.weight [8192, 512]"})
        EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
    // The listed tensors add up to the printed count.
    long long listed = 0;
    const std::regex tensor_line(R"(\n +[a-z_.0-9]+ \[([0-9, ]+)\])");
    for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), tensor_line);
         it != std::sregex_iterator(); ++it) {
        long long n = 1;
        std::stringstream dims((*it)[1].str());
        std::string d;
        while (std::getline(dims, d, ',')) n *= std::stoll(d);
        listed += n;
    }
    EXPECT_EQ(listed, expected);
}

TEST(CliInspect, EncoderDecoderTensorsHaveStackPrefixes) {
    TempDir dir;
    const RunResult r = run_headscope({"inspect", kEncDecSpec}, dir);
    ASSERT_EQ(r.status, 0) << r.err;
    for (const char* line : {"encoder.layers.0.self_attn.in_proj_weight [96, 32]",
                             "decoder.layers.1.multihead_attn.in_proj_weight [96, 32]",
                             "decoder.layers.0.norm3.weight [32]"})
        EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
}

TEST(CliBench, ReportsTimingForTheRequestedTokens) {
    TempDir dir;
    const RunResult r = run_headscope(
        {"bench", "random:d_model=32,heads=2,layers=1", "--tokens", "7", "--repeat", "2"}, dir);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("tokens:    7, repeats: 2"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("median"), std::string::npos) << r.out;
    // the multiply-add ceiling beside the GEMM peak, and in the machine-readable line
    EXPECT_NE(r.out.find("ceiling:   "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(" ceiling_gflops="), std::string::npos) << r.out;
    // the time to the first full trace (the load and the first forward) and the peak memory
    EXPECT_NE(r.out.find("first:     "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(" to the first full trace (load "), std::string::npos) << r.out;
    const std::size_t rss = r.out.find(" max_rss_gib=");
    ASSERT_NE(rss, std::string::npos) << r.out;
    EXPECT_GT(std::stod(r.out.substr(rss + 13)), 0.001);  // this process holds more than 1 MiB
    EXPECT_NE(r.out.find(" first_ms="), std::string::npos) << r.out;
}

// HEADSCOPE_SIMD forces a level for one run; bench names the level it ran with.
TEST(CliBench, NamesTheSimdLevelItRanWithAndHonoursHeadscopeSimd) {
    TempDir dir;
    const std::vector<std::string> args{"bench", "random:d_model=32,heads=2,layers=1", "--tokens", "5",
                                        "--repeat", "1"};
    const RunResult best = run_headscope(args, dir);
    ASSERT_EQ(best.status, 0) << best.err;
    const std::string top = kernels::simd_name(kernels::supported_simd_levels().back());
    EXPECT_NE(best.out.find("simd:      " + top), std::string::npos) << best.out;
    setenv("HEADSCOPE_SIMD", "generic", 1);
    const RunResult generic = run_headscope(args, dir);
    setenv("HEADSCOPE_SIMD", "sse9", 1);
    const RunResult unknown = run_headscope(args, dir);
    unsetenv("HEADSCOPE_SIMD");
    ASSERT_EQ(generic.status, 0) << generic.err;
    EXPECT_NE(generic.out.find("simd:      generic"), std::string::npos) << generic.out;
    EXPECT_NE(generic.out.find("simd=generic"), std::string::npos) << generic.out;
    EXPECT_NE(unknown.status, 0);
    EXPECT_NE(unknown.err.find("unknown SIMD level 'sse9': choose avx512, avx2 or generic"),
              std::string::npos)
        << unknown.err;
}

// ---------------------------------------------------------------- error exits

struct ErrorCase {
    std::vector<std::string> args;
    std::string phrase;
};

TEST(CliErrors, EachMistakeGivesOneStderrLineAndNonZeroStatus) {
    const std::string small = "random:d_model=64,heads=4,layers=2";
    const std::vector<ErrorCase> cases = {
        {{"forward", "random:foo=1", "--text", "hi"}, "unknown key 'foo'"},
        {{"forward", "random:d_model=510,heads=8", "--text", "hi"},
         "d_model 510 is not divisible by 8 heads"},
        {{"forward", "no_such_model_dir", "--text", "hi"}, "'no_such_model_dir' does not exist"},
        {{"forward", small, "--text", ""}, "the text is empty"},
        {{"forward", small}, "--text"},
        {{"forward", small, "--text", "hi", "--json", "/nonexistent/dir/x.json"},
         "cannot write /nonexistent/dir/x.json"},
        {{"export", small, "--text", "hi", "--layer", "5", "--head", "0", "--png", "x.png"},
         "layer 5 is out of range: the model has 2 layers"},
        {{"export", small, "--text", "hi", "--layer", "0", "--head", "4", "--png", "x.png"},
         "head 4 is out of range: layer 0 has 4 heads"},
        {{"export", small, "--text", "hi", "--layer", "-1", "--head", "0", "--png", "x.png"},
         "layer -1 is out of range"},
        {{"export", small, "--text", "hi", "--grid", "--layer", "1", "--png", "x.png"},
         "--grid draws every layer and head; --layer L --head H exports one map (without --grid)"},
        {{"export", small, "--text", "hi", "--layer", "0", "--head", "0", "--cross", "--png",
          "x.png"},
         "no cross-attention"},
        {{"export", small, "--text", "hi", "--layer", "0", "--head", "0", "--decoder", "--png", "x.png"},
         "--decoder is for encoder-decoder models; this one has a single stack (arch=encoder), which is what "
         "you get without --decoder"},
        {{"export", small, "--text", "hi", "--layer", "0", "--head", "0", "--png", "x.png",
          "--colormap", "rainbow"},
         "unknown colormap \"rainbow\""},
        {{"forward", small, "--text", "hi", "--detail-layer", "2"},
         "--detail-layer 2 is out of range"},
        {{"forward", small, "stray", "--text", "hi"}, "unexpected argument 'stray'"},
        {{"frobnicate"}, "unknown command 'frobnicate'"},
        {{"forward", small, "--text", "hi", "--bogus"}, "unknown option --bogus"},
        {{"forward", small, "--text"}, "option --text needs a value"},
        {{"bench", small, "--tokens", "0"}, "--tokens 0 is out of range"},
        {{"bench", small, "--tokens", "many"}, "--tokens needs a whole number"},
        {{"inspect"}, "missing MODEL"},
        {{"save", small}, "missing output directory"},
        {{"save", std::string(HEADSCOPE_SHARED_DIR) + "/models/stories260K/stories260K.bin", "out"},
         "cannot be saved without losing its own tokenizer (llama2.c), which a saved model directory does not hold"},
        {{"save", "default", "out"},
         "cannot be saved without losing the tokens of the task it was trained on (trainer.json)"},
    };
    for (const ErrorCase& c : cases) {
        std::string joined;
        for (const auto& a : c.args) joined += a + " ";
        SCOPED_TRACE(joined);
        TempDir dir;
        const RunResult r = run_headscope(c.args, dir);
        expect_one_line_error(r, c.phrase);
        EXPECT_FALSE(std::filesystem::exists(dir.file("x.png"))) << "wrote output despite the error";
    }
}

// A model directory saved by the CLI, then damaged.
class CliBrokenModelDir : public testing::Test {
protected:
    void SetUp() override {
        const RunResult r = run_headscope({"save", "random:d_model=32,heads=2,layers=1", "m"}, dir_);
        ASSERT_EQ(r.status, 0) << r.err;
    }
    RunResult forward() { return run_headscope({"forward", "m", "--text", "hi"}, dir_); }
    TempDir dir_;
};

TEST_F(CliBrokenModelDir, ConfigThatIsNotJsonIsReported) {
    { std::ofstream(dir_.file("m/config.json")) << "{\"d_model\": 32,"; }
    expect_one_line_error(forward(), "m/config.json is not valid JSON");
}

TEST_F(CliBrokenModelDir, ConfigThatDescribesNoModelIsReported) {
    { std::ofstream(dir_.file("m/config.json")) << "{}"; }
    expect_one_line_error(forward(), "m/config.json describes no model: it has neither \"model_type\" (a Hugging "
                                     "Face checkpoint) nor HeadScope's \"d_model\"");
    { std::ofstream(dir_.file("m/config.json")) << "{\"model_type\": 7, \"d_model\": 32}"; }
    expect_one_line_error(forward(), "m/config.json: \"model_type\" must be a string (got 7)");
}

TEST(CliTrainResume, AHuggingFaceDirectoryIsNamedAsNotACheckpoint) {
    TempDir dir;
    const RunResult saved = run_headscope(
        {"save", "random:arch=decoder,d_model=32,heads=2,layers=1,pe=rope,norm=rmsnorm,act=swiglu,bias=0", "llama"}, dir);
    ASSERT_EQ(saved.status, 0) << saved.err;
    expect_one_line_error(run_headscope({"train", "--resume", "llama", "--steps", "1"}, dir),
                          "llama/config.json is a Hugging Face config (model_type \"llama\"), not a HeadScope "
                          "model directory (a config.json with d_model, as headscope train saves)");
}

TEST_F(CliBrokenModelDir, TruncatedSafetensorsIsReported) {
    const std::string path = dir_.file("m/model.safetensors");
    std::filesystem::resize_file(path, std::filesystem::file_size(path) / 2);
    expect_one_line_error(forward(), "outside the data block");
}

TEST_F(CliBrokenModelDir, SafetensorsShorterThanItsHeaderLengthIsReported) {
    std::filesystem::resize_file(dir_.file("m/model.safetensors"), 4);
    expect_one_line_error(forward(), "too small to be a safetensors file");
}

TEST_F(CliBrokenModelDir, MissingConfigIsReported) {
    std::filesystem::remove(dir_.file("m/config.json"));
    expect_one_line_error(forward(), "has no config.json");
}

TEST(CliErrors, OutputPathUnderARegularFileIsReported) {
    TempDir dir;
    { std::ofstream(dir.file("plain")) << "x"; }
    const RunResult r = run_headscope(
        {"forward", "random:d_model=32,heads=2,layers=1", "--text", "hi", "--json", "plain/x.json"},
        dir);
    expect_one_line_error(r, "cannot write plain/x.json");
}

}  // namespace
}  // namespace hs
