// GGUF byte-level BPE tokenizers ("gpt2") and the qwen2 architecture. References: the npm
// gpt-3-encoder's ids for GPT-2's real vocabulary (tests/fixtures/tokenizers/
// gpt2_reference.json), the tokenizer.json of the same vocabulary (hand-worked ids in
// tests/hf_tokenizer_json_test.cpp), and the torch qwen2 forward of tests/gen_gguf_fixtures.py.
#include <fstream>
#include <optional>
#include <cmath>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/formats/gguf.h"
#include "core/formats/gguf_model.h"
#include "core/open_source.h"
#include "core/tokenize/hf_tokenizer.h"
#include "core/tokenize/wordpiece.h"
#include "tests/gguf_bytes.h"
#include "tests/json_fixture.h"
#include "tests/test_util.h"

namespace hs {
namespace {

using nlohmann::json;

const std::string kFixturesRoot = std::string(HEADSCOPE_FIXTURES_DIR);

using hs::test::json_file;

// GPT-2's encoder.json + vocab.bpe as a vocab-only GGUF file (tokenizer.ggml.model gpt2,
// pre `pre`), the way llama.cpp's converter writes them.
std::string gpt2_vocab_gguf(const std::string& pre) {
    const json encoder = json_file(kFixturesRoot + "/tokenizers/gpt2/encoder.json");
    std::vector<std::string> tokens(encoder.size());
    for (const auto& [token, id] : encoder.items()) tokens.at(id.get<std::size_t>()) = token;
    std::vector<std::string> merges;
    std::ifstream bpe(kFixturesRoot + "/tokenizers/gpt2/vocab.bpe");
    for (std::string line; std::getline(bpe, line);)  // after the "#version" line (merges may start with '#')
        if (!line.empty() && line.rfind("#version", 0) != 0) merges.push_back(line);
    std::vector<std::int32_t> types(tokens.size(), 1);
    types.back() = 3;  // <|endoftext|>
    return GgufBytes()
        .header(3, 0, 6)
        .kv_str("tokenizer.ggml.model", "gpt2")
        .kv_str("tokenizer.ggml.pre", pre)
        .kv_strs("tokenizer.ggml.tokens", tokens)
        .kv_i32s("tokenizer.ggml.token_type", types)
        .kv_strs("tokenizer.ggml.merges", merges)
        .kv_u32("tokenizer.ggml.eos_token_id", 50256)
        .bytes;
}

TEST(GgufBpeTokenizer, GptTwoVocabularyGivesTheNpmReferenceIds) {
    test::TempDir dir;
    test::write_text(dir.file("gpt2-vocab.gguf"), gpt2_vocab_gguf("gpt-2"));
    const auto tokenizer = open_tokenizer_file(dir.file("gpt2-vocab.gguf"));
    ASSERT_NE(tokenizer, nullptr);
    EXPECT_EQ(tokenizer->vocab_size(), 50257);
    const json ref = json_file(kFixturesRoot + "/tokenizers/gpt2_reference.json");
    int checked = 0;
    for (const json& c : ref["cases"]) {
        const std::string text = c["text"];
        // The npm encoder reads "<|endoftext|>" as plain text; HeadScope (as llama.cpp and
        // Hugging Face's added tokens) as the control token: checked below.
        if (text.find("<|endoftext|>") != std::string::npos) continue;
        EXPECT_EQ(tokenizer->encode(text, true).ids, c["ids"].get<std::vector<int>>()) << text;
        EXPECT_EQ(tokenizer->decode(c["ids"].get<std::vector<int>>()), c["decoded"].get<std::string>()) << text;
        ++checked;
    }
    EXPECT_GE(checked, 200);
    EXPECT_EQ(tokenizer->eos_id(), 50256);
    // A control token in the text is one token, as llama.cpp parses specials.
    EXPECT_EQ(tokenizer->encode("Hi<|endoftext|>", true).ids, (std::vector<int>{17250, 50256}));
}

// BOS and EOS of a byte-level GGUF vocabulary: the file's ids; without them (or given as
// none, 4294967295) GPT-2's <|endoftext|>. Only the file's own BOS id goes before a text
// (add_bos_token). A token listed twice is read as its last id, as a tokenizer.json
// object keeps the last of two equal keys.
TEST(GgufBpeTokenizer, BosEosAndPrefixComeFromTheFileOrGptTwosEndOfText) {
    const std::vector<std::string> tokens = {"a", "b", "ab", "<|endoftext|>", "<s>", "a"};
    const auto vocab = [&](std::optional<std::uint32_t> bos, bool add_bos) {
        GgufBytes g;
        g.header(3, 0, 5 + (bos ? 1 : 0) + (add_bos ? 1 : 0))
            .kv_str("tokenizer.ggml.model", "gpt2")
            .kv_str("tokenizer.ggml.pre", "gpt-2")
            .kv_strs("tokenizer.ggml.tokens", tokens)
            .kv_i32s("tokenizer.ggml.token_type", {1, 1, 1, 3, 3, 1})
            .kv_strs("tokenizer.ggml.merges", {"a b"});
        if (bos) g.kv_u32("tokenizer.ggml.bos_token_id", *bos);
        if (add_bos) g.kv_bool("tokenizer.ggml.add_bos_token", true);
        test::TempDir dir;
        test::write_text(dir.file("v.gguf"), g.bytes);
        return open_tokenizer_file(dir.file("v.gguf"));
    };
    const auto plain = vocab(std::nullopt, false);
    EXPECT_EQ(plain->bos_id(), 3);
    EXPECT_EQ(plain->eos_id(), 3);
    EXPECT_EQ(plain->encode("ab", true).ids, (std::vector<int>{2}));
    EXPECT_EQ(plain->encode("a", true).ids, (std::vector<int>{5}));
    const auto with_bos = vocab(4, true);
    EXPECT_EQ(with_bos->bos_id(), 4);
    EXPECT_EQ(with_bos->encode("ab", true).ids, (std::vector<int>{4, 2}));
    EXPECT_EQ(with_bos->encode("ab", false).ids, (std::vector<int>{2}));
    const auto no_bos_id = vocab(std::nullopt, true);  // nothing to add: no prefix
    EXPECT_EQ(no_bos_id->bos_id(), 3);
    EXPECT_EQ(no_bos_id->encode("ab", true).ids, (std::vector<int>{2}));
    const auto none = vocab(4294967295u, true);
    EXPECT_EQ(none->bos_id(), 3);
    EXPECT_EQ(none->encode("ab", true).ids, (std::vector<int>{2}));
}

TEST(GgufBpeTokenizer, AnUnknownPreTokenizerIsNamed) {
    test::TempDir dir;
    test::write_text(dir.file("v.gguf"), gpt2_vocab_gguf("bloom"));
    test::expect_error([&] { (void)open_tokenizer_file(dir.file("v.gguf")); },
                       {"pre-tokenizer 'bloom'", "HeadScope reads default, gpt-2, llama-bpe", "starcoder, refact"});
}

// The pre-tokenizer type decides the pieces BPE sees (split_stages_test.cpp checks the
// splits themselves): with GPT-2's vocabulary, starcoder and deepseek-coder give digits
// one at a time (GPT-2's ids: "x" 87, "Ġ" 220, "1" 16, "2" 17, "Ġ12" 1105), falcon and
// default cut numbers into threes ("123" 10163, "4" 19).
TEST(GgufBpeTokenizer, ThePreTokenizerTypeChoosesThePieces) {
    test::TempDir dir;
    const auto ids = [&](const std::string& pre, const std::string& text) {
        test::write_text(dir.file(pre + ".gguf"), gpt2_vocab_gguf(pre));
        const auto tokenizer = open_tokenizer_file(dir.file(pre + ".gguf"));
        const std::vector<int> out = tokenizer->encode(text, false).ids;
        EXPECT_EQ(tokenizer->decode(out), text) << pre;
        return out;
    };
    EXPECT_EQ(ids("gpt-2", "x 12"), (std::vector<int>{87, 1105}));
    EXPECT_EQ(ids("starcoder", "x 12"), (std::vector<int>{87, 220, 16, 17}));
    EXPECT_EQ(ids("deepseek-coder", "x 12"), (std::vector<int>{87, 220, 16, 17}));
    EXPECT_EQ(ids("falcon", "1234"), (std::vector<int>{10163, 19}));
    EXPECT_EQ(ids("default", "1234"), (std::vector<int>{10163, 19}));
    EXPECT_EQ(ids("deepseek-llm", "1234"), ids("gpt-2", "1234"));  // \p{N}+ keeps the number whole
}

TEST(GgufQwen2, TokenizerAgreesWithTheSameVocabularyAsTokenizerJson) {
    const auto gguf = load_gguf(kFixturesRoot + "/gguf/tiny_qwen2.gguf");
    const auto json_tokenizer = load_hf_tokenizer(kFixturesRoot + "/tokenizers/qwen2_tiny");
    for (const std::string text : {"hello world", "hello  world\n", "hello<|endoftext|>world", "he'll 1 2",
                                   "worldhello", ""})
        EXPECT_EQ(gguf.tokenizer->encode(text, true).ids, json_tokenizer->encode(text, true).ids) << text;
}

// The model's next-token logits for the fixture's ids equal the torch forward's to 1e-4.
void expect_torch_logits(const Model& model, const json& ref) {
    const Vector logits = model.next_token_logits(ForwardInput::of(ref["ids"].get<std::vector<int>>()));
    test::expect_values_near(logits, ref["next_token_logits"], 1e-4f, "logit");
}

TEST(GgufQwen2, BiasesAndHalfRotaryMatchTheTorchForward) {
    const auto ckpt = load_gguf(kFixturesRoot + "/gguf/tiny_qwen2.gguf");
    const ModelConfig& c = ckpt.model.config();
    EXPECT_EQ(c.family, "qwen2");
    EXPECT_TRUE(c.qkv_bias);
    EXPECT_FALSE(c.out_bias);
    EXPECT_EQ(c.rope_layout, RopeLayout::RotateHalf);
    EXPECT_FLOAT_EQ(c.rope_theta, 1e6f);
    const json ref = json_file(kFixturesRoot + "/gguf/tiny_qwen2_expected.json");
    expect_torch_logits(ckpt.model, ref);
}

// qwen3: attn_q_norm / attn_k_norm (an RMSNorm of every head's q and k before the
// rotation) and a head size from attention.key_length (4 × 16 = 64 ≠ d_model 32).
TEST(GgufQwen3, QkNormAndAWiderHeadSizeMatchTheTorchForward) {
    const auto ckpt = load_gguf(kFixturesRoot + "/gguf/tiny_qwen3.gguf");
    const ModelConfig& c = ckpt.model.config();
    EXPECT_EQ(c.family, "qwen3");
    EXPECT_TRUE(c.qk_norm);
    EXPECT_FALSE(c.qkv_bias);
    EXPECT_EQ(c.d_h(), 16);
    EXPECT_EQ(c.inner(), 64);
    EXPECT_EQ(ckpt.model.weights().layers[1].self_attn.k_norm.size(), 16);
    const json ref = json_file(kFixturesRoot + "/gguf/tiny_qwen3_expected.json");
    expect_torch_logits(ckpt.model, ref);
}

// gemma: GeGLU and token embeddings × √d_model; the file's norm weights are Gemma's 1 + w
// already (llama.cpp's converter adds the 1), so they are read as stored.
TEST(GgufGemma, GeGluAndScaledEmbeddingsMatchTheTorchForward) {
    const auto ckpt = load_gguf(kFixturesRoot + "/gguf/tiny_gemma.gguf");
    const ModelConfig& c = ckpt.model.config();
    EXPECT_EQ(c.family, "gemma");
    EXPECT_EQ(c.activation, Activation::GeGLU);
    EXPECT_TRUE(c.embed_scale);
    EXPECT_FALSE(c.sandwich_norm);
    EXPECT_EQ(c.lm_head, LmHead::Tied);
    expect_torch_logits(ckpt.model, json_file(kFixturesRoot + "/gguf/tiny_gemma_expected.json"));
}

// gemma2: sandwich norms (post_attention_norm, post_ffw_norm), the file's soft-caps (2 on
// the scores, 5 on the logits), layer 0 local with 3 keys, layer 1 global.
TEST(GgufGemma2, SandwichNormsSoftCapsAndALocalLayerMatchTheTorchForward) {
    const auto ckpt = load_gguf(kFixturesRoot + "/gguf/tiny_gemma2.gguf");
    const ModelConfig& c = ckpt.model.config();
    EXPECT_EQ(c.family, "gemma2");
    EXPECT_TRUE(c.sandwich_norm);
    EXPECT_EQ(c.attn_softcap, 2.0f);
    EXPECT_EQ(c.logit_softcap, 5.0f);
    EXPECT_EQ(c.window, 3);
    EXPECT_EQ(c.window_layers, "LG");
    EXPECT_FLOAT_EQ(c.score_scale(), 1.0f / std::sqrt(8.0f));
    ASSERT_TRUE(ckpt.model.weights().layers[1].post_ffn_norm);
    const json ref = json_file(kFixturesRoot + "/gguf/tiny_gemma2_expected.json");
    expect_torch_logits(ckpt.model, ref);
    const Vector logits = ckpt.model.next_token_logits(ForwardInput::of(ref["ids"].get<std::vector<int>>()));
    EXPECT_LT(logits.cwiseAbs().maxCoeff(), 5.0f);  // within the cap
    EXPECT_GT(logits.cwiseAbs().maxCoeff(), 3.0f);  // and bent by it (tanh of logits that reach ±5)
}

// gemma3: qk-norm, layers L L G (sliding_window_pattern 3) where the local ones turn with
// base 10000 and the global one with freq_base 1e6 stretched by linear rope scaling 4.
TEST(GgufGemma3, LocalLayersWithTheirOwnRopeBaseMatchTheTorchForward) {
    const auto ckpt = load_gguf(kFixturesRoot + "/gguf/tiny_gemma3.gguf");
    const ModelConfig& c = ckpt.model.config();
    EXPECT_EQ(c.family, "gemma3");
    EXPECT_TRUE(c.qk_norm);
    EXPECT_TRUE(c.sandwich_norm);
    EXPECT_EQ(c.window_layers, "LLG");
    EXPECT_EQ(c.rope_local_theta, 10000.0f);
    EXPECT_EQ(c.rope_freq_divisors, std::vector<float>(8, 4.0f));
    EXPECT_EQ(c.attn_softcap, 0.0f);
    expect_torch_logits(ckpt.model, json_file(kFixturesRoot + "/gguf/tiny_gemma3_expected.json"));
}

// gpt2: one attn_qkv tensor with biases, learned positions (position_embd), LayerNorm with
// biases, GELU-tanh, the head tied to token_embd.
TEST(GgufGpt2, FusedQkvAndLearnedPositionsMatchTheTorchForward) {
    const auto ckpt = load_gguf(kFixturesRoot + "/gguf/tiny_gpt2.gguf");
    const ModelConfig& c = ckpt.model.config();
    EXPECT_EQ(c.family, "gpt2");
    EXPECT_EQ(c.pe, PosEncoding::Learned);
    EXPECT_EQ(c.norm_kind, NormKind::LayerNorm);
    EXPECT_EQ(c.activation, Activation::GELUTanh);
    EXPECT_EQ(c.lm_head, LmHead::Tied);
    EXPECT_EQ(ckpt.model.weights().pos_embed.rows(), 64);
    expect_torch_logits(ckpt.model, json_file(kFixturesRoot + "/gguf/tiny_gpt2_expected.json"));
}

// gptneox (Pythia): rotary on 4 of each head's 8 dims, attention and feed-forward side by
// side, GELU with erf, a separate output.
TEST(GgufGptNeox, PartialRotaryAndTheParallelBlockMatchTheTorchForward) {
    const auto ckpt = load_gguf(kFixturesRoot + "/gguf/tiny_gptneox.gguf");
    const ModelConfig& c = ckpt.model.config();
    EXPECT_EQ(c.family, "gptneox");
    EXPECT_EQ(c.rotary_dims, 4);
    EXPECT_TRUE(c.parallel_block);
    EXPECT_EQ(c.activation, Activation::GELU);
    EXPECT_EQ(c.lm_head, LmHead::Separate);
    expect_torch_logits(ckpt.model, json_file(kFixturesRoot + "/gguf/tiny_gptneox_expected.json"));
}

// phi3: attn_qkv with 2 key/value heads, ffn_up holding [gate; up], rotary on 6 of 8 dims,
// a sliding window of 3 keys in every layer.
TEST(GgufPhi3, FusedGateUpPartialRotaryAndWindowMatchTheTorchForward) {
    const auto ckpt = load_gguf(kFixturesRoot + "/gguf/tiny_phi3.gguf");
    const ModelConfig& c = ckpt.model.config();
    EXPECT_EQ(c.family, "phi3");
    EXPECT_EQ(c.kv_heads, 2);
    EXPECT_EQ(c.rotary_dims, 6);
    EXPECT_EQ(c.window, 3);
    EXPECT_EQ(c.window_layers, "");
    EXPECT_EQ(c.activation, Activation::SwiGLU);
    expect_torch_logits(ckpt.model, json_file(kFixturesRoot + "/gguf/tiny_phi3_expected.json"));
}

// bert as llama.cpp writes it: separate q/k/v with biases, post-norm, token types and an
// embedding norm, no head. The last layer's output at the first and last positions is
// Hugging Face's BertModel's (tests/gen_gguf_fixtures.py: bert_hidden), held in memory and
// read layer by layer.
TEST(GgufBert, PostNormEncoderWithTokenTypesMatchesTheTorchForward) {
    const json ref = json_file(kFixturesRoot + "/gguf/tiny_bert_expected.json");
    const ForwardInput in = ForwardInput::of(ref["ids"].get<std::vector<int>>());
    for (const WeightResidency residency : {WeightResidency::InMemory, WeightResidency::PerLayer}) {
        const auto ckpt = load_gguf(kFixturesRoot + "/gguf/tiny_bert.gguf", nullptr, residency);
        const ModelConfig& c = ckpt.model.config();
        EXPECT_EQ(c.family, "bert");
        EXPECT_EQ(c.arch, Arch::EncoderOnly);
        EXPECT_EQ(c.mask, MaskKind::None);
        EXPECT_EQ(c.norm, NormPlacement::PostLN);
        EXPECT_EQ(c.lm_head, LmHead::None);
        EXPECT_EQ(c.type_vocab, 2);
        EXPECT_TRUE(c.embed_norm);
        const Matrix out = ckpt.model.forward(in).main.final_output;
        ASSERT_EQ(out.rows(), static_cast<Eigen::Index>(in.ids.size()));
        for (const auto& [row, key] : {std::pair{Eigen::Index{0}, "hidden_first"}, {out.rows() - 1, "hidden_last"}})
            test::expect_values_near(out.row(row).transpose(), ref[key], 1e-4f, key);
    }
}

// The file's vocabulary is vocab.txt's in llama.cpp's spelling ("▁the", "ing" for "##ing",
// "[CLS]" kept): read back, it gives the ids the vocab.txt tokenizer gives (itself checked
// against Hugging Face's BertTokenizer in wordpiece_test.cpp), [CLS] … [SEP] included.
TEST(GgufBert, TheWordPieceVocabularyGivesTheIdsOfItsVocabTxt) {
    const auto ckpt = load_gguf(kFixturesRoot + "/gguf/tiny_bert.gguf");
    const auto lines = read_vocab_txt(kFixturesRoot + "/tokenizers/wordpiece_uncased/vocab.txt");
    const WordPieceTokenizer reference(lines, WordPieceOptions{});
    ASSERT_EQ(ckpt.tokenizer->vocab_size(), static_cast<int>(lines.size()));
    for (const std::string text : {"The cafe is playing", "unaffable PLAYED the [MASK] cafe!", "Café, the caf\xc3\xa9",
                                   "\xe4\xb8\xad the zzz", ""}) {
        EXPECT_EQ(ckpt.tokenizer->encode(text).ids, reference.encode(text).ids) << text;
        EXPECT_EQ(ckpt.tokenizer->encode(text, false).ids, reference.encode(text, false).ids) << text;
    }
    EXPECT_EQ(ckpt.tokenizer->encode("the playing").ids, (std::vector<int>{2, 5, 7, 8, 3}));
    EXPECT_EQ(ckpt.tokenizer->display(8), "##ing");
}

// A bert file that is not the encoder HeadScope reads is refused by name: causal
// attention (nomic/jina variants write other architectures; this one says causal), or no
// token-type embeddings.
TEST(GgufBert, ACausalOneOrOneWithoutTokenTypesIsNamed) {
    const std::string whole = test::read_text(kFixturesRoot + "/gguf/tiny_bert.gguf");
    const auto error_of_bytes = [](const std::string& bytes) {
        test::TempDir dir;
        const std::string path = dir.file("bad.gguf");
        test::write_text(path, bytes);
        return test::error_of([&] { (void)load_gguf(path); });
    };
    std::string causal = whole;
    const std::string key = "bert.attention.causal";
    const std::size_t at = causal.find(key);
    ASSERT_NE(at, std::string::npos);
    ASSERT_EQ(causal[at + key.size()], '\x07');  // the value's type: bool
    causal[at + key.size() + 4] = '\x01';        // after the u32 type
    test::expect_contains(error_of_bytes(causal), {"a causal 'bert' (bert.attention.causal) is not a BERT encoder"});
    std::string untyped = whole;
    const std::size_t name = untyped.find("token_types.weight");
    ASSERT_NE(name, std::string::npos);
    untyped[name + 10] = 'z';  // token_typez.weight
    test::expect_contains(error_of_bytes(untyped), {"has no (token types, d_model) tensor 'token_types.weight'"});
}

}  // namespace
}  // namespace hs
