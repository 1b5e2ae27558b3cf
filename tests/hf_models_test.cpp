// Hugging Face checkpoint directories: config.json parsing, tensor loading (names, Conv1D
// transposes, prefixes, shards, dtypes) and the forward pass against the references of
// tests/gen_hf_fixtures.py (its docstring lists the cases and expected.safetensors keys).
//
// Tolerance: 1e-4 absolute for every case, F16 and BF16 included. The reference was
// computed in float64 from the weights *after* rounding to the file dtype, and the loader
// converts F16/BF16 to f32 exactly, so only f32 arithmetic separates the two sides
// (observed max difference 5.7e-6, on values of magnitude ≤ 11).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>


#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/io/safetensors.h"
#include "core/formats/hf_config.h"
#include "core/formats/hf_loader.h"
#include "core/open_source.h"
#include "core/source.h"
#include "tests/test_util.h"

namespace hs {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::expect_error;
using test::TempDir;
using test::write_text;

constexpr float kTol = 1e-4f;

std::string case_dir(const std::string& name) {
    return std::string(HEADSCOPE_FIXTURES_DIR) + "/hf/" + name;
}

float max_abs_diff(const Matrix& a, const Matrix& b) {
    if (a.rows() != b.rows() || a.cols() != b.cols()) {
        ADD_FAILURE() << "shape (" << a.rows() << ", " << a.cols() << ") vs (" << b.rows()
                      << ", " << b.cols() << ")";
        return 1e30f;
    }
    return (a - b).cwiseAbs().maxCoeff();
}

// Every (1-D or 2-D) tensor of a fixture's model.safetensors as f32 NamedTensors.
std::vector<NamedTensor> read_all(const std::string& path) {
    const auto file = SafetensorsFile::open(path);
    std::vector<NamedTensor> out;
    for (const auto& [name, info] : file->tensors()) {
        const Matrix m = file->matrix(name);
        out.push_back({name, info.shape, std::vector<float>(m.data(), m.data() + m.size())});
    }
    return out;
}

// A copy of fixture `name` in a temp dir whose tensors went through `edit`.
template <typename Edit>
void copy_case(const std::string& name, const TempDir& dir, Edit edit) {
    fs::copy_file(case_dir(name) + "/config.json", dir.file("config.json"));
    std::vector<NamedTensor> tensors = read_all(case_dir(name) + "/model.safetensors");
    edit(tensors);
    write_safetensors(dir.file("model.safetensors"), tensors);
}

struct Expected {
    std::shared_ptr<SafetensorsFile> file;
    std::vector<int> ids;
    explicit Expected(const std::string& name)
        : file(SafetensorsFile::open(case_dir(name) + "/expected.safetensors")) {
        const Vector v = file->vector("ids");
        for (int i = 0; i < v.size(); ++i) ids.push_back(static_cast<int>(v(i)));
    }
    Matrix m(const std::string& key) const { return file->matrix(key); }
};

const std::vector<std::string>& all_cases() {
    static const std::vector<std::string> cases = {"gpt2", "gpt2_bf16", "bert", "bert_prefixed",
                                                   "llama", "llama_f16", "llama_sharded", "qwen2",
                                                   "mistral", "llama31", "qwen3", "gpt_neox",
                                                   "gpt_neox_sequential", "gpt_neo", "qwen2_window",
                                                   "phi3", "gemma", "gemma2", "gemma3"};
    return cases;
}

// ---------------------------------------------------------------------------------------
// config.json
// ---------------------------------------------------------------------------------------
// scale_attn_weights false: GPT-2's scores are Q·Kᵀ, unscaled.
TEST(HfConfig, Gpt2WithoutScaledAttentionHasUnitScale) {
    const json gpt2 = json::parse(R"({"model_type": "gpt2", "n_embd": 64, "n_head": 4, "n_layer": 1,
                                      "vocab_size": 8, "n_positions": 8})");
    EXPECT_EQ(parse_hf_config(gpt2, "config.json").config.score_scale(), 0.25f);  // 1/√16
    json unscaled = gpt2;
    unscaled["scale_attn_weights"] = false;
    EXPECT_EQ(parse_hf_config(unscaled, "config.json").config.score_scale(), 1.0f);
}

TEST(HfConfig, Gpt2DefaultsInnerToFourTimesEmbedAndUsesTanhGelu) {
    const HfConfig hf = parse_hf_config(
        json::parse(R"({"model_type": "gpt2", "n_embd": 48, "n_head": 6, "n_layer": 3,
                        "n_positions": 64, "vocab_size": 100, "n_inner": null})"),
        "config.json");
    const ModelConfig& c = hf.config;
    EXPECT_EQ(c.family, "gpt2");
    EXPECT_EQ(c.d_ff, 192);
    EXPECT_EQ(c.d_h(), 8);
    EXPECT_EQ(c.kv_head_count(), 6);
    EXPECT_EQ(c.max_len, 64);
    EXPECT_FLOAT_EQ(c.norm_eps, 1e-5f);
    EXPECT_EQ(c.activation, Activation::GELUTanh);
    EXPECT_EQ(c.pe, PosEncoding::Learned);
    EXPECT_EQ(c.norm, NormPlacement::PreLN);
    EXPECT_EQ(c.norm_kind, NormKind::LayerNorm);
    EXPECT_EQ(c.arch, Arch::DecoderOnly);
    EXPECT_EQ(c.mask, MaskKind::Causal);
    EXPECT_EQ(c.lm_head, LmHead::Tied);
    EXPECT_TRUE(c.qkv_bias && c.out_bias && c.mlp_bias);
}

TEST(HfConfig, BertIsPostNormBidirectionalWithErfGeluAndNoHead) {
    const HfConfig hf = parse_hf_config(
        json::parse(R"({"model_type": "bert", "hidden_size": 64, "num_attention_heads": 4,
                        "num_hidden_layers": 2, "intermediate_size": 256,
                        "max_position_embeddings": 512, "vocab_size": 300,
                        "type_vocab_size": 2, "layer_norm_eps": 1e-12, "hidden_act": "gelu"})"),
        "config.json");
    const ModelConfig& c = hf.config;
    EXPECT_EQ(c.activation, Activation::GELU);
    EXPECT_EQ(c.norm, NormPlacement::PostLN);
    EXPECT_EQ(c.arch, Arch::EncoderOnly);
    EXPECT_EQ(c.mask, MaskKind::None);
    EXPECT_TRUE(c.embed_norm);
    EXPECT_FALSE(has_final_norm(c));
    EXPECT_EQ(c.lm_head, LmHead::None);
    EXPECT_EQ(c.type_vocab, 2);
    EXPECT_FLOAT_EQ(c.norm_eps, 1e-12f);
}

TEST(HfConfig, LlamaDefaultsKvHeadsAndHeadDimAndKeepsTheta) {
    const HfConfig hf = parse_hf_config(
        json::parse(R"({"model_type": "llama", "hidden_size": 64, "num_attention_heads": 8,
                        "num_hidden_layers": 2, "intermediate_size": 128, "vocab_size": 32,
                        "rope_theta": 500000.0, "rms_norm_eps": 1e-5})"),
        "config.json");
    const ModelConfig& c = hf.config;
    EXPECT_EQ(c.kv_head_count(), 8);
    EXPECT_EQ(c.kv_heads, 0);  // one per query head
    EXPECT_EQ(c.d_h(), 8);
    EXPECT_EQ(c.pe, PosEncoding::Rotary);
    EXPECT_FLOAT_EQ(c.rope_theta, 500000.0f);
    EXPECT_EQ(c.rope_layout, RopeLayout::RotateHalf);
    EXPECT_EQ(c.norm_kind, NormKind::RMSNorm);
    EXPECT_EQ(c.norm, NormPlacement::PreLN);
    EXPECT_EQ(c.activation, Activation::SwiGLU);
    EXPECT_EQ(c.lm_head, LmHead::Separate);  // LlamaConfig default: not tied
    EXPECT_FALSE(c.qkv_bias || c.out_bias || c.mlp_bias);
}

TEST(HfConfig, AFloatOutOfRangeIsNamed) {
    try {
        (void)parse_hf_config(json::parse(R"({"model_type": "llama", "hidden_size": 64, "num_attention_heads": 8,
                                             "num_hidden_layers": 2, "intermediate_size": 128, "vocab_size": 32,
                                             "rope_theta": 1e300})"),
                              "m/config.json");
        FAIL() << "expected hs::Error";
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()), "m/config.json: \"rope_theta\" is 1e+300, out of range");
    }
}

TEST(HfConfig, Qwen2HasQkvBiasesButNoOutputBias) {
    const HfConfig hf = parse_hf_config(
        json::parse(R"({"model_type": "qwen2", "hidden_size": 64, "num_attention_heads": 8,
                        "num_key_value_heads": 2, "num_hidden_layers": 2,
                        "intermediate_size": 128, "vocab_size": 32,
                        "tie_word_embeddings": true})"),
        "config.json");
    EXPECT_TRUE(hf.config.qkv_bias);
    EXPECT_FALSE(hf.config.out_bias);
    EXPECT_FALSE(hf.config.mlp_bias);
    EXPECT_EQ(hf.config.kv_heads, 2);
    EXPECT_EQ(hf.config.lm_head, LmHead::Tied);
}

TEST(HfConfig, UnknownModelTypeIsNamedWithTheSupportedOnes) {
    expect_error([] { parse_hf_config(json::parse(R"({"model_type": "t5"})"), "x/config.json"); },
                 {"x/config.json", "model_type \"t5\" is not supported",
                  "gpt2, bert, gpt_neo, gpt_neox, gemma, gemma2, gemma3_text, llama, mistral, phi3, qwen2, qwen3"});
}

TEST(HfConfig, MissingRequiredKeyIsNamed) {
    expect_error(
        [] {
            parse_hf_config(json::parse(R"({"model_type": "gpt2", "n_embd": 32, "n_layer": 2,
                                            "n_positions": 16, "vocab_size": 64})"),
                            "config.json");
        },
        {"missing the required key \"n_head\"", "gpt2"});
}

TEST(HfConfig, Qwen3NormalisesQueriesAndKeysAndHasNoBiases) {
    const HfConfig hf = parse_hf_config(
        json::parse(R"({"model_type": "qwen3", "hidden_size": 1024, "num_attention_heads": 16,
                        "num_key_value_heads": 8, "head_dim": 128, "num_hidden_layers": 2,
                        "intermediate_size": 128, "vocab_size": 32, "tie_word_embeddings": true})"),
        "config.json");
    EXPECT_TRUE(hf.config.qk_norm);
    EXPECT_FALSE(hf.config.qkv_bias || hf.config.out_bias || hf.config.mlp_bias);
    EXPECT_EQ(hf.config.d_h(), 128);
    EXPECT_EQ(hf.config.inner(), 2048);
    EXPECT_EQ(hf.config.max_len, 32768);
}

TEST(HfConfig, MistralAttendsItsSlidingWindow) {
    const HfConfig hf = parse_hf_config(
        json::parse(R"({"model_type": "mistral", "hidden_size": 64, "num_attention_heads": 8,
                        "num_key_value_heads": 2, "num_hidden_layers": 2,
                        "intermediate_size": 128, "vocab_size": 32, "sliding_window": 4096})"),
        "config.json");
    EXPECT_EQ(hf.config.window, 4096);
    EXPECT_EQ(hf.config.family, "mistral");
    EXPECT_FALSE(hf.config.qkv_bias);
    // Mistral 7B v0.2 on: "sliding_window": null, full attention
    const HfConfig full = parse_hf_config(
        json::parse(R"({"model_type": "mistral", "hidden_size": 64, "num_attention_heads": 8,
                        "num_hidden_layers": 2, "intermediate_size": 128, "vocab_size": 32,
                        "sliding_window": null})"),
        "config.json");
    EXPECT_EQ(full.config.window, 0);
}

// Sliding windows of the Llama-shaped families: Qwen2's use_sliding_window covers the
// layers from max_window_layers on, a layer_types list names each layer, Phi-3's window
// covers every layer and partial_rotary_factor turns 3/4 of each head.
TEST(HfConfig, SlidingWindowLayersOfQwenPhi3AndLayerTypes) {
    const auto parse = [](const std::string& keys) {
        return parse_hf_config(json::parse(R"({"hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 4,
            "intermediate_size": 128, "vocab_size": 32, )" + keys + "}"),
                               "config.json")
            .config;
    };
    const ModelConfig qwen =
        parse(R"("model_type": "qwen2", "use_sliding_window": true, "sliding_window": 8, "max_window_layers": 3)");
    EXPECT_EQ(qwen.window, 8);
    EXPECT_EQ(qwen.window_layers, "GGGL");
    EXPECT_EQ(qwen.window_of(2), 0);
    EXPECT_EQ(qwen.window_of(3), 8);
    EXPECT_EQ(parse(R"("model_type": "qwen2", "use_sliding_window": false, "sliding_window": 8)").window, 0);
    EXPECT_EQ(parse(R"("model_type": "qwen3", "use_sliding_window": true, "sliding_window": 8, "max_window_layers": 4)")
                  .window, 0);  // no layer from 4 on
    EXPECT_EQ(parse(R"("model_type": "qwen2", "use_sliding_window": true, "sliding_window": 8)").window,
              0);  // HF's max_window_layers 28: none of the 4 layers
    const ModelConfig all = parse(R"("model_type": "qwen2", "use_sliding_window": true, "sliding_window": 8,
                                     "max_window_layers": 0)");
    EXPECT_EQ(all.window, 8);
    EXPECT_EQ(all.window_layers, "");
    // A hostile layer count fails before any per-layer pattern is built.
    expect_error([] { parse_hf_config(json::parse(R"({"model_type": "qwen2", "hidden_size": 64, "num_attention_heads": 4,
        "num_hidden_layers": 1073741823, "intermediate_size": 128, "vocab_size": 32, "use_sliding_window": true,
        "sliding_window": 4, "max_window_layers": 1073741822})"), "config.json"); },
                 {"a model of 1073741823 layers has more than the 1024 layers"});
    const ModelConfig typed = parse(R"("model_type": "qwen3", "sliding_window": 16, "layer_types":
        ["sliding_attention", "full_attention", "sliding_attention", "full_attention"])");
    EXPECT_EQ(typed.window, 16);
    EXPECT_EQ(typed.window_layers, "LG");
    const ModelConfig phi3 = parse(R"("model_type": "phi3", "sliding_window": 2047, "partial_rotary_factor": 0.75)");
    EXPECT_EQ(phi3.family, "phi3");
    EXPECT_EQ(phi3.window, 2047);
    EXPECT_EQ(phi3.window_layers, "");  // every layer
    EXPECT_EQ(phi3.rotary_dims, 12);    // 3/4 of 16
    EXPECT_EQ(phi3.activation, Activation::SwiGLU);
    EXPECT_TRUE(validate(phi3).empty());
    expect_error([&] { parse(R"("model_type": "llama", "layer_types": ["full_attention"])"); },
                 {"layer_types", "for each of the 4 layers"});
    expect_error([&] { parse(R"("model_type": "phi3", "partial_rotary_factor": 0.1)"); },
                 {"partial_rotary_factor 0.1 gives 1 rotary dims of a head of 16"});
    // GPT-NeoX reads the same fraction as rotary_pct: 0.5 of 16 is 8 dims, 1.5 is refused
    const std::string neox = R"("model_type": "gpt_neox")";
    EXPECT_EQ(parse(neox + R"(, "rotary_pct": 0.5)").rotary_dims, 8);
    EXPECT_EQ(parse(neox + R"(, "rotary_pct": 1.0)").rotary_dims, 0);  // all of Dh
    expect_error([&] { parse(neox + R"(, "rotary_pct": 1.5)"); },
                 {"rotary_pct 1.5 gives 0 rotary dims of a head of 16"});
}

// Gemma 2B's config.json (the keys that shape the model): GeGLU, embeddings × √D, head_dim
// 256 with one key/value head, a tied head by default; an erf GELU is refused by name.
TEST(HfConfig, GemmaIsGeGluWithScaledEmbeddings) {
    const json gemma = json::parse(R"({"model_type": "gemma", "hidden_size": 2048, "num_attention_heads": 8,
        "num_key_value_heads": 1, "head_dim": 256, "num_hidden_layers": 18, "intermediate_size": 16384,
        "vocab_size": 256000, "hidden_act": "gelu", "hidden_activation": "gelu_pytorch_tanh",
        "rms_norm_eps": 1e-06})");
    const ModelConfig c = parse_hf_config(gemma, "config.json").config;
    EXPECT_EQ(c.family, "gemma");
    EXPECT_EQ(c.activation, Activation::GeGLU);
    EXPECT_TRUE(c.embed_scale);
    EXPECT_EQ(c.kv_heads, 1);
    EXPECT_EQ(c.d_h(), 256);
    EXPECT_EQ(c.lm_head, LmHead::Tied);
    EXPECT_EQ(c.max_len, 8192);
    json erf = gemma;
    erf["hidden_activation"] = "gelu";
    expect_error([&] { parse_hf_config(erf, "config.json"); },
                 {"hidden_activation \"gelu\" is not supported for gemma (only the tanh GELU: gelu_pytorch_tanh)"});
    json act_only = gemma;  // without hidden_activation, hidden_act decides
    act_only.erase("hidden_activation");
    expect_error([&] { parse_hf_config(act_only, "config.json"); }, {"hidden_act \"gelu\" is not supported for gemma"});
    act_only["hidden_act"] = "gelu_pytorch_tanh";
    EXPECT_EQ(parse_hf_config(act_only, "config.json").config.activation, Activation::GeGLU);
}

// gemma-2-2b's config.json (the keys that shape the model): Gemma with sandwich norms,
// scores × 256^(−1/2) soft-capped at 50, logits at 30, even layers local (4096 keys); a
// null cap is none, an absent one Gemma 2's default.
TEST(HfConfig, Gemma2HasSandwichNormsSoftCapsAndLocalEvenLayers) {
    const json gemma2 = json::parse(R"({"model_type": "gemma2", "attention_bias": false,
        "attn_logit_softcapping": 50.0, "final_logit_softcapping": 30.0, "head_dim": 256,
        "hidden_act": "gelu_pytorch_tanh", "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 2304,
        "intermediate_size": 9216, "max_position_embeddings": 8192, "num_attention_heads": 8,
        "num_hidden_layers": 26, "num_key_value_heads": 4, "query_pre_attn_scalar": 256, "rms_norm_eps": 1e-06,
        "rope_theta": 10000.0, "sliding_window": 4096, "vocab_size": 256000})");
    const ModelConfig c = parse_hf_config(gemma2, "config.json").config;
    EXPECT_EQ(c.family, "gemma2");
    EXPECT_TRUE(c.sandwich_norm);
    EXPECT_FLOAT_EQ(c.score_scale(), 1.0f / 16.0f);
    EXPECT_EQ(c.attn_softcap, 50.0f);
    EXPECT_EQ(c.logit_softcap, 30.0f);
    EXPECT_EQ(c.window, 4096);
    EXPECT_EQ(c.window_layers, "LG");
    EXPECT_EQ(c.window_of(0), 4096);
    EXPECT_EQ(c.window_of(25), 0);
    EXPECT_FALSE(c.qk_norm);
    EXPECT_EQ(c.rope_local_theta, 0.0f);
    EXPECT_EQ(c.activation, Activation::GeGLU);
    EXPECT_EQ(c.lm_head, LmHead::Tied);
    // 2.6 B parameters pass the playground's 1000 million: nothing else is wrong
    for (const std::string& problem : validate(c)) EXPECT_NE(problem.find("million parameters"), std::string::npos) << problem;
    json uncapped = gemma2;
    uncapped["attn_logit_softcapping"] = nullptr;  // null: none
    uncapped.erase("final_logit_softcapping");     // absent: Gemma 2's 30
    const ModelConfig u = parse_hf_config(uncapped, "config.json").config;
    EXPECT_EQ(u.attn_softcap, 0.0f);
    EXPECT_EQ(u.logit_softcap, 30.0f);
    json bad = gemma2;
    bad["attn_logit_softcapping"] = -1.0;
    expect_error([&] { parse_hf_config(bad, "config.json"); },
                 {"attn_logit_softcapping -1.0 must be between 0.001 and 1000000 (or null: none)"});
    bad = gemma2;
    bad["model_type"] = "gemma3";
    expect_error([&] { parse_hf_config(bad, "config.json"); }, {"model_type \"gemma3_text\", e.g. gemma-3-1b"});
}

// gemma-3-1b's config.json: Gemma 2's sandwich norms without soft-caps, qk-norm, five local
// layers (512 keys, rope base 10000) to one global (rope_theta 1e6) repeated over 26 layers.
TEST(HfConfig, Gemma3TextHasQkNormAndLocalLayersWithTheirOwnRopeBase) {
    const json gemma3 = json::parse(R"({"model_type": "gemma3_text", "attention_bias": false,
        "attn_logit_softcapping": null, "final_logit_softcapping": null, "head_dim": 256,
        "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 1152, "intermediate_size": 6912,
        "max_position_embeddings": 32768, "num_attention_heads": 4, "num_hidden_layers": 26,
        "num_key_value_heads": 1, "query_pre_attn_scalar": 256, "rms_norm_eps": 1e-06,
        "rope_local_base_freq": 10000, "rope_scaling": null, "rope_theta": 1000000, "sliding_window": 512,
        "sliding_window_pattern": 6, "vocab_size": 262144})");
    const ModelConfig c = parse_hf_config(gemma3, "config.json").config;
    EXPECT_EQ(c.family, "gemma3_text");
    EXPECT_TRUE(c.sandwich_norm);
    EXPECT_TRUE(c.qk_norm);
    EXPECT_EQ(c.attn_softcap, 0.0f);
    EXPECT_EQ(c.logit_softcap, 0.0f);
    EXPECT_EQ(c.window, 512);
    EXPECT_EQ(c.window_layers, "LLLLLG");
    EXPECT_EQ(c.rope_theta, 1e6f);
    EXPECT_EQ(c.rope_local_theta, 10000.0f);
    EXPECT_TRUE(c.local_rope(0));
    EXPECT_FALSE(c.local_rope(5));
    EXPECT_TRUE(c.local_rope(24));
    for (const std::string& problem : validate(c)) EXPECT_NE(problem.find("million parameters"), std::string::npos) << problem;
    json no_caps = gemma3;  // Gemma 3's caps absent (HF's default None): none, not an error
    no_caps.erase("attn_logit_softcapping");
    no_caps.erase("final_logit_softcapping");
    const ModelConfig n = parse_hf_config(no_caps, "config.json").config;
    EXPECT_EQ(n.attn_softcap, 0.0f);
    EXPECT_EQ(n.logit_softcap, 0.0f);
    json scaled = gemma3;  // gemma-3-4b's text model: the global layers' θ_i divided by 8
    scaled["rope_scaling"] = json{{"rope_type", "linear"}, {"factor", 8.0}};
    const ModelConfig s = parse_hf_config(scaled, "config.json").config;
    EXPECT_EQ(s.rope_freq_divisors, std::vector<float>(128, 8.0f));
}

// TinyStories-33M's config.json (as published, the keys that matter): GPT-Neo with
// attention_types expanded to alternating global/local layers, unscaled scores,
// intermediate_size null = 4·hidden_size.
TEST(HfConfig, GptNeoAlternatesGlobalAndLocalLayersWithUnscaledScores) {
    const HfConfig hf = parse_hf_config(
        json::parse(R"({"model_type": "gpt_neo", "hidden_size": 768, "num_heads": 16, "num_layers": 4,
                        "intermediate_size": null, "max_position_embeddings": 2048, "window_size": 256,
                        "attention_types": [[["global", "local"], 2]], "vocab_size": 50257,
                        "activation_function": "gelu_new", "layer_norm_epsilon": 1e-05})"),
        "config.json");
    const ModelConfig& c = hf.config;
    EXPECT_EQ(c.family, "gpt_neo");
    EXPECT_EQ(c.d_ff, 3072);
    EXPECT_EQ(c.window, 256);
    EXPECT_EQ(c.window_layers, "GL");
    EXPECT_EQ(c.window_of(0), 0);    // global
    EXPECT_EQ(c.window_of(1), 256);  // local
    EXPECT_EQ(c.window_of(3), 256);
    EXPECT_EQ(c.score_scale(), 1.0f);
    EXPECT_EQ(c.activation, Activation::GELUTanh);
    EXPECT_EQ(c.pe, PosEncoding::Learned);
    EXPECT_FALSE(c.qkv_bias);
    EXPECT_TRUE(c.out_bias && c.mlp_bias);
    EXPECT_EQ(c.lm_head, LmHead::Tied);
    EXPECT_TRUE(validate(c).empty());
    // Patterns that do not repeat a shorter one are kept whole; all global: no window.
    const auto kinds = [](const char* types, int layers) {
        return parse_hf_config(json::parse(std::string(R"({"model_type": "gpt_neo", "hidden_size": 64,
            "num_heads": 4, "vocab_size": 32, "num_layers": )") + std::to_string(layers) +
                                            R"(, "attention_types": )" + types + "}"),
                               "config.json")
            .config;
    };
    EXPECT_EQ(kinds(R"([[["global", "local"], 1], [["local"], 1]])", 3).window_layers, "GLL");
    EXPECT_EQ(kinds(R"([[["global"], 2]])", 2).window, 0);
    expect_error([&] { kinds(R"([[[], 2]])", 2); }, {"attention_types", "must be a list of"});
    // Without attention_types, HF's default: 12 × (global, local), which only 24 layers fit
    const auto no_types = [](int layers) {
        return parse_hf_config(json::parse(R"({"model_type": "gpt_neo", "hidden_size": 64, "num_heads": 4,
            "vocab_size": 32, "num_layers": )" + std::to_string(layers) + "}"), "config.json").config;
    };
    EXPECT_EQ(no_types(24).window_layers, "GL");
    expect_error([&] { no_types(4); }, {"attention_types gives 24 layers, but num_layers is 4"});
    const ModelConfig all_local = kinds(R"([[["local"], 3]])", 3);
    EXPECT_EQ(all_local.window, 256);
    EXPECT_EQ(all_local.window_layers, "");
    expect_error([&] { kinds(R"([[["global", "local"], 2]])", 3); },
                 {"attention_types gives 4 layers, but num_layers is 3"});
    expect_error([&] { kinds(R"([[["global", "sparse"], 1]])", 2); }, {"attention_types", "must be a list of"});
    expect_error([&] { kinds(R"({"global": 1})", 2); }, {"attention_types", "must be a list of"});
}

// Llama 3.1 8B's rope_scaling with head_dim 128, theta 500000: HF's
// _compute_llama3_parameters by hand for three frequencies, one per band (wavelength
// 2π/θ_i against 8192/4 = 2048 and 8192/1 = 8192).
TEST(HfConfig, Llama3RopeScalingDividesTheLongWavelengths) {
    const HfConfig hf = parse_hf_config(
        json::parse(R"({"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
                        "num_key_value_heads": 8, "num_hidden_layers": 2, "intermediate_size": 128,
                        "vocab_size": 32, "rope_theta": 500000.0,
                        "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                         "original_max_position_embeddings": 8192, "rope_type": "llama3"}})"),
        "config.json");
    const std::vector<float>& d = hf.config.rope_freq_divisors;
    ASSERT_EQ(d.size(), 64u);
    // i = 0: wavelength 2π, short: kept
    EXPECT_FLOAT_EQ(d[0], 1.0f);
    // i = 63: θ = 500000^(−126/128) = 2.4367e-6, wavelength 2.578e6 > 8192: ÷ 8
    EXPECT_FLOAT_EQ(d[63], 8.0f);
    // i = 30: θ = 500000^(−60/128) = 2.1311e-3, wavelength 2948.3: between;
    // t = (8192/2948.3 − 1)/3 = 0.59285, divisor 1/((1 − t)/8 + t) = 1.5534
    const double theta = std::pow(500000.0, -60.0 / 128.0), wavelength = 2 * M_PI / theta;
    const double t = (8192.0 / wavelength - 1.0) / 3.0;
    EXPECT_NEAR(t, 0.59285, 1e-4);
    EXPECT_NEAR(d[30], 1.0 / ((1 - t) / 8 + t), 1e-5);
    EXPECT_NEAR(d[30], 1.5534, 1e-3);
}

TEST(HfConfig, RejectsOtherRopeScalingAndIndivisibleHeads) {
    expect_error(
        [] {
            parse_hf_config(
                json::parse(R"({"model_type": "llama", "hidden_size": 64,
                                "num_attention_heads": 8, "num_hidden_layers": 2,
                                "intermediate_size": 128, "vocab_size": 32,
                                "rope_scaling": {"rope_type": "yarn", "factor": 8.0}})"),
                "config.json");
        },
        {"rope_scaling", "yarn", "not supported", "llama3"});
    expect_error(
        [] {
            parse_hf_config(json::parse(R"({"model_type": "gpt2", "n_embd": 30, "n_head": 4,
                                            "n_layer": 2, "n_positions": 16,
                                            "vocab_size": 64})"),
                            "config.json");
        },
        {"n_embd 30 is not divisible by n_head 4"});
}

TEST(HfConfig, DetectsHuggingFaceDirectoriesByModelType) {
    EXPECT_TRUE(is_hf_model_dir(case_dir("gpt2")));
    TempDir dir;
    EXPECT_FALSE(is_hf_model_dir(dir.str()));  // no config.json
    write_text(dir.file("config.json"), R"({"format": "headscope-playground", "d_model": 8})");
    EXPECT_FALSE(is_hf_model_dir(dir.str()));
    write_text(dir.file("config.json"), "{not json");
    EXPECT_FALSE(is_hf_model_dir(dir.str()));
}

// ---------------------------------------------------------------------------------------
// Loading
// ---------------------------------------------------------------------------------------
TEST(HfLoader, LayerZeroWeightsAreOutInMatricesForEveryCase) {
    for (const std::string& name : all_cases()) {
        SCOPED_TRACE(name);
        const Model model = load_hf_model(case_dir(name));
        const Expected exp(name);
        const EncoderLayerWeights& l = model.weights().layers.at(0);
        // in_proj_weight stacks [W_q; W_k; W_v] as (out, in) matrices.
        const Matrix& w_in = l.self_attn.in_proj_weight;
        const Matrix wq = exp.m("loaded.wq"), wk = exp.m("loaded.wk"), wv = exp.m("loaded.wv");
        ASSERT_EQ(w_in.rows(), wq.rows() + wk.rows() + wv.rows());
        EXPECT_LT(max_abs_diff(w_in.topRows(wq.rows()), wq), 1e-7f);
        EXPECT_LT(max_abs_diff(w_in.middleRows(wq.rows(), wk.rows()), wk), 1e-7f);
        EXPECT_LT(max_abs_diff(w_in.bottomRows(wv.rows()), wv), 1e-7f);
        EXPECT_LT(max_abs_diff(l.self_attn.out_proj_weight, exp.m("loaded.wo")), 1e-7f);
        EXPECT_LT(max_abs_diff(l.ffn.linear1_weight, exp.m("loaded.w_up")), 1e-7f);
        EXPECT_LT(max_abs_diff(l.ffn.linear2_weight, exp.m("loaded.w_down")), 1e-7f);
        if (exp.file->has("loaded.w_gate")) {
            EXPECT_LT(max_abs_diff(l.ffn.gate_weight, exp.m("loaded.w_gate")), 1e-7f);
        }
    }
}

TEST(HfLoader, RecordsTheFileDtype) {
    EXPECT_EQ(load_hf_model(case_dir("gpt2")).stored_dtype(), "f32");
    EXPECT_EQ(load_hf_model(case_dir("gpt2_bf16")).stored_dtype(), "bf16");
    EXPECT_EQ(load_hf_model(case_dir("llama_f16")).stored_dtype(), "f16");
}

TEST(HfLoader, ReadsBiasesAndHeadsPerFamily) {
    const Model qwen = load_hf_model(case_dir("qwen2"));
    EXPECT_EQ(qwen.weights().layers[0].self_attn.in_proj_bias.size(), 32 + 2 * 16);  // q + k, v of 2 KV heads × Dh 8
    EXPECT_EQ(qwen.weights().layers[0].self_attn.kv_inner(), 16);
    EXPECT_EQ(qwen.weights().layers[0].self_attn.out_proj_bias.size(), 0);
    EXPECT_EQ(qwen.weights().lm_head.size(), 0);  // tied: head is the embedding
    const Model llama = load_hf_model(case_dir("llama"));
    EXPECT_EQ(llama.weights().layers[0].self_attn.in_proj_bias.size(), 0);
    EXPECT_EQ(llama.weights().lm_head.rows(), 64);
    const Model sharded = load_hf_model(case_dir("llama_sharded"));
    EXPECT_EQ(sharded.config().d_h(), 12);
    EXPECT_EQ(sharded.weights().layers[1].self_attn.inner(), 48);  // 4 heads × 12, ≠ d_model 32
    const Model bert = load_hf_model(case_dir("bert_prefixed"));
    EXPECT_EQ(bert.weights().type_embed.rows(), 2);
    ASSERT_TRUE(bert.weights().embed_norm);
    EXPECT_EQ(bert.weights().embed_norm->bias.size(), 32);  // legacy LayerNorm.beta
}

TEST(HfLoader, ReportsProgressPerLayerAndCancels) {
    std::vector<int> seen;
    load_hf_model(case_dir("llama"), [&](int done, int total) {
        EXPECT_EQ(total, 2);
        seen.push_back(done);
        return true;
    });
    EXPECT_EQ(seen, (std::vector<int>{1, 2}));
    EXPECT_THROW(load_hf_model(case_dir("llama"), [](int, int) { return false; }), Cancelled);
}

TEST(HfLoader, UnknownModelTypeIsNamed) {
    TempDir dir;
    write_text(dir.file("config.json"), R"({"model_type": "mamba"})");
    expect_error([&] { load_hf_model(dir.str()); },
                 {"model_type \"mamba\" is not supported",
                  "gpt2, bert, gpt_neo, gpt_neox, gemma, gemma2, gemma3_text, llama, mistral, phi3, qwen2, qwen3"});
}

TEST(HfLoader, MissingTensorIsNamed) {
    TempDir dir;
    copy_case("llama", dir, [](std::vector<NamedTensor>& t) {
        std::erase_if(t, [](const NamedTensor& x) {
            return x.name == "model.layers.1.mlp.up_proj.weight";
        });
    });
    expect_error([&] { load_hf_model(dir.str()); },
                 {"tensor 'model.layers.1.mlp.up_proj.weight' is missing", "llama"});
}

TEST(HfLoader, UntiedHeadWithoutLmHeadIsAMissingTensor) {
    TempDir dir;
    copy_case("llama", dir, [](std::vector<NamedTensor>& t) {
        std::erase_if(t, [](const NamedTensor& x) { return x.name == "lm_head.weight"; });
    });
    expect_error([&] { load_hf_model(dir.str()); }, {"'lm_head.weight' is missing"});
}

TEST(HfLoader, ShapeMismatchGivesExpectedAndFound) {
    TempDir dir;
    copy_case("llama", dir, [](std::vector<NamedTensor>& t) {
        for (NamedTensor& x : t)
            if (x.name == "model.layers.0.self_attn.k_proj.weight") {
                x.shape = {32, 32};  // as if num_key_value_heads were 4
                x.data.assign(32 * 32, 0.5f);
            }
    });
    expect_error([&] { load_hf_model(dir.str()); },
                 {"'model.layers.0.self_attn.k_proj.weight'", "has shape [32, 32]",
                  "expected [16, 32]"});
}

TEST(HfLoader, Gpt2Conv1DShapeIsCheckedInInOutOrder) {
    TempDir dir;
    copy_case("gpt2_bf16", dir, [](std::vector<NamedTensor>& t) {
        for (NamedTensor& x : t)
            if (x.name == "transformer.h.1.attn.c_attn.weight") x.shape = {96, 32};  // (out, in)
    });
    expect_error([&] { load_hf_model(dir.str()); },
                 {"'transformer.h.1.attn.c_attn.weight' has shape [96, 32]", "expected [32, 96]"});
}

// A weight that is not a finite number is named as the checkpoint holds it: GPT-2's Conv1D
// c_attn is (in, out) in the file, transposed when it opens, so [3, 70] of the file is
// the element to look at (not [70, 3] of HeadScope's in_proj_weight).
TEST(HfLoader, NonFiniteWeightIsNamedAndPlacedAsTheFileHoldsIt) {
    TempDir dir;
    copy_case("gpt2_bf16", dir, [](std::vector<NamedTensor>& t) {  // written back as f32
        for (NamedTensor& x : t)
            if (x.name == "transformer.h.1.attn.c_attn.weight") x.data[3 * 96 + 70] = std::nanf("");
    });
    expect_error([&] { load_hf_model(dir.str()); },
                 {"model.safetensors: tensor 'transformer.h.1.attn.c_attn.weight' holds NaN at [3, 70]", "not finite numbers"});
}

TEST(HfLoader, UnsupportedDtypeIsNamed) {
    TempDir dir;
    fs::copy_file(case_dir("gpt2") + "/config.json", dir.file("config.json"));
    // A hand-written safetensors file with one F64 tensor.
    const std::string header =
        R"({"wte.weight":{"dtype":"F64","shape":[2],"data_offsets":[0,16]}})";
    std::string bytes(8, '\0');
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
    bytes += header + std::string(16, '\0');
    write_text(dir.file("model.safetensors"), bytes);
    expect_error([&] { load_hf_model(dir.str()); }, {"unsupported dtype F64", "wte.weight"});
}

TEST(HfLoader, MissingWeightsFileIsExplained) {
    TempDir dir;
    fs::copy_file(case_dir("qwen2") + "/config.json", dir.file("config.json"));
    write_text(dir.file("pytorch_model.bin"), "x");
    expect_error([&] { load_hf_model(dir.str()); },
                 {"neither model.safetensors nor model.safetensors.index.json",
                  "pytorch_model.bin"});
}

TEST(HfLoader, ShardIndexErrorsNameTheShard) {
    TempDir dir;
    for (const char* f : {"config.json", "model-00001-of-00002.safetensors"})
        fs::copy_file(case_dir("llama_sharded") + "/" + f, dir.file(f));
    fs::copy_file(case_dir("llama_sharded") + "/model.safetensors.index.json",
                  dir.file("model.safetensors.index.json"));
    expect_error([&] { load_hf_model(dir.str()); },
                 {"model-00002-of-00002.safetensors", "does not exist"});

    write_text(dir.file("model.safetensors.index.json"),
               R"({"weight_map": {"model.norm.weight": "model-00001-of-00002.safetensors"}})");
    expect_error([&] { load_hf_model(dir.str()); },
                 {"puts tensor 'model.norm.weight' in model-00001-of-00002.safetensors",
                  "no such tensor"});
}

// ---------------------------------------------------------------------------------------
// Forward pass against the PyTorch references
// ---------------------------------------------------------------------------------------
TEST(HfModels, ForwardMatchesReferenceHeadsHiddenStatesAndLogits) {
    for (const std::string& name : all_cases()) {
        SCOPED_TRACE(name);
        const Model model = load_hf_model(case_dir(name));
        const Expected exp(name);
        const ModelConfig& c = model.config();
        const Trace trace = model.forward(ForwardInput::of(exp.ids));
        ASSERT_EQ(trace.n_layers(), c.layers);
        EXPECT_EQ(trace.config, c);  // the model's exact config
        EXPECT_LT(max_abs_diff(trace.main.input, exp.m("input")), kTol);
        for (int il = 0; il < c.layers; ++il) {
            SCOPED_TRACE(testing::Message() << "layer " << il);
            const LayerTrace& lt = trace.main.layers[il];
            ASSERT_EQ(static_cast<int>(lt.self_attn.weights.size()), c.heads);
            for (int h = 0; h < c.heads; ++h) {
                SCOPED_TRACE(testing::Message() << "head " << h);
                const std::string key =
                    "layers." + std::to_string(il) + ".heads." + std::to_string(h);
                EXPECT_LT(max_abs_diff(lt.self_attn.weights[h], exp.m(key)), kTol);
            }
            EXPECT_LT(max_abs_diff(lt.output, exp.m("layers." + std::to_string(il) + ".output")),
                      kTol);
        }
        EXPECT_LT(max_abs_diff(trace.main.final_output, exp.m("final_output")), kTol);
        if (c.lm_head != LmHead::None) {
            const Vector logits = model.next_token_logits(ForwardInput::of(exp.ids));
            const Matrix expected = exp.m("logits");  // (1, V)
            EXPECT_LT(max_abs_diff(logits.transpose(), expected), kTol);
            // The trace's top prediction is the reference's argmax.
            Eigen::Index best = 0;
            expected.row(0).maxCoeff(&best);
            ASSERT_FALSE(trace.next_tokens.empty());
            EXPECT_EQ(trace.next_tokens[0].id, static_cast<int>(best));
        } else {
            EXPECT_FALSE(exp.file->has("logits"));
            EXPECT_TRUE(trace.next_tokens.empty());
        }
    }
}

TEST(HfModels, PrefixedAndPlainBertNamesLoadTheSameArchitecture) {
    // bert_prefixed uses "bert." keys and legacy gamma/beta; its own reference must match,
    // and the ignored pooler / cls tensors must not change the parameter count.
    const Model plain = load_hf_model(case_dir("bert"));
    const Model prefixed = load_hf_model(case_dir("bert_prefixed"));
    EXPECT_EQ(plain.parameter_count(), prefixed.parameter_count());
    const Expected exp("bert_prefixed");
    const Trace trace = prefixed.forward(ForwardInput::of(exp.ids));
    EXPECT_LT(max_abs_diff(trace.main.final_output, exp.m("final_output")), kTol);
}

// ---------------------------------------------------------------------------------------
// open_source: a directory whose config.json has model_type opens as a pretrained source
// ---------------------------------------------------------------------------------------
TEST(HfOpenSource, BertDirectoryWithVocabTxtRunsTheTokenizedText) {
    TempDir dir;
    for (const char* f : {"config.json", "model.safetensors"})
        fs::copy_file(case_dir("bert") + "/" + f, dir.file(f));
    // 64 WordPiece entries: specials 0..4, "hello" 5, "world" 6, fillers up to id 63.
    std::string vocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nhello\nworld\n";
    for (int i = 7; i < 64; ++i) vocab += "w" + std::to_string(i) + "\n";
    write_text(dir.file("vocab.txt"), vocab);

    const auto source = open_source(dir.str());
    EXPECT_EQ(source->config().d_model, 32);
    EXPECT_EQ(source->config().heads, 4);
    const Trace trace = source->run({"Hello world", "", {}}, {});
    EXPECT_EQ(trace.main.ids, (std::vector<int>{2, 5, 6, 3}));  // [CLS] hello world [SEP]
    // Same numbers as the model run on those ids directly.
    const Trace direct = load_hf_model(dir.str()).forward(ForwardInput::of({2, 5, 6, 3}));
    EXPECT_LT(max_abs_diff(trace.main.final_output, direct.main.final_output), 1e-7f);
    EXPECT_LT(max_abs_diff(trace.main.layers[1].self_attn.weights[2],
                           direct.main.layers[1].self_attn.weights[2]), 1e-7f);
}

TEST(HfOpenSource, MissingTokenizerFilesAreNamed) {
    expect_error([] { open_source(case_dir("gpt2")); },
                 {"tokenizer.json", "vocab.json + merges.txt", "vocab.txt"});
}

TEST(HfOpenSource, UnknownModelTypeReachesTheUser) {
    TempDir dir;
    write_text(dir.file("config.json"), R"({"model_type": "t5", "d_model": 8})");
    write_text(dir.file("vocab.txt"), "[PAD]\n[UNK]\n[CLS]\n[SEP]\n");
    expect_error([&] { open_source(dir.str()); }, {"model_type \"t5\" is not supported"});
}

}  // namespace
}  // namespace hs
