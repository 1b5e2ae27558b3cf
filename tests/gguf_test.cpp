// GGUF: the reader, every readable block type, the llama model and SentencePiece tokenizer
// from a file, the real files in ../shared/models/gguf (llama.cpp's conversions), and
// damaged or hostile files. References: tests/gen_gguf_fixtures.py (numpy block decoders,
// a slow SentencePiece encoder and a torch llama forward, none sharing code with core/),
// and llama.cpp's own outputs in ../shared/models/README.md.
#include <cmath>
#include <cstring>
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/formats/gguf.h"
#include "core/formats/gguf_model.h"
#include "core/formats/llama2c.h"
#include "core/generate.h"
#include "core/open_source.h"
#include "tests/gguf_bytes.h"
#include "tests/json_fixture.h"
#include "tests/simd_levels.h"
#include "tests/test_util.h"

namespace hs {
namespace {

namespace fs = std::filesystem;
using test::expect_error;

const std::string kGgufDir = std::string(HEADSCOPE_FIXTURES_DIR) + "/gguf";
const std::string kShared = std::string(HEADSCOPE_SHARED_DIR) + "/models/gguf";
const std::string kStoriesGguf = kShared + "/stories260K-F32.gguf";
const std::string kTiny656 = kShared + "/TinyStories-656K-Q8_0.gguf";
// ../shared/models/README.md: llama.cpp's token ids for this sentence on both files.
const std::string kSentence = "Once upon a time, there was a little girl named Lily. She loved to play outside.";

using hs::test::json_file;

// ---- blocks and metadata ------------------------------------------------------------------

// At every SIMD level: BF16, F16, Q8_0 and Q4_0 convert through the vector kernels
// (core/kernels/stored_rows.h), the other types one value at a time.
class GgufBlocksAtLevel : public test::AtSimdLevel {};
HEADSCOPE_AT_EVERY_SIMD_LEVEL(GgufBlocksAtLevel);

TEST_P(GgufBlocksAtLevel, EveryReadableTypeDequantisesAsTheNumpyReference) {
    const auto file = GgufFile::open(kGgufDir + "/blocks.gguf");
    const nlohmann::json expected = json_file(kGgufDir + "/blocks_expected.json");
    ASSERT_EQ(expected.size(), 14u);
    for (const auto& [name, values] : expected.items()) {
        SCOPED_TRACE(name);
        const Matrix m = file->matrix(name);
        ASSERT_EQ(m.rows(), 2);
        ASSERT_EQ(m.cols(), 256);
        const auto want = values.get<std::vector<float>>();
        int wrong = 0;
        for (Eigen::Index i = 0; i < m.size(); ++i) {
            const float w = want[static_cast<std::size_t>(i)];
            if (std::abs(m.data()[i] - w) > 1e-6f * std::max(1.0f, std::abs(w)) && ++wrong <= 3)
                ADD_FAILURE() << name << " value " << i << ": " << m.data()[i] << " != " << w;
        }
        EXPECT_EQ(wrong, 0);
    }
}

// Every weight is checked finite as it is converted, on the pool's threads: the first value
// that is not (in row order, whichever thread met it) is named with its tensor and place.
TEST_P(GgufBlocksAtLevel, AWeightThatIsNotFiniteIsNamedWithItsPlace) {
    constexpr int kRows = 512, kCols = 256;  // 131072 BF16 values: read by several tasks
    const auto file_with = [&](const std::vector<std::pair<int, std::uint16_t>>& bad) {
        std::vector<std::uint16_t> values(static_cast<std::size_t>(kRows) * kCols, 0x3F80);  // 1.0
        for (const auto& [i, v] : bad) values[static_cast<std::size_t>(i)] = v;
        return GgufBytes().header(3, 1, 0).tensor("blk.0.attn_q.weight", {kCols, kRows}, 30, 0).pad()
            .raw(values.data(), values.size() * 2).bytes;
    };
    const auto error_reading = [&](const std::string& bytes) {
        test::TempDir dir;
        test::write_text(dir.file("w.gguf"), bytes);
        const auto file = GgufFile::open(dir.file("w.gguf"));
        return test::error_of([&] { (void)file->matrix("blk.0.attn_q.weight"); });
    };
    test::expect_contains(error_reading(file_with({{400 * kCols + 7, 0x7FC0}, {100 * kCols + 3, 0x7F80}})),
                          {"w.gguf: tensor 'blk.0.attn_q.weight' holds +inf at [100, 3]", "not finite numbers"});
    test::expect_contains(error_reading(file_with({{kRows * kCols - 1, 0xFF80}})), {"holds -inf at [511, 255]"});
    test::expect_contains(error_reading(file_with({{5, 0x7FC1}})), {"holds NaN at [0, 5]"});
    {  // a vector's place is its index
        std::vector<std::uint16_t> norm(kCols, 0x3F80);
        norm[7] = 0x7FC0;
        test::TempDir vdir;
        test::write_text(vdir.file("v.gguf"), GgufBytes().header(3, 1, 0).tensor("blk.0.attn_norm.weight", {kCols}, 30, 0)
                                                 .pad().raw(norm.data(), norm.size() * 2).bytes);
        const auto file = GgufFile::open(vdir.file("v.gguf"));
        test::expect_contains(test::error_of([&] { (void)file->vector("blk.0.attn_norm.weight"); }),
                              {"v.gguf: tensor 'blk.0.attn_norm.weight' holds NaN at [7];", "does not run the model"});
    }
    test::TempDir dir;
    test::write_text(dir.file("ok.gguf"), file_with({}));
    EXPECT_EQ(GgufFile::open(dir.file("ok.gguf"))->matrix("blk.0.attn_q.weight"), Matrix::Ones(kRows, kCols));
}

TEST(GgufBlocks, TensorTableGivesTypesShapesAndOffsets) {
    const auto file = GgufFile::open(kGgufDir + "/blocks.gguf");
    EXPECT_EQ(file->version(), 3);
    ASSERT_EQ(file->tensors().size(), 14u);
    const GgufTensor* q4k = file->find_tensor("q4_k");
    ASSERT_NE(q4k, nullptr);
    EXPECT_EQ(q4k->type, StoredType::Q4_K);
    EXPECT_EQ(q4k->ne, (std::vector<std::int64_t>{256, 2}));
    EXPECT_EQ(q4k->bytes, 2u * 144);  // 2 rows of one 256-value super-block
    EXPECT_EQ(q4k->offset % 32, 0u);
    EXPECT_EQ(file->find_tensor("nope"), nullptr);
}

TEST(GgufBlocks, ARowRangeReadsThoseRowsAndOnlyRangesWithinTheTensor) {
    const auto file = GgufFile::open(kGgufDir + "/blocks.gguf");
    const GgufTensor& q4k = *file->find_tensor("q4_k");
    EXPECT_EQ(q4k.rows(), 2);
    const Matrix whole = file->matrix("q4_k");
    std::vector<float> row(256);
    file->read_rows(q4k, 1, 1, row.data());
    EXPECT_EQ(Eigen::Map<const Vector>(row.data(), 256), whole.row(1).transpose());
    test::expect_error([&] { file->read_rows(q4k, 1, 2,  row.data()); },
                       {"rows [1, 3) of tensor 'q4_k', which has 2"});
    test::expect_error([&] { file->read_rows(q4k, -1, 1,  row.data()); }, {"tensor 'q4_k'"});
}

TEST(GgufMetadata, EveryValueTypeReadsBack) {
    const auto file = GgufFile::open(kGgufDir + "/blocks.gguf");
    EXPECT_EQ(file->integer("test.B_0"), 7);            // u8
    EXPECT_EQ(file->integer("test.b_1"), -7);           // i8
    EXPECT_EQ(file->integer("test.H_2"), 7);            // u16
    EXPECT_EQ(file->integer("test.h_3"), -300);         // i16
    EXPECT_EQ(file->integer("test.I_4"), 7);            // u32
    EXPECT_EQ(file->integer("test.i_5"), -70000);       // i32
    EXPECT_EQ(file->number("test.f_6"), 0.5);           // f32
    EXPECT_TRUE(file->boolean("test.?_7", false));      // bool
    EXPECT_EQ(file->integer("test.Q_10"), 7);           // u64
    EXPECT_EQ(file->integer("test.q_11"), -(std::int64_t{1} << 40));  // i64
    EXPECT_EQ(file->number("test.d_12"), -2.25);        // f64
    EXPECT_EQ(file->string("test.string"), "héllo ▁wörld");
    EXPECT_EQ(file->numbers("test.floats"), (std::vector<double>{0.5, -1.0, 3.0}));
    EXPECT_EQ(file->strings("test.strings"), (std::vector<std::string>{"a", "", "▁b"}));
    EXPECT_EQ(file->metadata().at("test.nested").type_name, "array of arrays (not read)");
    EXPECT_EQ(file->integer("missing.key", 12), 12);
    expect_error([&] { file->integer("test.string"); }, {"test.string", "is string", "expected an integer"});
    expect_error([&] { file->strings("test.floats"); }, {"array of f32", "expected an array of strings"});
    expect_error([&] { file->string("missing.key"); }, {"no metadata 'missing.key'"});
}

// ---- the tiny llama fixture ---------------------------------------------------------------

TEST(GgufTinyLlama, ConfigComesFromTheMetadata) {
    const auto file = GgufFile::open(kGgufDir + "/tiny_llama.gguf");
    const ModelConfig c = gguf_config(*file);
    EXPECT_EQ(c.family, "llama");
    EXPECT_EQ(c.d_model, 32);
    EXPECT_EQ(c.layers, 2);
    EXPECT_EQ(c.heads, 4);
    EXPECT_EQ(c.kv_head_count(), 2);
    EXPECT_EQ(c.d_ff, 64);
    EXPECT_EQ(c.max_len, 64);
    EXPECT_EQ(c.vocab, static_cast<int>(file->strings("tokenizer.ggml.tokens").size()));
    EXPECT_EQ(c.lm_head, LmHead::Tied);  // no output.weight
    EXPECT_EQ(c.rope_layout, RopeLayout::Interleaved);
    EXPECT_EQ(c.norm_kind, NormKind::RMSNorm);
}

TEST(GgufTinyLlama, TokenizerMatchesTheSlowReferenceEncoder) {
    const nlohmann::json ref = json_file(kGgufDir + "/tiny_llama_expected.json");
    const GgufCheckpoint ckpt = load_gguf(kGgufDir + "/tiny_llama.gguf");
    const Tokens t = ckpt.tokenizer->encode(ref["text"].get<std::string>());
    EXPECT_EQ(t.ids, ref["ids"].get<std::vector<int>>());
    EXPECT_EQ(t.text.at(1), " the");  // "▁the" shown with a space
    // A character no piece spells (猫) as its three byte pieces, which decode puts back.
    const Tokens u = ckpt.tokenizer->encode(ref["unknown_text"].get<std::string>());
    EXPECT_EQ(u.ids, ref["unknown_ids"].get<std::vector<int>>());
    EXPECT_EQ(ckpt.tokenizer->decode(u.ids), ref["unknown_text"].get<std::string>());
}

TEST(GgufTinyLlama, LogitsMatchTheTorchForward) {
    const nlohmann::json ref = json_file(kGgufDir + "/tiny_llama_expected.json");
    const GgufCheckpoint ckpt = load_gguf(kGgufDir + "/tiny_llama.gguf");
    const Vector logits = ckpt.model.next_token_logits(ForwardInput::of(ref["ids"].get<std::vector<int>>()));
    test::expect_values_near(logits, ref["next_token_logits"], 1e-4f, "logit");
}

TEST(GgufTinyLlama, RopeFreqsScaleTheRotaryAsLlama31) {
    // The same weights with a rope_freqs tensor (1, 1, 2.5, 8): θ_i / rope_freqs[i].
    const nlohmann::json ref = json_file(kGgufDir + "/tiny_llama_rope_freqs_expected.json");
    const GgufCheckpoint scaled = load_gguf(kGgufDir + "/tiny_llama_rope_freqs.gguf");
    EXPECT_EQ(scaled.model.config().rope_freq_divisors, (std::vector<float>{1.0f, 1.0f, 2.5f, 8.0f}));
    const ForwardInput in = ForwardInput::of(ref["ids"].get<std::vector<int>>());
    const Vector logits = scaled.model.next_token_logits(in);
    test::expect_values_near(logits, ref["next_token_logits"], 1e-4f, "logit");
    const Vector plain = load_gguf(kGgufDir + "/tiny_llama.gguf").model.next_token_logits(in);
    EXPECT_GT((logits - plain).cwiseAbs().maxCoeff(), 1e-3f);  // the scaling changes the answer
    // The divisors travel with the config (a trace's JSON, a saved config).
    EXPECT_EQ(config_from_json(config_to_json(scaled.model.config())), scaled.model.config());
    ModelConfig wrong = scaled.model.config();
    wrong.rope_freq_divisors.pop_back();
    EXPECT_FALSE(validate(wrong).empty());
}

// ---- the real files -----------------------------------------------------------------------

TEST(GgufShared, FilesArePresentBesideTheProject) {
    EXPECT_TRUE(fs::exists(kStoriesGguf)) << kStoriesGguf << " is missing (see ../shared/models/README.md)";
    EXPECT_TRUE(fs::exists(kTiny656)) << kTiny656 << " is missing";
}

TEST(GgufShared, TokenIdsAreLlamaCppsOnBothFiles) {
    EXPECT_EQ(load_gguf(kStoriesGguf).tokenizer->encode(kSentence).ids,
              (std::vector<int>{1, 403, 407, 261, 378, 432, 383, 286, 261, 376, 298, 315, 421, 395, 317, 426,
                                338, 401, 396, 267, 337, 410, 408, 419, 292, 411, 426}));
    EXPECT_EQ(load_gguf(kTiny656).tokenizer->encode(kSentence).ids,
              (std::vector<int>{1, 80, 147, 201, 282, 215, 286, 158, 420, 177, 1168, 1662, 887, 610, 57, 10}));
}

TEST(GgufShared, ACharacterNoPieceSpellsIsTheUnknownTokenShownAsItself) {
    // TinyStories-656K's vocabulary has no byte pieces: 猫 becomes <unk> (id 0), and its
    // label stays 猫 so that the heatmap and the notes can name it.
    const Tokens t = load_gguf(kTiny656).tokenizer->encode("我 cat", false);
    ASSERT_GE(t.ids.size(), 2u);
    EXPECT_EQ(t.ids[1], 0);
    EXPECT_EQ(t.text[1], "我");
    EXPECT_EQ(t.text.size(), t.ids.size());
}

TEST(GgufShared, Stories260KGreedyTextIsLlamaCpps) {
    const GgufCheckpoint s = load_gguf(kStoriesGguf);
    const std::vector<int> prompt = s.tokenizer->encode("Once upon a time").ids;
    const std::vector<int> generated = generate(s.model, *s.tokenizer, prompt, 32);
    // llama.cpp: "<s> Once upon a time, there was a little girl named Lily. She loved to play
    // outside in the park. One day, she saw|" (| a newline, where its 32 tokens end).
    EXPECT_EQ(s.tokenizer->decode(generated),
              ", there was a little girl named Lily. She loved to play outside in the park. One day, she saw");
    const nlohmann::json ref = json_file(kGgufDir + "/shared_reference.json")["stories260K-F32.gguf"];
    std::vector<int> all = prompt;
    all.insert(all.end(), generated.begin(), generated.end());
    EXPECT_EQ(all, ref["greedy_ids"].get<std::vector<int>>());
}

TEST(GgufShared, Stories260KGgufRunsExactlyAsTheLlama2cCheckpoint) {
    // The same weights, converted by llama.cpp: the two readers must give one model.
    const GgufCheckpoint g = load_gguf(kStoriesGguf);
    const Model bin = load_llama2c_model(std::string(HEADSCOPE_SHARED_DIR) + "/models/stories260K/stories260K.bin");
    const ForwardInput in = ForwardInput::of(g.tokenizer->encode(kSentence).ids);
    EXPECT_EQ(g.model.next_token_logits(in), bin.next_token_logits(in));
}

TEST(GgufShared, TinyStories656KQ8MatchesTheFloatTorchForward) {
    const GgufCheckpoint s = load_gguf(kTiny656);
    const nlohmann::json ref = json_file(kGgufDir + "/shared_reference.json")["TinyStories-656K-Q8_0.gguf"];
    const std::vector<int> prompt = s.tokenizer->encode("Once upon a time").ids;
    EXPECT_EQ(prompt, ref["prompt_ids"].get<std::vector<int>>());
    const Vector logits = s.model.next_token_logits(ForwardInput::of(prompt));
    test::expect_values_near(logits, ref["prompt_logits"], 2e-4f, "logit");
    std::vector<int> all = prompt;
    const std::vector<int> generated = generate(s.model, *s.tokenizer, prompt, 32);
    all.insert(all.end(), generated.begin(), generated.end());
    EXPECT_EQ(all, ref["greedy_ids"].get<std::vector<int>>());
    // llama.cpp (8-bit activations) continues "…lived in a small house with her mom.": the
    // float forward's top two logits after "hou" differ by 0.017, "se" before "se▁".
    EXPECT_EQ(s.tokenizer->decode(generated).rfind(", a little girl named Lily lived in a small house", 0), 0u);
}

TEST(GgufShared, LoadingReportsEachLayerAndCanBeCancelled) {
    std::vector<int> done;
    (void)load_gguf(kStoriesGguf, [&](int d, int total) {
        EXPECT_EQ(total, 5);
        done.push_back(d);
        return true;
    });
    EXPECT_EQ(done, (std::vector<int>{1, 2, 3, 4, 5}));
    EXPECT_THROW((void)open_source(kStoriesGguf, [](int d, int) { return d < 2; }), Cancelled);
}

TEST(GgufShared, OpensThroughOpenSourceByExtensionAndByMagic) {
    const auto by_extension = open_source(kStoriesGguf);
    EXPECT_EQ(by_extension->config().family, "llama");
    test::TempDir dir;
    const std::string renamed = dir.file("stories");  // no extension: found by its magic
    fs::copy_file(kStoriesGguf, renamed);
    const auto by_magic = open_source(renamed);
    EXPECT_EQ(by_magic->config().d_model, 64);
    EXPECT_EQ(by_magic->tokenize("Once").ids, by_extension->tokenize("Once").ids);
}

// ---- damaged and hostile files ------------------------------------------------------------

std::string open_error(const std::string& bytes) {
    test::TempDir dir;
    const std::string path = dir.file("bad.gguf");
    test::write_text(path, bytes);
    return test::error_of([&] { (void)load_gguf(path); });
}

TEST(GgufDamaged, HeaderProblemsAreNamed) {
    test::expect_contains(open_error("GGU"), {"the magic number", "file ends"});
    test::expect_contains(open_error("GGML" + std::string(28, '\0')), {"not a GGUF file"});
    test::expect_contains(open_error(GgufBytes().header(1, 0, 0).bytes), {"version 1", "convert it again"});
    test::expect_contains(open_error(GgufBytes().header(4, 0, 0).bytes), {"version 4", "versions 2 and 3"});
    test::expect_contains(open_error(GgufBytes().header(3, 0, 1u << 30).bytes), {"1073741824 metadata entries"});
    test::expect_contains(open_error(GgufBytes().header(3, 0, 1).str("k").u32(8).u64(1ull << 40).bytes),
                          {"metadata 'k'", "bytes long"});
    test::expect_contains(open_error(GgufBytes().header(3, 0, 1).str("k").u32(9).u32(4).u64(1ull << 40).bytes),
                          {"metadata 'k'", "1099511627776 elements", "bytes left"});
    test::expect_contains(open_error(GgufBytes().header(3, 0, 1).str("k").u32(13).u32(0).bytes),
                          {"value type 13", "does not define"});
    test::expect_contains(open_error(GgufBytes().header(3, 0, 2).kv_u32("k", 1).kv_u32("k", 2).bytes),
                          {"'k' appears twice"});
    test::expect_contains(open_error(GgufBytes().header(3, 0, 1).str("b").u32(7).raw("\x02", 1).bytes),
                          {"bool holding 2"});
    test::expect_contains(open_error(GgufBytes().header(3, 0, 1).kv_u32("general.alignment", 24).bytes),
                          {"general.alignment is 24", "power of two"});
}

TEST(GgufDamaged, TensorTableProblemsAreNamed) {
    const auto one_tensor = [](std::vector<std::uint64_t> ne, std::uint32_t type, std::uint64_t offset,
                               std::size_t data) {
        return GgufBytes().header(3, 1, 0).tensor("w", std::move(ne), type, offset).pad().zeros(data).bytes;
    };
    test::expect_contains(open_error(one_tensor({4, 4, 4, 4, 4}, 0, 0, 64)), {"tensor 'w'", "5 dimensions"});
    test::expect_contains(open_error(one_tensor({4}, 99, 0, 64)), {"type number 99"});
    {  // a known type HeadScope does not convert: the file opens (inspect lists it), reading names it
        test::TempDir dir;
        test::write_text(dir.file("iq2.gguf"), one_tensor({256}, 16, 0, 66));
        const auto file = GgufFile::open(dir.file("iq2.gguf"));
        EXPECT_EQ(file->tensors().at(0).type, StoredType::IQ2_XXS);
        expect_error([&] { file->matrix("w"); }, {"tensor 'w' is stored as IQ2_XXS", "cannot read yet", "Q8_0"});
    }
    test::expect_contains(open_error(one_tensor({48}, 8, 0, 64)), {"rows of 48", "32-value blocks"});
    test::expect_contains(open_error(one_tensor({4}, 0, 8, 64)), {"offset 8", "not a multiple of the alignment 32"});
    test::expect_contains(open_error(one_tensor({64}, 0, 0, 100)), {"256 bytes at offset 0", "runs past the end"});
    test::expect_contains(open_error(one_tensor({1ull << 62, 1ull << 62}, 0, 0, 64)), {"overflows 64 bits"});
    test::expect_contains(open_error(GgufBytes().header(3, 2, 0).tensor("a", {16}, 0, 0).tensor("b", {16}, 0, 32)
                                         .pad().zeros(96).bytes),
                          {"'a' and 'b' overlap"});
    test::expect_contains(open_error(GgufBytes().header(3, 2, 0).tensor("a", {8}, 0, 0).tensor("a", {8}, 0, 32)
                                         .pad().zeros(64).bytes),
                          {"two tensors are named 'a'"});
}

TEST(GgufDamaged, ModelProblemsAreNamed) {
    const auto with_arch = [](const std::string& arch) {
        return GgufBytes().header(3, 0, 3).kv_str("general.architecture", arch)
            .kv_str("tokenizer.ggml.model", "llama").str("tokenizer.ggml.tokens").u32(9).u32(8).u64(0).bytes;
    };
    test::expect_contains(open_error(with_arch("mamba")), {"'mamba' model; HeadScope opens GGUF architectures llama, qwen2, qwen3, gemma, gemma2, gemma3, phi3, gpt2, gptneox, bert so far"});
    test::expect_contains(open_error(with_arch("llama")), {"llama.embedding_length"});
    test::expect_contains(open_error(GgufBytes().header(3, 0, 1).kv_str("general.architecture", "llama").bytes),
                          {"holds no tokenizer"});
    test::expect_contains(open_error(GgufBytes().header(3, 0, 2).kv_str("general.architecture", "llama")
                                         .kv_str("tokenizer.ggml.model", "t5").bytes),
                          {"tokenizer is 't5'", "llama (SentencePiece), gpt2 (byte-level BPE) and bert (WordPiece)"});
}

TEST(GgufDamaged, EveryTruncationOfARealFileIsAnErrorNotACrash) {
    const std::string whole = test::read_text(kGgufDir + "/tiny_llama.gguf");
    ASSERT_GT(whole.size(), 10000u);
    test::TempDir dir;
    const std::string path = dir.file("cut.gguf");
    // Every length inside the header and tensor table, then a spread through the data.
    std::vector<std::size_t> lengths;
    for (std::size_t n = 0; n < 8000 && n < whole.size(); n += 7) lengths.push_back(n);
    for (std::size_t n = 8000; n < whole.size(); n += 997) lengths.push_back(n);
    for (std::size_t n : lengths) {
        test::write_text(path, whole.substr(0, n));
        const std::string message = test::error_of([&] { (void)load_gguf(path); });
        ASSERT_FALSE(message.empty()) << "cut at " << n;
    }
}

TEST(GgufDamaged, AMissingTensorIsNamed) {
    // tiny_llama.gguf with one tensor renamed in place (same length, so every offset holds).
    std::string bytes = test::read_text(kGgufDir + "/tiny_llama.gguf");
    const std::size_t at = bytes.find("blk.1.ffn_up.weight");
    ASSERT_NE(at, std::string::npos);
    bytes.replace(at, 19, "blk.1.ffn_xx.weight");
    test::expect_contains(open_error(bytes), {"no tensor 'blk.1.ffn_up.weight'"});
}

TEST(GgufDamaged, SpecialFilesAreRefusedBeforeOpenCouldBlock) {
    test::expect_error([] { (void)GgufFile::open("/dev/null"); }, {"/dev/null", "not a GGUF file"});
    test::TempDir dir;
    test::expect_error([&] { (void)GgufFile::open(dir.str()); }, {"a directory, not a GGUF file"});
    EXPECT_FALSE(looks_like_gguf(dir.str()));
    EXPECT_TRUE(looks_like_gguf(kGgufDir + "/blocks.gguf"));
}

}  // namespace
}  // namespace hs
