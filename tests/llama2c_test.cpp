// stories260K (../shared/models/stories260K, never copied into the repo): greedy decoding,
// tokenizer, per-head weights against tests/gen_llama2c_reference.py (NumPy, float64),
// open_source / CLI integration. A missing model FAILS these tests; it is never skipped.
#include <cstring>
#include <iterator>
#include <limits>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/formats/llama2c.h"
#include "core/generate.h"
#include "core/open_source.h"
#include "core/pretrained_source.h"
#include "core/source.h"
#include "tests/cli_runner.h"
#include "tests/json_fixture.h"
#include "tests/test_util.h"

namespace hs {
namespace {

namespace fs = std::filesystem;

const std::string kModelDir = std::string(HEADSCOPE_SHARED_DIR) + "/models/stories260K";
const std::string kBin = kModelDir + "/stories260K.bin";
const std::string kTok = kModelDir + "/tok512.bin";
// llama2.c doc/stories260K.md, greedy (temperature 0) from BOS.
const std::string kDocumented =
    "Once upon a time, there was a little girl named Lily. She loved to play outside in the park.";

// Loads stories260K once; fails (not skips) the calling test when the files are missing.
const Llama2cCheckpoint& stories() {
    static const Llama2cCheckpoint ckpt = [] {
        if (!fs::exists(kBin) || !fs::exists(kTok))
            throw Error("stories260K is missing: expected " + kBin + " and " + kTok);
        return load_llama2c(kBin, kTok);
    }();
    return ckpt;
}

nlohmann::json reference() {
    return hs::test::json_file(std::string(HEADSCOPE_FIXTURES_DIR) + "/stories260k_layer_ref.json");
}

TEST(Llama2cStories260K, ModelFilesArePresentBesideTheProject) {
    EXPECT_TRUE(fs::exists(kBin)) << kBin << " is missing (see ../shared/models/README.md)";
    EXPECT_TRUE(fs::exists(kTok)) << kTok << " is missing";
}

TEST(Llama2cStories260K, HeaderGivesTheDocumentedArchitecture) {
    const ModelConfig& c = stories().model.config();
    EXPECT_EQ(c.d_model, 64);
    EXPECT_EQ(c.d_ff, 172);
    EXPECT_EQ(c.layers, 5);
    EXPECT_EQ(c.heads, 8);
    EXPECT_EQ(c.kv_heads, 4);
    EXPECT_EQ(c.d_h(), 8);
    EXPECT_EQ(c.family, "llama2.c");
    EXPECT_EQ(c.activation, Activation::SwiGLU);
    EXPECT_EQ(c.pe, PosEncoding::Rotary);
    EXPECT_EQ(c.rope_layout, RopeLayout::Interleaved);
    EXPECT_EQ(c.norm_kind, NormKind::RMSNorm);
    EXPECT_EQ(c.vocab, 512);
    EXPECT_EQ(c.max_len, 512);
    EXPECT_EQ(c.lm_head, LmHead::Tied);
    EXPECT_EQ(stories().model.weights().lm_head.size(), 0);
    // 512·64 + 5·(64 + 4096 + 2·2048 + 4096 + 64 + 3·172·64) + 64
    EXPECT_EQ(stories().model.parameter_count(), 260032);
}

TEST(Llama2cStories260K, GreedyDecodingFromBosReproducesTheDocumentedStory) {
    const auto& s = stories();
    const std::vector<int> expected = s.tokenizer->encode(kDocumented, false).ids;
    ASSERT_EQ(expected.size(), 31u);
    const std::vector<int> generated = generate(s.model, *s.tokenizer, {}, 31);
    EXPECT_EQ(generated, expected);  // token for token
    EXPECT_EQ(s.tokenizer->decode(generated), kDocumented);
    // And the independent NumPy reference's greedy ids (BOS first).
    const auto ref_ids = reference()["greedy_from_bos_ids"].get<std::vector<int>>();
    ASSERT_GE(ref_ids.size(), expected.size() + 1);
    EXPECT_EQ(std::vector<int>(ref_ids.begin() + 1, ref_ids.begin() + 1 + 31), generated);
}

TEST(Llama2cTokenizer, RoundTripsTheDocumentedStory) {
    const auto& tok = *stories().tokenizer;
    const Tokens t = tok.encode(kDocumented);
    ASSERT_FALSE(t.ids.empty());
    EXPECT_EQ(t.ids.front(), 1);  // BOS
    EXPECT_EQ(t.text.front(), "<s>");
    EXPECT_EQ(t.text[1], " Once");  // the leading space shown as a space
    EXPECT_EQ(tok.decode(t.ids), kDocumented);
    std::string joined;
    for (std::size_t i = 1; i < t.text.size(); ++i) joined += t.text[i];
    EXPECT_EQ(joined, " " + kDocumented);
}

TEST(Llama2cTokenizer, MatchesTheReferenceEncoderOnThePrompt) {
    const nlohmann::json ref = reference();
    EXPECT_EQ(stories().tokenizer->encode(ref["prompt"].get<std::string>()).ids,
              ref["ids"].get<std::vector<int>>());
}

TEST(Llama2cTokenizer, FallsBackToByteTokensForUnknownCharacters) {
    const auto& tok = *stories().tokenizer;
    // 秦 = E7 A7 A6 is not in the 512-token vocabulary: three byte tokens, id = byte + 3.
    const Tokens t = tok.encode("秦", false);
    const std::vector<int> expected{tok.find(" "), 0xE7 + 3, 0xA7 + 3, 0xA6 + 3};
    EXPECT_EQ(t.ids, expected);
    EXPECT_EQ(t.text[1], "<0xE7>");
    EXPECT_EQ(tok.decode(t.ids), "秦");
    EXPECT_EQ(tok.display('A' + 3), "A");  // printable ASCII byte tokens as the byte
    EXPECT_EQ(tok.display('\n' + 3), "\\n");
}

// llama2.c's own merge loop, written out: rescan every pair, merge the best (leftmost on
// ties), repeat. The heap-based merge must give the same ids on any symbol sequence.
std::vector<int> reference_merges(const Llama2cTokenizer& tok, std::vector<int> ids) {
    while (true) {
        float best_score = -1e10f;
        int best_id = -1;
        std::size_t best_at = 0;
        for (std::size_t i = 0; i + 1 < ids.size(); ++i) {
            const int id = tok.find(tok.piece(ids[i]) + tok.piece(ids[i + 1]));
            if (id >= 0 && tok.score(id) > best_score) {
                best_score = tok.score(id);
                best_id = id;
                best_at = i;
            }
        }
        if (best_id < 0) return ids;
        ids[best_at] = best_id;
        ids.erase(ids.begin() + static_cast<std::ptrdiff_t>(best_at) + 1);
    }
}

TEST(Llama2cTokenizer, HeapMergesEqualLlama2cMergeLoop) {
    const auto& tok = *stories().tokenizer;
    std::vector<std::string> texts = {kDocumented, "aaaaaaaaaaaaaaaaaaaaaaa", "the the the the", "秦始皇 ate 🙂 ice cream.",
                                      "Lily and Ben went to the park. They saw a big dog!"};
    std::uint64_t state = 7;  // random letter soup: many ties between equal scores
    std::string soup;
    for (int i = 0; i < 3000; ++i) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        soup += " abcdehilmnorst.,"[(state >> 33) % 17];
    }
    texts.push_back(soup);
    for (const std::string& text : texts) {
        SCOPED_TRACE(text.substr(0, 40));
        // The symbols before merging: one per character (or bytes), as encode starts.
        std::vector<int> symbols{tok.find(" ")};
        for (std::size_t i = 0; i < text.size();) {
            std::size_t n = 1;
            while (n < 4 && i + n < text.size() && (static_cast<unsigned char>(text[i + n]) & 0xC0) == 0x80) ++n;
            const int id = tok.find(text.substr(i, n));
            if (id >= 0) symbols.push_back(id);
            else for (std::size_t b = 0; b < n; ++b) symbols.push_back(static_cast<unsigned char>(text[i + b]) + 3);
            i += n;
        }
        const std::vector<int> want = reference_merges(tok, symbols);
        EXPECT_EQ(tok.merge_pairs(symbols), want);
        EXPECT_EQ(tok.encode(text, false).ids, want);
    }
}

TEST(Llama2cTokenizer, EmptyTextIsBosOnly) {
    EXPECT_EQ(stories().tokenizer->encode("").ids, std::vector<int>{1});
    EXPECT_TRUE(stories().tokenizer->encode("", false).ids.empty());
}

TEST(Llama2cTokenizer, RejectsATruncatedFile) {
    cli_test::TempDir dir;
    std::ifstream in(kTok, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_EQ(bytes.size(), 6227u);
    std::ofstream(dir.file("tok.bin"), std::ios::binary) << bytes.substr(0, 3000);
    try {
        Llama2cTokenizer t(dir.file("tok.bin"), 512);
        FAIL() << "no error for a truncated tokenizer";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("of 512 tokens"), std::string::npos) << e.what();
    }
    try {
        Llama2cTokenizer t(kTok, 500);
        FAIL() << "no error for a tokenizer with more tokens than the model";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("bytes follow the 500 tokens"), std::string::npos)
            << e.what();
    }
}

TEST(Llama2cStories260K, LayerTwoHeadWeightsMatchTheNumpyReference) {
    const nlohmann::json ref = reference();
    const auto ids = ref["ids"].get<std::vector<int>>();
    const int layer = ref["layer"].get<int>();
    const Trace trace = stories().model.forward(ForwardInput::of(ids));
    const auto& weights = trace.main.layers[layer].self_attn.weights;
    ASSERT_EQ(weights.size(), ref["weights"].size());
    const int T = static_cast<int>(ids.size());
    float max_diff = 0;
    for (std::size_t h = 0; h < weights.size(); ++h) {
        ASSERT_EQ(weights[h].rows(), T);
        for (int i = 0; i < T; ++i)
            for (int j = 0; j < T; ++j)
                max_diff = std::max(max_diff, std::abs(weights[h](i, j) -
                                                       ref["weights"][h][i][j].get<float>()));
    }
    EXPECT_LT(max_diff, 1e-4f) << "max |Δ| over " << weights.size() << " heads";
    float out_diff = 0;
    for (int i = 0; i < T; ++i)
        for (int d = 0; d < 64; ++d)
            out_diff = std::max(out_diff, std::abs(trace.main.layers[layer].output(i, d) -
                                                   ref["layer_output"][i][d].get<float>()));
    EXPECT_LT(out_diff, 1e-4f);
    const Vector logits = stories().model.next_token_logits(ForwardInput::of(ids));
    float logit_diff = 0;
    for (int v = 0; v < 512; ++v)
        logit_diff = std::max(logit_diff, std::abs(logits(v) - ref["last_logits"][v].get<float>()));
    EXPECT_LT(logit_diff, 1e-3f);  // logits are O(10): 1e-4 relative
}

TEST(Llama2cStories260K, OpenSourceRunsFromBosWhenTheTextIsEmpty) {
    const auto source = open_source(kBin);
    EXPECT_EQ(source->kind(), "llama2.c checkpoint");
    EXPECT_EQ(source->config().arch, Arch::DecoderOnly);
    EXPECT_EQ(source->config().mask, MaskKind::Causal);
    TraceOptions options;
    options.detail_layer = 1;
    const Trace trace = source->run(SourceInput{}, options);
    EXPECT_EQ(trace.main.ids, std::vector<int>{1});
    EXPECT_EQ(trace.config.kv_heads, 4);
    ASSERT_EQ(trace.n_layers(), 5);
    EXPECT_EQ(trace.main.layers[0].self_attn.weights.size(), 8u);
    ASSERT_EQ(trace.next_tokens.size(), 5u);
    EXPECT_EQ(trace.next_tokens[0].text, " Once");  // the story's first token
    // Steps: K heads repeated per query head (heads 2h and 2h+1 read KV head h).
    ASSERT_TRUE(trace.steps);
    EXPECT_EQ(trace.steps->k_heads.size(), 8u);
    EXPECT_TRUE(trace.steps->k_heads[2].isApprox(trace.steps->k_heads[3]));
    EXPECT_EQ(trace.steps->w_in.rows(), 64 + 2 * 32);  // W_in as the model has it: [W_Q; W_K; W_V], 4 K/V heads of 8
}

// A checkpoint whose weights hold a NaN is refused with the tensor and the place: the
// first value of layer 0's attention RMSNorm γ (rms_att_weight, right after the token
// embedding's vocab · dim floats and the 28-byte header). Before, every map came out NaN
// or zero and generate printed <unk>s.
TEST(Llama2cStories260K, RefusesACheckpointWhoseWeightsAreNotFinite) {
    cli_test::TempDir dir;
    std::ifstream in(kBin, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    const std::size_t at = 28 + std::size_t{512} * 64 * 4;  // stories260K: vocab 512, dim 64
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::memcpy(bytes.data() + at, &nan, sizeof nan);
    const std::string path = dir.file("nan.bin");
    std::ofstream(path, std::ios::binary) << bytes;
    hs::test::expect_error([&] { load_llama2c_model(path); },
                           {"llama2.c checkpoint '" + path + "'", "tensor layers.0.norm1.weight holds NaN at [0] (of 64 values)"});
}

TEST(Llama2cStories260K, OpenSourceNamesTheMissingTokenizer) {
    cli_test::TempDir dir;
    fs::copy_file(kBin, dir.file("model.bin"));  // a temporary copy, outside the repo
    try {
        open_source(dir.file("model.bin"));
        FAIL() << "no error without a tokenizer";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("no tokenizer for the llama2.c checkpoint"),
                  std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("tokenizer.bin"), std::string::npos);
    }
}

TEST(Llama2cCli, GenerateFromBosPrintsTheDocumentedStory) {
    cli_test::TempDir dir;
    const auto r = cli_test::run_headscope({"generate", fs::absolute(kBin).string(), "--tokens", "31"}, dir);
    ASSERT_TRUE(r.exited);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, kDocumented + "\n");
}

// forward --json of a real checkpoint describes it as one: its family, no seed (the
// weights were loaded, not drawn) and no config-file format tag.
TEST(Llama2cCli, ForwardJsonConfigSaysTheCheckpointIsNotAPlayground) {
    cli_test::TempDir dir;
    const auto r = cli_test::run_headscope(
        {"forward", fs::absolute(kBin).string(), "--text", "Once upon a time", "--json", "t.json"}, dir);
    ASSERT_TRUE(r.exited);
    ASSERT_EQ(r.status, 0) << r.err;
    std::ifstream in(dir.file("t.json"));
    const nlohmann::json config = nlohmann::json::parse(in).at("config");
    EXPECT_EQ(config.at("family"), "llama2.c");
    EXPECT_EQ(config.at("kv_heads"), 4);
    EXPECT_FALSE(config.contains("seed"));
    EXPECT_FALSE(config.contains("format"));
}

TEST(Llama2cCli, GenerateContinuesAText) {
    cli_test::TempDir dir;
    const auto r = cli_test::run_headscope(
        {"generate", fs::absolute(kBin).string(), "--text", "Once upon a time, there was a little girl named Lily.",
         "--tokens", "16"},
        dir);
    ASSERT_TRUE(r.exited);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, " She loved to play outside in the park.\n");
}

// An empty text runs as BOS alone, one token attending to itself: analyze refuses it
// instead of labelling all 40 heads "self 1.00" and every pair redundant.
TEST(Llama2cCli, AnalyzeRefusesATextOfOneToken) {
    cli_test::TempDir dir;
    const auto r = cli_test::run_headscope({"analyze", fs::absolute(kBin).string(), "--text", ""}, dir);
    ASSERT_TRUE(r.exited);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("head metrics need a text of at least 2 tokens; this one has 1 (<s>)"), std::string::npos)
        << r.err;
}

// A prompt longer than the model's max_len (512) leaves nothing to generate: an error
// with the token count, as forward gives, not an empty continuation with status 0.
TEST(Llama2cCli, GenerateRefusesAPromptOverMaxLen) {
    cli_test::TempDir dir;
    std::string text;
    for (int i = 0; i < 300; ++i) text += "the cat ";
    const auto r = cli_test::run_headscope({"generate", fs::absolute(kBin).string(), "--text", text, "--tokens", "5"}, dir);
    ASSERT_TRUE(r.exited);
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("tokens; this model handles at most 512"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace hs
