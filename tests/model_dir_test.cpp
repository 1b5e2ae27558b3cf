// state_dict naming (checked against names PyTorch itself produces), safetensors
// round trips of whole models, and model directories: save -> load gives the same
// weights and the same forward pass; each broken directory gives its own message.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/model/config.h"
#include "core/error.h"
#include "core/io/directory_writer.h"
#include "core/io/hf_llama_dir.h"
#include "core/io/model_dir.h"
#include "core/io/safetensors.h"
#include "core/io/state_dict.h"
#include "core/model/model.h"
#include "core/open_source.h"
#include "core/source.h"
#include "core/model/weights.h"
#include "tests/test_util.h"

namespace fs = std::filesystem;

namespace {

using hs::test::error_of;

using Shape = std::vector<std::int64_t>;
using NamedShapes = std::vector<std::pair<std::string, Shape>>;

// A fresh directory per test, removed afterwards.
class TempDirTest : public testing::Test {
protected:
    std::string path(const std::string& name) const { return tmp_.file(name); }
    hs::test::TempDir tmp_{"hs_model_dir"};
};
using StateDict = TempDirTest;
using ModelDir = TempDirTest;

// A small config: D = 8, H = 2, F = 16, vocab 10, max_len 12.
hs::ModelConfig tiny(hs::Arch arch) {
    hs::ModelConfig c = hs::ModelConfig::defaults_for(arch);
    c.d_model = 8;
    c.heads = 2;
    c.layers = 2;
    c.d_ff = 16;
    c.vocab = 10;
    c.max_len = 12;
    c.seed = 3;
    return c;
}

// Per-layer names and shapes of nn.TransformerEncoderLayer(8, 2, 16).state_dict(), in
// order, as PyTorch prints them.
const NamedShapes kTorchEncoderLayer = {
    {"self_attn.in_proj_weight", {24, 8}}, {"self_attn.in_proj_bias", {24}},
    {"self_attn.out_proj.weight", {8, 8}}, {"self_attn.out_proj.bias", {8}},
    {"linear1.weight", {16, 8}},           {"linear1.bias", {16}},
    {"linear2.weight", {8, 16}},           {"linear2.bias", {8}},
    {"norm1.weight", {8}},                 {"norm1.bias", {8}},
    {"norm2.weight", {8}},                 {"norm2.bias", {8}},
};

// Every tensor of two weight sets, by name, must be bit-identical.
void expect_same_weights(const hs::ModelConfig& config, const hs::ModelWeights& a,
                         const hs::ModelWeights& b) {
    const auto ta = hs::to_state_dict(config, a);
    const auto tb = hs::to_state_dict(config, b);
    ASSERT_EQ(ta.size(), tb.size());
    for (std::size_t i = 0; i < ta.size(); ++i) {
        SCOPED_TRACE(ta[i].name);
        EXPECT_EQ(ta[i].name, tb[i].name);
        EXPECT_EQ(ta[i].shape, tb[i].shape);
        EXPECT_EQ(ta[i].data, tb[i].data);
    }
}

void write_text(const std::string& p, const std::string& text) {
    std::ofstream out(p, std::ios::binary);
    out << text;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Names and shapes

TEST(StateDictNames, PostLnEncoderMatchesPyTorchEncoderLayerNames) {
    const hs::ModelConfig c = tiny(hs::Arch::EncoderOnly);
    ASSERT_EQ(c.norm, hs::NormPlacement::PostLN);
    NamedShapes want = {{"embed.weight", {10, 8}}};
    for (int il = 0; il < 2; ++il)
        for (const auto& [name, shape] : kTorchEncoderLayer)
            want.emplace_back("layers." + std::to_string(il) + "." + name, shape);
    EXPECT_EQ(hs::expected_tensors(c), want);  // no final norm for post-LN
}

TEST(StateDictNames, PreLnAddsFinalNormAndLearnedPeAddsPosEmbed) {
    hs::ModelConfig c = tiny(hs::Arch::DecoderOnly);
    c.norm = hs::NormPlacement::PreLN;
    c.pe = hs::PosEncoding::Learned;
    const auto names = hs::expected_tensors(c);
    ASSERT_EQ(names.size(), 2u + 2 * 12 + 2);
    EXPECT_EQ(names[0], (std::pair<std::string, Shape>{"embed.weight", {10, 8}}));
    EXPECT_EQ(names[1], (std::pair<std::string, Shape>{"pos_embed.weight", {12, 8}}));
    EXPECT_EQ(names[names.size() - 2], (std::pair<std::string, Shape>{"norm.weight", {8}}));
    EXPECT_EQ(names.back(), (std::pair<std::string, Shape>{"norm.bias", {8}}));
}

TEST(StateDictNames, EncoderDecoderMatchesPyTorchTransformerNames) {
    hs::ModelConfig c = tiny(hs::Arch::EncoderDecoder);
    c.layers = 1;
    // nn.Transformer(8, 2, 1, 1, 16).state_dict() as printed by PyTorch, plus embed.weight.
    const NamedShapes want = {
        {"embed.weight", {10, 8}},
        {"encoder.layers.0.self_attn.in_proj_weight", {24, 8}},
        {"encoder.layers.0.self_attn.in_proj_bias", {24}},
        {"encoder.layers.0.self_attn.out_proj.weight", {8, 8}},
        {"encoder.layers.0.self_attn.out_proj.bias", {8}},
        {"encoder.layers.0.linear1.weight", {16, 8}},
        {"encoder.layers.0.linear1.bias", {16}},
        {"encoder.layers.0.linear2.weight", {8, 16}},
        {"encoder.layers.0.linear2.bias", {8}},
        {"encoder.layers.0.norm1.weight", {8}},
        {"encoder.layers.0.norm1.bias", {8}},
        {"encoder.layers.0.norm2.weight", {8}},
        {"encoder.layers.0.norm2.bias", {8}},
        {"encoder.norm.weight", {8}},
        {"encoder.norm.bias", {8}},
        {"decoder.layers.0.self_attn.in_proj_weight", {24, 8}},
        {"decoder.layers.0.self_attn.in_proj_bias", {24}},
        {"decoder.layers.0.self_attn.out_proj.weight", {8, 8}},
        {"decoder.layers.0.self_attn.out_proj.bias", {8}},
        {"decoder.layers.0.multihead_attn.in_proj_weight", {24, 8}},
        {"decoder.layers.0.multihead_attn.in_proj_bias", {24}},
        {"decoder.layers.0.multihead_attn.out_proj.weight", {8, 8}},
        {"decoder.layers.0.multihead_attn.out_proj.bias", {8}},
        {"decoder.layers.0.linear1.weight", {16, 8}},
        {"decoder.layers.0.linear1.bias", {16}},
        {"decoder.layers.0.linear2.weight", {8, 16}},
        {"decoder.layers.0.linear2.bias", {8}},
        {"decoder.layers.0.norm1.weight", {8}},
        {"decoder.layers.0.norm1.bias", {8}},
        {"decoder.layers.0.norm2.weight", {8}},
        {"decoder.layers.0.norm2.bias", {8}},
        {"decoder.layers.0.norm3.weight", {8}},
        {"decoder.layers.0.norm3.bias", {8}},
        {"decoder.norm.weight", {8}},
        {"decoder.norm.bias", {8}},
    };
    EXPECT_EQ(hs::expected_tensors(c), want);
}

TEST(StateDictNames, ToStateDictFlattensRowMajorLikePyTorch) {
    const hs::ModelConfig c = tiny(hs::Arch::EncoderOnly);
    const hs::ModelWeights w = hs::init_weights(c);
    const auto tensors = hs::to_state_dict(c, w);
    ASSERT_EQ(tensors.size(), hs::expected_tensors(c).size());
    const hs::NamedTensor& in_proj = tensors[1];
    ASSERT_EQ(in_proj.name, "layers.0.self_attn.in_proj_weight");
    // element (i, j) of a (24, 8) tensor sits at i·8 + j
    EXPECT_EQ(in_proj.data[5 * 8 + 3], w.layers[0].self_attn.in_proj_weight(5, 3));
    EXPECT_EQ(in_proj.data[23 * 8 + 7], w.layers[0].self_attn.in_proj_weight(23, 7));
}

// ---------------------------------------------------------------------------------------
// Loading from safetensors

TEST_F(StateDict, RoundTripsEveryArchitectureThroughSafetensors) {
    for (hs::Arch arch : {hs::Arch::EncoderOnly, hs::Arch::DecoderOnly, hs::Arch::EncoderDecoder}) {
        for (hs::NormPlacement norm : {hs::NormPlacement::PostLN, hs::NormPlacement::PreLN}) {
            hs::ModelConfig c = tiny(arch);
            c.norm = norm;
            c.pe = norm == hs::NormPlacement::PreLN ? hs::PosEncoding::Learned : hs::PosEncoding::Sinusoidal;
            SCOPED_TRACE(hs::to_playground_spec(c));
            const hs::ModelWeights w = hs::init_weights(c);
            const std::string p = path("m.safetensors");
            hs::write_safetensors(p, hs::to_state_dict(c, w));
            const auto file = hs::SafetensorsFile::open(p);
            const hs::ModelWeights loaded = hs::from_safetensors(c, *file);
            expect_same_weights(c, w, loaded);
            EXPECT_EQ(loaded.final_norm.has_value(), hs::has_final_norm(c));
            EXPECT_EQ(loaded.decoder_final_norm.has_value(), arch == hs::Arch::EncoderDecoder);
            EXPECT_EQ(loaded.pos_embed.rows(), c.pe == hs::PosEncoding::Learned ? 12 : 0);
            ASSERT_EQ(loaded.layers.size(), 2u);
            EXPECT_EQ(loaded.layers[1].self_attn.heads, 2);  // heads come from the config
            if (arch == hs::Arch::EncoderDecoder) {
                EXPECT_EQ(loaded.decoder_layers[0].cross_attn.heads, 2);
            }
        }
    }
}

TEST_F(StateDict, LoadsF16FileConvertingToF32) {
    const hs::ModelConfig c = tiny(hs::Arch::EncoderOnly);
    const auto tensors = hs::to_state_dict(c, hs::init_weights(c));
    // Hand-write the same tensors as F16 (header JSON + little-endian halves).
    nlohmann::json header = nlohmann::json::object();
    std::string data;
    for (const hs::NamedTensor& t : tensors) {
        const std::uint64_t begin = data.size();
        for (float v : t.data) {
            const std::uint16_t h = hs::f32_to_f16(v);
            data.push_back(static_cast<char>(h & 0xFF));
            data.push_back(static_cast<char>(h >> 8));
        }
        header[t.name] = {{"dtype", "F16"}, {"shape", t.shape}, {"data_offsets", {begin, data.size()}}};
    }
    const std::string text = header.dump();
    std::string bytes;
    for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<char>((text.size() >> (8 * i)) & 0xFF));
    const std::string p = path("half.safetensors");
    write_text(p, bytes + text + data);

    const hs::ModelWeights loaded = hs::from_safetensors(c, *hs::SafetensorsFile::open(p));
    const auto got = hs::to_state_dict(c, loaded);
    ASSERT_EQ(got.size(), tensors.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        SCOPED_TRACE(got[i].name);
        for (std::size_t k = 0; k < got[i].data.size(); ++k)
            ASSERT_EQ(got[i].data[k], hs::f16_to_f32(hs::f32_to_f16(tensors[i].data[k])));
    }
}

TEST_F(StateDict, NamesMissingTensor) {
    const hs::ModelConfig c = tiny(hs::Arch::EncoderOnly);
    auto tensors = hs::to_state_dict(c, hs::init_weights(c));
    std::erase_if(tensors, [](const hs::NamedTensor& t) { return t.name == "layers.1.norm2.bias"; });
    const std::string p = path("m.safetensors");
    hs::write_safetensors(p, tensors);
    const auto file = hs::SafetensorsFile::open(p);
    EXPECT_EQ(error_of([&] { hs::from_safetensors(c, *file); }),
              p + " is missing 1 tensor this config needs: layers.1.norm2.bias");
}

TEST_F(StateDict, ReportsShapeMismatchWithBothShapes) {
    hs::ModelConfig c = tiny(hs::Arch::EncoderOnly);
    c.d_model = 32;
    c.heads = 4;
    c.d_ff = 128;
    auto tensors = hs::to_state_dict(c, hs::init_weights(c));
    for (hs::NamedTensor& t : tensors)
        if (t.name == "layers.0.linear1.weight") {
            t.shape = {64, 32};
            t.data.resize(64 * 32);
        }
    const std::string p = path("m.safetensors");
    hs::write_safetensors(p, tensors);
    const auto file = hs::SafetensorsFile::open(p);
    EXPECT_EQ(error_of([&] { hs::from_safetensors(c, *file); }),
              p + ": layers.0.linear1.weight has shape [64, 32], expected [128, 32]");
}

TEST_F(StateDict, NamesExtraTensorsFirstFew) {
    const hs::ModelConfig c = tiny(hs::Arch::EncoderOnly);  // sinusoidal: no pos_embed
    auto tensors = hs::to_state_dict(c, hs::init_weights(c));
    tensors.push_back({"pos_embed.weight", {12, 8}, std::vector<float>(96, 0.0f)});
    const std::string p1 = path("one.safetensors");
    hs::write_safetensors(p1, tensors);
    EXPECT_EQ(error_of([&] { hs::from_safetensors(c, *hs::SafetensorsFile::open(p1)); }),
              p1 + " has 1 tensor this config does not use: pos_embed.weight");

    for (int i = 0; i < 6; ++i) tensors.push_back({std::string("x").append(std::to_string(i)), {1}, {0.0f}});
    const std::string p7 = path("seven.safetensors");
    hs::write_safetensors(p7, tensors);
    EXPECT_EQ(error_of([&] { hs::from_safetensors(c, *hs::SafetensorsFile::open(p7)); }),
              p7 + " has 7 tensors this config does not use: pos_embed.weight, x0, x1, x2, x3, "
                   "… (2 more)");
}

TEST(StateDictNames, ToStateDictRejectsWeightsNotMatchingConfig) {
    const hs::ModelConfig c = tiny(hs::Arch::EncoderOnly);
    hs::ModelWeights w = hs::init_weights(c);
    w.layers[0].ffn.linear1_bias = hs::Vector::Zero(5);
    EXPECT_EQ(error_of([&] { hs::to_state_dict(c, w); }),
              "The weights do not match the config: layers.0.linear1.bias has shape [5], "
              "expected [16]");
    w.layers.pop_back();
    EXPECT_NE(error_of([&] { hs::to_state_dict(c, w); }).find("1 + 0 layers"), std::string::npos);
}

// ---------------------------------------------------------------------------------------
// Model directories

TEST_F(ModelDir, SaveThenLoadGivesIdenticalWeightsAndForwardOutput) {
    for (hs::Arch arch : {hs::Arch::EncoderOnly, hs::Arch::DecoderOnly, hs::Arch::EncoderDecoder}) {
        hs::ModelConfig c = tiny(arch);
        if (arch == hs::Arch::DecoderOnly) {
            c.norm = hs::NormPlacement::PreLN;
            c.pe = hs::PosEncoding::Learned;
        }
        SCOPED_TRACE(hs::to_playground_spec(c));
        const hs::Model model = hs::Model::random(c);
        const std::string dir = path("nested/" + hs::to_string(arch) + "/tiny");  // mkdir -p
        hs::save_model_dir(model, dir);
        const hs::Model loaded = hs::load_model_dir(dir);

        EXPECT_EQ(hs::config_to_json(loaded.config()), hs::config_to_json(c));
        EXPECT_EQ(loaded.name(), "tiny");
        expect_same_weights(c, model.weights(), loaded.weights());

        hs::ForwardInput input;
        input.ids = {1, 7, 3, 9, 0};
        input.tokens = {"a", "b", "c", "d", "e"};
        if (arch == hs::Arch::EncoderDecoder) {
            input.decoder_ids = {4, 2, 8};
            input.decoder_tokens = {"x", "y", "z"};
        }
        const hs::Trace before = model.forward(input);
        const hs::Trace after = loaded.forward(input);
        ASSERT_EQ(after.main.layers.size(), before.main.layers.size());
        for (std::size_t il = 0; il < before.main.layers.size(); ++il)
            for (std::size_t h = 0; h < 2; ++h)
                EXPECT_EQ(after.main.layers[il].self_attn.weights[h],
                          before.main.layers[il].self_attn.weights[h]);
        EXPECT_EQ(after.main.final_output, before.main.final_output);
        ASSERT_EQ(after.decoder.has_value(), arch == hs::Arch::EncoderDecoder);
        if (after.decoder) {
            EXPECT_EQ(after.decoder->final_output, before.decoder->final_output);
        }
        // Sanity: the forward pass produced real numbers (not an empty trace).
        EXPECT_EQ(before.main.final_output.rows(), 5);
    }
}

// A playground decoder with the Llama options saves as a Hugging Face Llama directory
// (model_type llama, HF tensor names) and reopens as a real model with the same trace:
// every head's map, every hidden state, the next-token logits. Interleaved RoPE pairs are
// saved with W_q / W_k rows permuted for HF's rotate-half, so the maps must still agree.
// With a sliding window it is a Mistral (model_type mistral, sliding_window).
TEST_F(ModelDir, LlamaShapedDecoderSavesAsHuggingFaceLlamaAndReopensWithTheSameTrace) {
    for (const char* spec :
         {"random:arch=decoder,d_model=32,heads=4,kv_heads=2,layers=2,pe=rope,rope=interleaved,"
          "norm=rmsnorm,act=swiglu,bias=0,lm_head=separate,vocab=40,max_len=16,seed=9",
          "random:arch=decoder,d_model=24,heads=3,layers=2,pe=rope,norm=rmsnorm,act=swiglu,"
          "bias=0,vocab=40,max_len=16,seed=10",
          // a sliding window of 3 keys: a Mistral
          "random:arch=decoder,d_model=32,heads=4,kv_heads=2,layers=2,pe=rope,norm=rmsnorm,act=swiglu,"
          "bias=0,window=3,vocab=40,max_len=16,seed=11",
          // qk-norm: a Qwen3 (interleaved pairs: γ permuted with the rows)
          "random:arch=decoder,d_model=32,heads=4,layers=2,pe=rope,rope=interleaved,norm=rmsnorm,act=swiglu,"
          "bias=0,qk_norm=1,vocab=40,max_len=16,seed=13"}) {
        SCOPED_TRACE(spec);
        hs::Model original = hs::Model::random(hs::parse_playground_spec(spec));
        for (hs::EncoderLayerWeights& l : original.mutable_weights().layers)  // an uneven γ, so its order shows
            for (hs::Vector* gamma : {&l.self_attn.q_norm, &l.self_attn.k_norm})
                for (Eigen::Index i = 0; i < gamma->size(); ++i) (*gamma)(i) = 0.5f + 0.1f * static_cast<float>(i);
        const std::string dir = path(std::to_string(original.config().seed));
        hs::save_model_dir(original, dir);
        const nlohmann::json j = nlohmann::json::parse(std::ifstream(dir + "/config.json"));
        const bool mistral = original.config().window > 0, qwen3 = original.config().qk_norm;
        EXPECT_EQ(j.at("model_type"), mistral ? "mistral" : qwen3 ? "qwen3" : "llama");
        if (mistral) {
            EXPECT_EQ(j.at("sliding_window"), 3);
        }
        EXPECT_EQ(j.at("num_key_value_heads"), original.config().kv_head_count());
        const auto names = hs::SafetensorsFile::open(dir + "/model.safetensors");
        EXPECT_TRUE(names->has("model.layers.1.self_attn.k_proj.weight"));
        EXPECT_TRUE(names->has("model.layers.0.mlp.gate_proj.weight"));

        const auto reopened = hs::open_source(dir);
        ASSERT_NE(reopened->model(), nullptr);
        hs::ModelConfig want = original.config();
        want.family = mistral ? "mistral" : qwen3 ? "qwen3" : "llama";
        want.rope_layout = hs::RopeLayout::RotateHalf;  // the saved rows are permuted
        want.seed = 0;
        EXPECT_EQ(reopened->config(), want);
        const hs::ForwardInput in = hs::ForwardInput::of({3, 17, 5, 5, 30, 1, 8});
        hs::TraceOptions opt;
        opt.scores = true;
        const hs::Trace a = original.forward(in, opt), b = reopened->model()->forward(in, opt);
        for (int l = 0; l < 2; ++l) {
            ASSERT_EQ(a.main.layers[l].self_attn.weights.size(), std::size_t(original.config().heads));
            ASSERT_EQ(b.main.layers[l].self_attn.weights.size(), std::size_t(original.config().heads));
            for (std::size_t h = 0; h < a.main.layers[l].self_attn.weights.size(); ++h) {
                EXPECT_LT((a.main.layers[l].self_attn.weights[h] - b.main.layers[l].self_attn.weights[h])
                              .cwiseAbs().maxCoeff(), 1e-6f);
                EXPECT_LT((a.main.layers[l].self_attn.scores[h] - b.main.layers[l].self_attn.scores[h])
                              .cwiseAbs().maxCoeff(), 1e-5f);
            }
            EXPECT_LT((a.main.layers[l].output - b.main.layers[l].output).cwiseAbs().maxCoeff(), 1e-5f);
        }
        EXPECT_EQ(a.next_token_logits.size(), b.next_token_logits.size());
        EXPECT_EQ(a.next_token_logits.size() > 0, original.config().lm_head != hs::LmHead::None);
        if (a.next_token_logits.size()) {
            EXPECT_LT((a.next_token_logits - b.next_token_logits).cwiseAbs().maxCoeff(), 1e-4f);
        }
        // A text run uses the playground tokenizer, as the original model does.
        hs::SourceInput text;
        text.text = "the cat sat";
        EXPECT_EQ(reopened->run(text, {}).main.ids, hs::make_model_source(original)->run(text, {}).main.ids);
    }
}

// A Llama-shaped decoder with GPT-NeoX's options (parallel block, partial rotary) or
// GPT-Neo's (local/global layers, unscaled scores) has no Llama names for them: it saves in
// HeadScope's own layout and reopens with the same maps.
TEST_F(ModelDir, NeoxAndNeoOptionsKeepHeadScopesLayoutAndTheirMaps) {
    const std::string llama =
        "random:arch=decoder,d_model=16,heads=2,layers=2,pe=rope,norm=rmsnorm,act=swiglu,bias=0,vocab=30,max_len=16,"
        "seed=14,";
    for (const char* options : {"rotary_dims=4,parallel=1", "window=2,window_layers=LG,scale=1"}) {
        SCOPED_TRACE(options);
        const hs::Model original = hs::Model::random(hs::parse_playground_spec(llama + options));
        ASSERT_FALSE(hs::is_llama_shaped(original.config()));
        const std::string dir = path("neox_" + std::to_string(std::string(options).size()));
        hs::save_model_dir(original, dir);
        const nlohmann::json j = nlohmann::json::parse(std::ifstream(dir + "/config.json"));
        EXPECT_EQ(j.at("format"), "headscope-playground");
        const auto reopened = hs::open_source(dir);
        EXPECT_EQ(reopened->config(), original.config());
        const hs::ForwardInput in = hs::ForwardInput::of({1, 2, 3, 4, 5});
        const hs::Trace a = original.forward(in, {}), b = reopened->model()->forward(in, {});
        EXPECT_EQ(a.main.layers[1].output, b.main.layers[1].output);
    }
}

// A windowed decoder with biases is no Mistral (which has none): it saves in HeadScope's
// own layout, its config.json keeping the window, and reopens with it.
TEST_F(ModelDir, AWindowedDecoderWithBiasesKeepsItsWindowInHeadScopesLayout) {
    const hs::Model original = hs::Model::random(hs::parse_playground_spec(
        "random:arch=decoder,d_model=16,heads=2,layers=1,pe=rope,norm=rmsnorm,act=swiglu,bias=1,window=2,"
        "vocab=30,max_len=16,seed=12"));
    const std::string dir = path("windowed");
    hs::save_model_dir(original, dir);
    const nlohmann::json j = nlohmann::json::parse(std::ifstream(dir + "/config.json"));
    EXPECT_EQ(j.at("format"), "headscope-playground");
    EXPECT_EQ(j.at("window"), 2);
    const auto reopened = hs::open_source(dir);
    EXPECT_EQ(reopened->config().window, 2);
    const hs::Trace t = reopened->model()->forward(hs::ForwardInput::of({1, 2, 3, 4}), {});
    EXPECT_EQ(t.main.layers[0].self_attn.weights[0](3, 1), 0.0f);  // key 1 is behind query 3's window
    EXPECT_GT(t.main.layers[0].self_attn.weights[0](3, 2), 0.0f);
}

// Weights that are not finite numbers are refused when a model opens, naming the tensor
// and the place (a NaN γ makes every map of its layer NaN), in HeadScope's directories and
// in the Hugging Face Llama ones a decoder saves as.
TEST_F(ModelDir, RefusesWeightsThatAreNotFiniteNamingTheTensorAndThePlace) {
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    struct Case {
        const char* spec;
        float value;
        const char* expected;
    };
    for (const Case& k : {Case{"random:d_model=8,heads=2,layers=2,vocab=20,max_len=8,seed=4", nan,
                               "tensor layers.1.self_attn.in_proj_weight holds NaN at [5, 3] (of 192 values)"},
                          Case{"random:arch=decoder,d_model=8,heads=2,layers=2,pe=rope,norm=rmsnorm,act=swiglu,bias=0,"
                               "vocab=20,max_len=8,seed=4",
                               // a Hugging Face Llama directory: named as the file holds it (row 5 of the
                               // stacked [W_Q; W_K; W_V] is row 5 of q_proj, (8, 8))
                               -inf, "model.safetensors: tensor 'model.layers.1.self_attn.q_proj.weight' holds -inf at [5, 3]"}}) {
        SCOPED_TRACE(k.spec);
        hs::Model model = hs::Model::random(hs::parse_playground_spec(k.spec));
        model.mutable_weights().layers[1].self_attn.in_proj_weight(5, 3) = k.value;
        const std::string dir = path(std::to_string(std::hash<std::string>{}(k.spec)));
        hs::save_model_dir(model, dir);
        hs::test::expect_error([&] { hs::open_source(dir); }, {k.expected, "not finite numbers"});
    }
}

TEST_F(ModelDir, WritesPrettyConfigJsonAndPyTorchMetadata) {
    const hs::ModelConfig c = tiny(hs::Arch::EncoderOnly);
    const std::string dir = path("m");
    hs::save_model_dir(hs::Model::random(c), dir);
    std::ifstream in(dir + "/config.json");
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    EXPECT_NE(text.find("\n  \"d_model\": 8"), std::string::npos) << text;
    EXPECT_EQ(nlohmann::json::parse(text), hs::config_to_json(c));
    const auto file = hs::SafetensorsFile::open(dir + "/model.safetensors");
    EXPECT_EQ(file->metadata().at("format"), "pt");
    EXPECT_EQ(file->tensors().size(), hs::expected_tensors(c).size());
}

TEST_F(ModelDir, ReportsMissingDirectory) {
    const std::string dir = path("absent");
    EXPECT_EQ(error_of([&] { hs::load_model_dir(dir); }),
              "model directory " + dir + " does not exist");
}

TEST_F(ModelDir, ReportsMissingConfigJson) {
    fs::create_directories(path("m"));
    EXPECT_EQ(error_of([&] { hs::load_model_dir(path("m")); }),
              "model directory " + path("m") + " has no config.json");
}

// A directory of llama2.c files (stories260K/: the checkpoint and tok512.bin) is opened
// through its checkpoint: the error names the first .bin by name.
TEST_F(ModelDir, PointsAtTheLlama2cCheckpointADirectoryHolds) {
    fs::create_directories(path("m"));
    std::ofstream(path("m/tok512.bin")) << "x";
    std::ofstream(path("m/stories260K.bin")) << "x";
    EXPECT_EQ(error_of([&] { hs::load_model_dir(path("m")); }),
              "model directory " + path("m") + " has no config.json; it holds the llama2.c checkpoint " +
                  (fs::path(path("m")) / "stories260K.bin").string() + ": open that file instead");
}

TEST_F(ModelDir, ReportsBadJsonWithParserMessage) {
    fs::create_directories(path("m"));
    write_text(path("m/config.json"), "{\"d_model\": 8,");
    const std::string msg = error_of([&] { hs::load_model_dir(path("m")); });
    EXPECT_NE(msg.find(path("m/config.json") + " is not valid JSON: "), std::string::npos) << msg;
    EXPECT_NE(msg.find("parse error"), std::string::npos) << msg;
}

TEST_F(ModelDir, ReportsInvalidConfigWithValidationMessage) {
    fs::create_directories(path("m"));
    write_text(path("m/config.json"), R"({"d_model": 10, "heads": 3})");
    const std::string msg = error_of([&] { hs::load_model_dir(path("m")); });
    EXPECT_EQ(msg.find("invalid config in " + path("m/config.json") + ": "), 0u) << msg;
    EXPECT_NE(msg.find("d_model 10 is not divisible by 3 heads"), std::string::npos) << msg;
}

TEST_F(ModelDir, ReportsMissingSafetensors) {
    const hs::ModelConfig c = tiny(hs::Arch::EncoderOnly);
    fs::create_directories(path("m"));
    write_text(path("m/config.json"), hs::config_to_json(c).dump());
    EXPECT_EQ(error_of([&] { hs::load_model_dir(path("m")); }),
              "model directory " + path("m") + " has no model.safetensors");
}

TEST_F(ModelDir, PassesOnSafetensorsProblems) {
    const hs::ModelConfig c = tiny(hs::Arch::EncoderOnly);
    hs::save_model_dir(hs::Model::random(c), path("m"));
    // A config that disagrees with the weights: d_ff 32 instead of 16.
    hs::ModelConfig wider = c;
    wider.d_ff = 32;
    write_text(path("m/config.json"), hs::config_to_json(wider).dump());
    EXPECT_EQ(error_of([&] { hs::load_model_dir(path("m")); }),
              path("m/model.safetensors") +
                  ": layers.0.linear1.weight has shape [16, 8], expected [32, 8]");
    write_text(path("m/model.safetensors"), "abc");
    EXPECT_NE(error_of([&] { hs::load_model_dir(path("m")); }).find("too small"), std::string::npos);
}

TEST_F(ModelDir, SaveReportsUncreatableDirectory) {
    write_text(path("file"), "not a directory");
    const std::string msg =
        error_of([&] { hs::save_model_dir(hs::Model::random(tiny(hs::Arch::EncoderOnly)), path("file/sub")); });
    EXPECT_EQ(msg.find("cannot save to " + path("file/sub") + ": cannot create directory " + path("file")), 0u) << msg;
}

// A save replaces the directory as a whole (issue 12): files it does not write stay,
// nothing hidden is left behind, and a save that fails leaves the old model loadable.
TEST_F(ModelDir, SaveOverAModelKeepsOtherFilesAndLeavesNoLeftovers) {
    const hs::Model a = hs::Model::random(tiny(hs::Arch::EncoderOnly));
    hs::save_model_dir(a, path("m"));
    write_text(path("m/tokenizer.json"), "{}");
    write_text(path("m/README.md"), "notes");
    // Leftover of a save killed half-way, from an earlier run.
    fs::create_directories(path(".m.new-abc123"));
    write_text(path(".m.new-abc123/model.safetensors"), "half");
    hs::ModelConfig c = tiny(hs::Arch::EncoderOnly);
    c.seed = 77;
    hs::save_model_dir(hs::Model::random(c), path("m"));
    EXPECT_EQ(hs::load_model_dir(path("m")).config().seed, 77u);
    EXPECT_EQ(hs::test::read_text(path("m/README.md")), "notes");
    EXPECT_TRUE(fs::exists(path("m/tokenizer.json")));
    for (const auto& e : fs::directory_iterator(tmp_.path()))
        EXPECT_NE(e.path().filename().string().front(), '.') << "left behind: " << e.path();
}

TEST_F(ModelDir, AFailedSaveLeavesTheOldModelAsItWas) {
    hs::save_model_dir(hs::Model::random(tiny(hs::Arch::EncoderOnly)), path("m"));
    const std::string config_before = hs::test::read_text(path("m/config.json"));
    // The weights are written, then the process fails before the config (a full disk, a kill).
    EXPECT_THROW(hs::write_directory_atomic(path("m"), [&](const std::string& fresh) {
                     write_text(fresh + "/model.safetensors", "new weights");
                     throw hs::Error("disk full");
                 }),
                 hs::Error);
    EXPECT_EQ(hs::test::read_text(path("m/config.json")), config_before);
    EXPECT_NO_THROW(hs::load_model_dir(path("m")));
    for (const auto& e : fs::directory_iterator(tmp_.path()))
        EXPECT_NE(e.path().filename().string().front(), '.') << "left behind: " << e.path();
    // A new directory that fails is not created at all.
    EXPECT_THROW(hs::write_directory_atomic(path("n"), [](const std::string&) { throw hs::Error("disk full"); }),
                 hs::Error);
    EXPECT_FALSE(fs::exists(path("n")));
}
