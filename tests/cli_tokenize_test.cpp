// `headscope tokenize` and the CLI on GGUF files, run as a user would (tests/cli_runner.h).
// References: llama.cpp's token ids and greedy text (../shared/models/README.md) and the
// slow SentencePiece encoder of tests/gen_gguf_fixtures.py.
#include <gtest/gtest.h>

#include "tests/cli_runner.h"

namespace hs::cli_test {
namespace {

const std::string kShared = std::string(HEADSCOPE_SHARED_DIR) + "/models/gguf";
const std::string kTokenizeGgufDir = std::string(HEADSCOPE_FIXTURES_DIR) + "/gguf";

TEST(CliTokenize, PrintsLlamaCppsIdsForAGgufFile) {
    TempDir dir;
    const RunResult r = run_headscope({"tokenize", kShared + "/TinyStories-656K-Q8_0.gguf", "--text",
                                       "Once upon a time, there was a little girl named Lily. She loved to play outside."},
                                      dir);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "1 80 147 201 282 215 286 158 420 177 1168 1662 887 610 57 10\n");
}

TEST(CliTokenize, PiecesAreQuotedAndSpecialTokensCanBeLeftOut) {
    TempDir dir;
    const RunResult r = run_headscope(
        {"tokenize", kShared + "/stories260K-F32.gguf", "--text", "Once upon a 猫", "--pieces", "--no-special"}, dir);
    ASSERT_EQ(r.status, 0) << r.err;
    // 猫 has no piece in this 512-token vocabulary: its three UTF-8 bytes.
    EXPECT_EQ(r.out, "\" Once\" \" upon\" \" a\" \" \" \"<0xE7>\" \"<0x8C>\" \"<0xAB>\"\n");
}

TEST(CliTokenize, AVocabOnlyGgufNeedsNoWeightsAndJsonHoldsIdsAndPieces) {
    TempDir dir;
    const RunResult r = run_headscope({"tokenize", kTokenizeGgufDir + "/tiny_vocab_only.gguf", "--text",
                                       "the cat sat on the mat", "--json", dir.file("t.json")},
                                      dir);
    ASSERT_EQ(r.status, 0) << r.err;
    const auto ref = nlohmann::json::parse(read_text(kTokenizeGgufDir + "/tiny_llama_expected.json"));
    std::string want;
    for (int id : ref["ids"].get<std::vector<int>>()) want += (want.empty() ? "" : " ") + std::to_string(id);
    EXPECT_EQ(r.out, want + "\n");
    const auto j = nlohmann::json::parse(read_text(dir.file("t.json")));
    EXPECT_EQ(j["ids"], ref["ids"]);
    EXPECT_EQ(j["pieces"][1], " the");
    EXPECT_EQ(j["text"], "the cat sat on the mat");
}

TEST(CliTokenize, MistakesAreUsageErrorsAndNothingIsWritten) {
    TempDir dir;
    const RunResult no_text = run_headscope({"tokenize", kShared + "/stories260K-F32.gguf"}, dir);
    EXPECT_EQ(no_text.status, 2);
    EXPECT_NE(no_text.err.find("give the text to tokenize with --text or --text-file"), std::string::npos) << no_text.err;
    const RunResult bad_out = run_headscope(
        {"tokenize", kShared + "/stories260K-F32.gguf", "--text", "hi", "--json", "/nonexistent/dir/t.json"}, dir);
    EXPECT_EQ(bad_out.status, 1);
    EXPECT_EQ(bad_out.out, "");  // refused before any output
    EXPECT_NE(bad_out.err.find("/nonexistent/dir/t.json"), std::string::npos) << bad_out.err;
    const RunResult playground = run_headscope({"tokenize", "random:d_model=8,heads=2", "--text", "a b", "--no-special"}, dir);
    EXPECT_EQ(playground.status, 1);
    EXPECT_NE(playground.err.find("no special tokens to leave out"), std::string::npos) << playground.err;
}

TEST(CliGguf, GenerateAndInspectOpenAGgufFile) {
    TempDir dir;
    const RunResult g = run_headscope(
        {"generate", kShared + "/stories260K-F32.gguf", "--text", "Once upon a time", "--tokens", "32"}, dir);
    ASSERT_EQ(g.status, 0) << g.err;
    // llama.cpp's greedy continuation of the same prompt (32 tokens).
    EXPECT_EQ(g.out, ", there was a little girl named Lily. She loved to play outside in the park. One day, she saw\n");
    // Sampled: the same seed, the same story; sampling options without a temperature are a usage error.
    const std::vector<std::string> sampled = {"generate", kShared + "/stories260K-F32.gguf", "--text", "Once upon a time",
                                              "--temperature", "0.8", "--top-k", "40", "--top-p", "0.95", "--seed", "3"};
    const RunResult s1 = run_headscope(sampled, dir), s2 = run_headscope(sampled, dir);
    ASSERT_EQ(s1.status, 0) << s1.err;
    EXPECT_EQ(s1.out, s2.out);
    EXPECT_GT(s1.out.size(), 20u);
    const RunResult no_temperature = run_headscope(
        {"generate", kShared + "/stories260K-F32.gguf", "--text", "Once", "--seed", "3"}, dir);
    EXPECT_EQ(no_temperature.status, 2);
    EXPECT_NE(no_temperature.err.find("give a --temperature above 0 too"), std::string::npos) << no_temperature.err;
    const RunResult i = run_headscope({"inspect", kShared + "/TinyStories-656K-Q8_0.gguf"}, dir);
    ASSERT_EQ(i.status, 0) << i.err;
    EXPECT_NE(i.out.find("heads:      8 query, 4 key/value (head size 16)"), std::string::npos) << i.out;
    EXPECT_NE(i.out.find("vocab:      2048 (tokenizer 2048)"), std::string::npos) << i.out;
    // From the header alone: the stored types, and what the model takes once open.
    EXPECT_NE(i.out.find("tensors:    21 (Q8_0 ×16, F32 ×5)"), std::string::npos) << i.out;
    EXPECT_NE(i.out.find("parameters: 918144"), std::string::npos) << i.out;
    // 918144 · 8 B = 7.0 MiB with the packed copies; this machine has far more.
    EXPECT_NE(i.out.find("memory:     7.0 MiB once open (f32 weights and their packed copies), "), std::string::npos)
        << i.out;
    EXPECT_NE(i.out.find(" available: opens in memory\n"), std::string::npos) << i.out;
    // A file HeadScope cannot open as a model still shows its header.
    const RunResult b = run_headscope({"inspect", kTokenizeGgufDir + "/blocks.gguf"}, dir);
    ASSERT_EQ(b.status, 0) << b.err;
    EXPECT_NE(b.out.find("opens:      no — "), std::string::npos) << b.out;
    EXPECT_NE(b.out.find("Q6_K ×1, IQ4_NL ×1"), std::string::npos) << b.out;
}

}  // namespace
}  // namespace hs::cli_test
