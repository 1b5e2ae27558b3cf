// HeadScope against PyTorch: fixtures written by tests/gen_torch_fixtures.py from real
// nn.MultiheadAttention / nn.TransformerEncoderLayer / nn.TransformerDecoderLayer /
// nn.Transformer modules (tests/fixtures/torch/README.md), and model directories saved by
// HeadScope that PyTorch loaded with load_state_dict(strict=True)
// (tests/fixtures/headscope_saved/). Every expected tensor must match the Trace to 1e-5.
//
// Expected tensor names: <stack>.input (T, D), <stack>.final_output (T, D),
// <stack>.layers.<i>.{self,cross}_weights (H, T, S), .{self,cross}_scores (H, T, S),
// .{self,cross}_attn_output (T, D), .output (T, D); <stack> is "main" or "decoder".
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/io/model_dir.h"
#include "core/io/safetensors.h"
#include "core/model/attention.h"
#include "core/model/config.h"
#include "core/model/model.h"
#include "core/open_source.h"
#include "core/source.h"
#include "tests/attention_run.h"
#include "tests/json_fixture.h"

namespace fs = std::filesystem;

namespace {

const fs::path kTorchDir = fs::path(HEADSCOPE_FIXTURES_DIR) / "torch";
const fs::path kSavedDir = fs::path(HEADSCOPE_FIXTURES_DIR) / "headscope_saved";
const fs::path kSavedHfDir = fs::path(HEADSCOPE_FIXTURES_DIR) / "headscope_saved_hf";
constexpr float kTolerance = 1e-5f;
constexpr int kMinModelCases = 10;
constexpr int kMinSavedModels = 2;

// Sorted subdirectories of `root` that contain the file `marker`.
std::vector<fs::path> case_dirs(const fs::path& root, const std::string& marker) {
    std::vector<fs::path> out;
    if (!fs::is_directory(root)) return out;
    for (const auto& entry : fs::directory_iterator(root))
        if (entry.is_directory() && fs::is_regular_file(entry.path() / marker))
            out.push_back(entry.path());
    std::sort(out.begin(), out.end());
    return out;
}

nlohmann::json read_json(const fs::path& path) { return hs::test::json_file(path.string()); }

// max |a − b|; +inf when shapes differ or either side is not finite (a missing trace
// entry is an empty matrix, so it fails too).
float max_abs_diff(const hs::Matrix& a, const hs::Matrix& b) {
    if (a.rows() != b.rows() || a.cols() != b.cols() || a.size() == 0)
        return std::numeric_limits<float>::infinity();
    if (!a.allFinite() || !b.allFinite()) return std::numeric_limits<float>::infinity();
    return (a - b).cwiseAbs().maxCoeff();
}

int head_count(const hs::SafetensorsFile& f, const std::string& name) {
    const hs::TensorInfo& info = f.info(name);
    return info.shape.size() == 3 ? static_cast<int>(info.shape[0]) : 1;
}

// Head h of an (H, T, S) tensor as a (T, S) matrix; a 2-D tensor as itself (h = 0).
hs::Matrix expected_slice(const hs::SafetensorsFile& f, const std::string& name, int h) {
    const hs::TensorInfo& info = f.info(name);
    if (info.dtype != hs::DType::F32 || (info.shape.size() != 2 && info.shape.size() != 3))
        throw std::runtime_error(name + " is not a 2-D or 3-D f32 tensor");
    const auto rows = info.shape[info.shape.size() - 2];
    const auto cols = info.shape[info.shape.size() - 1];
    hs::Matrix m(rows, cols);
    const std::vector<float> all = f.values(name);
    std::memcpy(m.data(), all.data() + h * rows * cols, sizeof(float) * rows * cols);
    return m;
}

// Worst difference over all heads of one (H, T, S) expected tensor.
float heads_diff(const hs::SafetensorsFile& f, const std::string& name,
                 const std::vector<hs::Matrix>& got) {
    const int H = head_count(f, name);
    if (static_cast<int>(got.size()) != H) return std::numeric_limits<float>::infinity();
    float worst = 0.0f;
    for (int h = 0; h < H; ++h)
        worst = std::max(worst, max_abs_diff(got[h], expected_slice(f, name, h)));
    return worst;
}

hs::ForwardInput input_for(const fs::path& dir) {
    const nlohmann::json j = read_json(dir / "input.json");
    hs::ForwardInput in;
    in.ids = j.at("ids").get<std::vector<int>>();
    for (int id : in.ids) in.tokens.push_back(std::to_string(id));
    if (j.contains("decoder_ids")) in.decoder_ids = j["decoder_ids"].get<std::vector<int>>();
    for (int id : in.decoder_ids) in.decoder_tokens.push_back(std::to_string(id));
    if (j.contains("key_padding")) in.key_padding = j["key_padding"].get<std::vector<int>>();
    return in;
}

// "main.layers.3.self_weights" -> {stack "main", layer 3, what "self_weights"};
// "main.input" -> {stack "main", layer -1, what "input"}.
struct ExpectedName {
    std::string stack;
    int layer = -1;
    std::string what;
};

ExpectedName parse_name(const std::string& name) {
    ExpectedName n;
    const auto dot = name.find('.');
    n.stack = name.substr(0, dot);
    std::string rest = name.substr(dot + 1);
    if (rest.rfind("layers.", 0) == 0) {
        rest = rest.substr(7);
        const auto dot2 = rest.find('.');
        n.layer = std::stoi(rest.substr(0, dot2));
        n.what = rest.substr(dot2 + 1);
    } else {
        n.what = rest;
    }
    return n;
}

const hs::StackTrace* stack_of(const hs::Trace& t, const std::string& stack) {
    if (stack == "main") return &t.main;
    if (stack == "decoder" && t.decoder) return &*t.decoder;
    return nullptr;
}

// Compares every expected tensor except the *_attn_output ones (those need a detailed
// capture, see AttentionStepsOfEveryLayerMatchPyTorch). Returns how many were compared.
int expect_trace_matches(const hs::SafetensorsFile& f, const hs::Trace& trace) {
    int compared = 0;
    for (const auto& [name, info] : f.tensors()) {
        if (name == "next_token_logits") {  // models with an LM head: (V) after the last token
            const float diff = max_abs_diff(trace.next_token_logits.transpose(), expected_slice(f, name, 0));
            EXPECT_LT(diff, kTolerance) << name << " max abs diff " << diff;
            ++compared;
            continue;
        }
        const ExpectedName n = parse_name(name);
        if (n.what == "self_attn_output" || n.what == "cross_attn_output") continue;
        const hs::StackTrace* st = stack_of(trace, n.stack);
        if (st == nullptr) {
            ADD_FAILURE() << name << ": the trace has no stack '" << n.stack << "'";
            continue;
        }
        float diff = std::numeric_limits<float>::infinity();
        if (n.layer < 0 && n.what == "input") {
            diff = max_abs_diff(st->input, expected_slice(f, name, 0));
        } else if (n.layer < 0 && n.what == "final_output") {
            diff = max_abs_diff(st->final_output, expected_slice(f, name, 0));
        } else if (n.layer >= 0 && n.layer < static_cast<int>(st->layers.size())) {
            const hs::LayerTrace& lt = st->layers[n.layer];
            if (n.what == "output") {
                diff = max_abs_diff(lt.output, expected_slice(f, name, 0));
            } else if (n.what == "self_weights") {
                diff = heads_diff(f, name, lt.self_attn.weights);
            } else if (n.what == "self_scores") {
                diff = heads_diff(f, name, lt.self_attn.scores);
            } else if (n.what == "cross_weights" && lt.cross_attn) {
                diff = heads_diff(f, name, lt.cross_attn->weights);
            } else if (n.what == "cross_scores" && lt.cross_attn) {
                diff = heads_diff(f, name, lt.cross_attn->scores);
            } else {
                ADD_FAILURE() << name << ": no such entry in the trace";
                continue;
            }
        } else {
            ADD_FAILURE() << name << ": the trace has " << st->layers.size() << " layers";
            continue;
        }
        EXPECT_LT(diff, kTolerance) << name << " max abs diff " << diff;
        ++compared;
    }
    return compared;
}

// The number of layers PyTorch saw must equal the number HeadScope ran.
void expect_layer_counts(const hs::SafetensorsFile& f, const hs::Trace& trace) {
    auto count = [&](const std::string& stack) {
        int n = 0;
        while (f.has(stack + ".layers." + std::to_string(n) + ".output")) ++n;
        return n;
    };
    EXPECT_EQ(static_cast<int>(trace.main.layers.size()), count("main"));
    EXPECT_EQ(trace.decoder ? static_cast<int>(trace.decoder->layers.size()) : 0,
              count("decoder"));
}

void check_model_dir(const fs::path& dir) {
    SCOPED_TRACE(testing::Message() << "case " << dir.filename().string());
    const hs::Model model = hs::load_model_dir(dir.string());
    hs::TraceOptions opt;
    opt.scores = true;
    const hs::Trace trace = model.forward(input_for(dir), opt);
    const auto expected = hs::SafetensorsFile::open((dir / "expected.safetensors").string());
    expect_layer_counts(*expected, trace);
    EXPECT_GT(expect_trace_matches(*expected, trace), 3);
}

}  // namespace

TEST(TorchAgreement, FixtureDirectoryHoldsAtLeastTenModelCases) {
    ASSERT_TRUE(fs::is_directory(kTorchDir))
        << kTorchDir << " is missing: run /usr/bin/python3 tests/gen_torch_fixtures.py";
    const auto dirs = case_dirs(kTorchDir, "config.json");
    ASSERT_GE(static_cast<int>(dirs.size()), kMinModelCases)
        << "only " << dirs.size() << " model cases in " << kTorchDir;
    for (const auto& d : dirs) {
        SCOPED_TRACE(d.filename().string());
        for (const char* file : {"model.safetensors", "input.json", "expected.safetensors"})
            EXPECT_TRUE(fs::is_regular_file(d / file)) << file << " missing";
    }
    EXPECT_GE(case_dirs(kTorchDir, "attention.safetensors").size(), 1u)
        << "no nn.MultiheadAttention case (mha_*) in " << kTorchDir;
}

// The fixtures must keep covering what the brief asks for; a shrinking generator fails here.
TEST(TorchAgreement, FixturesCoverEveryArchitectureAndOption) {
    std::set<std::string> seen;
    for (const auto& d : case_dirs(kTorchDir, "config.json")) {
        const hs::ModelConfig c = hs::config_from_json(read_json(d / "config.json"));
        const hs::ForwardInput in = input_for(d);
        seen.insert("arch=" + hs::to_string(c.arch));
        seen.insert("pe=" + hs::to_string(c.pe));
        seen.insert("norm=" + hs::to_string(c.norm));
        seen.insert("norm_kind=" + hs::to_string(c.norm_kind));
        seen.insert("act=" + hs::to_string(c.activation));
        if (c.pe == hs::PosEncoding::Rotary) seen.insert("rope=" + hs::to_string(c.rope_layout));
        if (c.kv_heads == 1) seen.insert("kv_heads=1");
        if (c.kv_heads > 1 && c.kv_heads < c.heads) seen.insert("kv_heads=K");
        if (!c.qkv_bias && !c.out_bias && !c.mlp_bias) seen.insert("bias=0");
        seen.insert("lm_head=" + hs::to_string(c.lm_head));
        if (c.arch == hs::Arch::EncoderDecoder && c.kv_heads > 0) seen.insert("grouped cross-attention");
        seen.insert("mask=" + hs::to_string(c.mask));
        if (c.heads == 1) seen.insert("heads=1");
        if (c.heads == c.d_model) seen.insert("heads=d_model");
        if (in.ids.size() == 1) seen.insert("one token");
        if (!in.key_padding.empty()) seen.insert("key padding");
        if (c.arch == hs::Arch::EncoderDecoder && c.layers >= 2) seen.insert("2+2 transformer");
    }
    for (const char* want :
         {"arch=encoder", "arch=decoder", "arch=encoder-decoder", "pe=sinusoidal", "pe=learned",
          "pe=none", "norm=post-ln", "norm=pre-ln", "act=relu", "act=gelu", "mask=none",
          "mask=causal", "heads=1", "heads=d_model", "one token", "key padding",
          "2+2 transformer", "pe=rope", "rope=rotate-half", "rope=interleaved",
          "norm_kind=rmsnorm", "norm_kind=layernorm", "act=swiglu", "act=gelu-tanh",
          "kv_heads=1", "kv_heads=K", "bias=0", "lm_head=none", "lm_head=tied",
          "lm_head=separate", "grouped cross-attention"})
        EXPECT_TRUE(seen.count(want)) << "no fixture case with " << want;
}

// config.json of every case has exactly the keys core/config.cpp writes.
TEST(TorchAgreement, FixtureConfigsUseConfigToJsonKeys) {
    for (const auto& d : case_dirs(kTorchDir, "config.json")) {
        SCOPED_TRACE(d.filename().string());
        const nlohmann::json stored = read_json(d / "config.json");
        const nlohmann::json ours = hs::config_to_json(hs::config_from_json(stored));
        std::set<std::string> stored_keys, our_keys;
        for (const auto& [k, v] : stored.items()) stored_keys.insert(k);
        for (const auto& [k, v] : ours.items()) our_keys.insert(k);
        EXPECT_EQ(stored_keys, our_keys);
        EXPECT_EQ(ours.at("arch"), stored.at("arch"));
        EXPECT_EQ(ours.at("mask"), stored.at("mask"));
    }
}

TEST(TorchAgreement, EveryModelCaseMatchesPyTorchWithin1e5) {
    const auto dirs = case_dirs(kTorchDir, "config.json");
    ASSERT_GE(static_cast<int>(dirs.size()), kMinModelCases) << kTorchDir;
    for (const auto& d : dirs) check_model_dir(d);
}

// TraceOptions::detail_layer captures one attention block; its output, weights and scaled
// scores must equal nn.MultiheadAttention's for every layer, self and cross.
TEST(TorchAgreement, AttentionStepsOfEveryLayerMatchPyTorch) {
    for (const auto& d : case_dirs(kTorchDir, "config.json")) {
        const hs::Model model = hs::load_model_dir(d.string());
        const auto f = hs::SafetensorsFile::open((d / "expected.safetensors").string());
        const hs::ForwardInput in = input_for(d);
        for (const bool in_decoder : {false, true}) {
            if (in_decoder && !model.config().has_decoder_stack()) continue;
            const std::string stack = in_decoder ? "decoder" : "main";
            for (const bool cross : {false, true}) {
                if (cross && !in_decoder) continue;
                const std::string kind = cross ? "cross" : "self";
                for (int il = 0; il < model.config().layers; ++il) {
                    const std::string base = stack + ".layers." + std::to_string(il) + "." + kind;
                    SCOPED_TRACE(testing::Message() << "case " << d.filename().string() << " "
                                                    << base);
                    hs::TraceOptions opt;
                    opt.detail_layer = il;
                    opt.detail_in_decoder = in_decoder;
                    opt.detail_cross = cross;
                    const hs::Trace t = model.forward(in, opt);
                    ASSERT_TRUE(t.steps);
                    const float out_diff =
                        max_abs_diff(t.steps->output, expected_slice(*f, base + "_attn_output", 0));
                    EXPECT_LT(out_diff, kTolerance) << "attention output max abs diff " << out_diff;
                    const float w_diff = heads_diff(*f, base + "_weights", t.steps->weights);
                    EXPECT_LT(w_diff, kTolerance) << "weights max abs diff " << w_diff;
                    const float s_diff = heads_diff(*f, base + "_scores", t.steps->scaled_scores);
                    EXPECT_LT(s_diff, kTolerance) << "scaled scores max abs diff " << s_diff;
                }
            }
        }
    }
}

// multi_head_attention (fused) and multi_head_attention_naive against nn.MultiheadAttention.
TEST(TorchAgreement, MultiHeadAttentionMatchesNnMultiheadAttention) {
    const auto dirs = case_dirs(kTorchDir, "attention.safetensors");
    ASSERT_FALSE(dirs.empty()) << "no mha_* case in " << kTorchDir;
    for (const auto& d : dirs) {
        SCOPED_TRACE(testing::Message() << "case " << d.filename().string());
        const nlohmann::json j = read_json(d / "input.json");
        const auto f = hs::SafetensorsFile::open((d / "attention.safetensors").string());
        hs::AttentionWeights w;
        w.heads = j.at("heads").get<int>();
        w.in_proj_weight = f->matrix("in_proj_weight");
        w.in_proj_bias = f->vector("in_proj_bias");
        w.out_proj_weight = f->matrix("out_proj.weight");
        w.out_proj_bias = f->vector("out_proj.bias");
        hs::AttentionMask mask;
        mask.causal = j.at("causal").get<bool>();
        mask.key_padding = j.at("key_padding").get<std::vector<int>>();
        const hs::Matrix xq = f->matrix("x_query"), xm = f->matrix("x_memory");

        const hs::AttentionRun fused = hs::run_attention(w, xq, xm, {.mask = mask}, nullptr, /*scores=*/true);
        const float out_diff = max_abs_diff(fused.output, f->matrix("output"));
        EXPECT_LT(out_diff, kTolerance) << "fused output max abs diff " << out_diff;
        const float w_diff = heads_diff(*f, "weights", fused.weights);
        EXPECT_LT(w_diff, kTolerance) << "fused weights max abs diff " << w_diff;
        const float s_diff = heads_diff(*f, "scores", fused.scores);
        EXPECT_LT(s_diff, kTolerance) << "fused scores max abs diff " << s_diff;

        const hs::AttentionResult naive = hs::multi_head_attention_naive(w, xq, xm, mask);
        const float naive_diff = max_abs_diff(naive.output, f->matrix("output"));
        EXPECT_LT(naive_diff, kTolerance) << "naive output max abs diff " << naive_diff;
    }
}

// Directories written by hs::save_model_dir loaded into PyTorch with
// load_state_dict(strict=True) (the generator fails otherwise); PyTorch's outputs on them
// must equal HeadScope's.
TEST(TorchAgreement, HeadScopeSavedModelsRunTheSameInPyTorch) {
    const auto dirs = case_dirs(kSavedDir, "expected.safetensors");
    ASSERT_GE(static_cast<int>(dirs.size()), kMinSavedModels)
        << "expected saved models with expected.safetensors in " << kSavedDir
        << "; see tests/fixtures/torch/README.md";
    for (const auto& d : dirs) check_model_dir(d);
}

// Llama-shaped playground decoders that `headscope save` wrote as Hugging Face Llama
// directories, read by an independent PyTorch Llama (tests/gen_modern_fixtures.py: HF
// names, rotate-half RoPE, so the interleaved model's permuted W_q/W_k rows are checked
// too); HeadScope reopens them through open_source and must give the same numbers.
TEST(TorchAgreement, SavedHuggingFaceLlamaDirectoriesRunTheSameInPyTorch) {
    const auto dirs = case_dirs(kSavedHfDir, "expected.safetensors");
    ASSERT_GE(dirs.size(), 2u) << "expected saved HF Llama directories in " << kSavedHfDir;
    for (const auto& d : dirs) {
        SCOPED_TRACE(d.filename().string());
        const auto source = hs::open_source(d.string());
        ASSERT_NE(source->model(), nullptr);
        EXPECT_EQ(source->config().family, "llama");
        hs::TraceOptions opt;
        opt.scores = true;
        const hs::Trace trace = source->model()->forward(input_for(d), opt);
        const auto expected = hs::SafetensorsFile::open((d / "expected.safetensors").string());
        expect_layer_counts(*expected, trace);
        EXPECT_GT(expect_trace_matches(*expected, trace), 3);
    }
}
