// A Hugging Face checkpoint too large for memory as f32 reads its layers from its
// safetensors files as the forward reaches them (core/formats/hf_loader.h). For every
// family's fixture (tests/gen_hf_fixtures.py) the model read that way gives the PyTorch
// reference's maps and logits and the same trace as the model held in memory; a weight
// that is not finite, or a file cut short after it opened, is named by the forward.
#include <cmath>
#include <cstring>
#include <filesystem>

#include <gtest/gtest.h>

#include "core/formats/hf_loader.h"
#include "core/formats/hf_tensors.h"
#include "core/io/safetensors.h"
#include "tests/test_util.h"

namespace hs {
namespace {

namespace fs = std::filesystem;

std::string layer_case_dir(const std::string& name) { return std::string(HEADSCOPE_FIXTURES_DIR) + "/hf/" + name; }

void expect_near(const Matrix& a, const Matrix& b, float tol, const std::string& what) {
    ASSERT_EQ(a.rows(), b.rows()) << what;
    ASSERT_EQ(a.cols(), b.cols()) << what;
    if (a.size() > 0) {
        EXPECT_LE((a - b).cwiseAbs().maxCoeff(), tol) << what;
    }
}

TraceOptions with_steps(int layer) {
    TraceOptions opt;
    opt.scores = true;
    opt.detail_layer = layer;
    return opt;
}

class EveryHfFamily : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryHfFamily, LayersReadFromTheFilesGiveTheTorchMapsAndTheInMemoryTrace) {
    const std::string dir = layer_case_dir(GetParam());
    const Model held = load_hf_model(dir, nullptr, WeightResidency::InMemory);
    const Model read = load_hf_model(dir, nullptr, WeightResidency::PerLayer);
    EXPECT_FALSE(held.reads_layers_from_file());
    ASSERT_TRUE(read.reads_layers_from_file());
    EXPECT_EQ(read.parameter_count(), held.parameter_count());
    EXPECT_EQ(read.stored_dtype(), held.stored_dtype() + ", read one layer at a time");
    EXPECT_LT(read.f32_weight_bytes(), held.f32_weight_bytes());
    // The token embedding (and a separate head) stay in the files: a lookup converts its
    // tokens' rows, the head's product a panel at a time.
    EXPECT_EQ(read.resident_weights().embed.size(), 0);
    ASSERT_NE(read.resident_weights().embed_stored, nullptr);
    EXPECT_EQ(read.resident_weights().embed_stored->rows, read.config().vocab);
    EXPECT_EQ(read.resident_weights().lm_head_stored != nullptr, read.config().lm_head == LmHead::Separate);
    // The memory plan counts as left in the files (hf_embed_or_head, by tensor name) exactly
    // what the family's reader left there.
    const StoredMatrix* head = read.resident_weights().lm_head_stored;
    const double left_in_files = double(read.config().vocab) * read.resident_weights().embed_stored->cols +
                                 (head ? double(head->rows) * head->cols : 0.0);
    EXPECT_EQ(hf_footprint(HfTensors(dir, read.config().family), read.config()).embed_head_params, left_in_files);

    const auto expected = SafetensorsFile::open(dir + "/expected.safetensors");
    std::vector<int> ids;
    const Vector v = expected->vector("ids");
    for (Eigen::Index i = 0; i < v.size(); ++i) ids.push_back(static_cast<int>(v(i)));
    const ForwardInput in = ForwardInput::of(ids);
    const int last = read.config().layers - 1;
    const Trace a = held.forward(in, with_steps(last));
    const Trace b = read.forward(in, with_steps(last));
    ASSERT_EQ(b.main.layers.size(), a.main.layers.size());
    for (std::size_t il = 0; il < a.main.layers.size(); ++il) {
        const std::string where = "layer " + std::to_string(il);
        expect_near(b.main.layers[il].output, a.main.layers[il].output, 1e-5f, where + " output");
        expect_near(b.main.layers[il].output, expected->matrix("layers." + std::to_string(il) + ".output"),
                    1e-4f, where + " output vs torch");
        for (std::size_t h = 0; h < b.main.layers[il].self_attn.weights.size(); ++h)
            expect_near(b.main.layers[il].self_attn.weights[h],
                        expected->matrix("layers." + std::to_string(il) + ".heads." + std::to_string(h)), 1e-4f,
                        where + " head " + std::to_string(h) + " vs torch");
    }
    if (expected->has("logits")) {
        const Vector logits = read.next_token_logits(in);
        expect_near(logits.transpose(), expected->matrix("logits"), 1e-4f, "logits vs torch");
        expect_near(b.next_token_logits.transpose(), a.next_token_logits.transpose(), 1e-5f, "logits vs in memory");
    }
    // The Pipeline's block converts the layer's attention weights from the files: the same
    // weights as the layer that ran.
    ASSERT_TRUE(a.steps && b.steps);
    expect_near(b.steps->w_in, a.steps->w_in, 0.0f, "steps W_in");
    expect_near(b.steps->w_out, a.steps->w_out, 0.0f, "steps W_out");
    expect_near(b.steps->qkv, a.steps->qkv, 1e-5f, "steps QKV");
}

INSTANTIATE_TEST_SUITE_P(HfLayerSource, EveryHfFamily,
                         ::testing::Values("gpt2", "gpt2_bf16", "bert", "bert_prefixed", "llama", "llama_f16",
                                           "llama_sharded", "qwen2", "mistral", "llama31", "qwen3", "gpt_neox",
                                           "gpt_neox_sequential", "gpt_neo", "qwen2_window", "phi3", "gemma", "gemma2",
                                           "gemma3"));

TEST(HfLayerSource, TheLayerOfATensorIsReadFromEachFamilysNames) {
    EXPECT_EQ(hf_layer_of("model.layers.12.mlp.up_proj.weight"), 12);
    EXPECT_EQ(hf_layer_of("bert.encoder.layer.3.output.dense.bias"), 3);
    EXPECT_EQ(hf_layer_of("transformer.h.0.attn.c_attn.weight"), 0);
    EXPECT_EQ(hf_layer_of("h.7.ln_1.weight"), 7);
    EXPECT_EQ(hf_layer_of("gpt_neox.layers.5.attention.dense.weight"), 5);
    EXPECT_EQ(hf_layer_of("model.embed_tokens.weight"), -1);
    EXPECT_EQ(hf_layer_of("model.norm.weight"), -1);
    EXPECT_EQ(hf_layer_of("lm_head.weight"), -1);
    EXPECT_EQ(hf_layer_of("model.layers.x.weight"), -1);
    EXPECT_EQ(hf_layer_of("path.12.weight"), -1);  // "h." must start a name part
}

TEST(HfLayerSource, OpeningChecksEveryLayerAndReportsEach) {
    std::vector<int> done;
    (void)load_hf_model(layer_case_dir("gemma3"), [&](int d, int total) {
        EXPECT_EQ(total, 3);
        done.push_back(d);
        return true;
    }, WeightResidency::PerLayer);
    EXPECT_EQ(done, (std::vector<int>{1, 2, 3}));
    EXPECT_THROW((void)load_hf_model(layer_case_dir("gemma3"), [](int d, int) { return d < 2; }, WeightResidency::PerLayer),
                 Cancelled);
    // A later layer's tensor of the wrong shape is refused at open, before any forward.
    test::TempDir dir;
    fs::copy_file(layer_case_dir("llama") + "/config.json", dir.file("config.json"));
    const auto file = SafetensorsFile::open(layer_case_dir("llama") + "/model.safetensors");
    std::vector<NamedTensor> tensors;
    for (const auto& [name, info] : file->tensors()) {
        const std::vector<float> values = file->values(name);
        tensors.push_back({name, info.shape, values});
        if (name == "model.layers.1.mlp.up_proj.weight") tensors.back().shape = {info.shape[1], info.shape[0]};
    }
    write_safetensors(dir.file("model.safetensors"), tensors);
    test::expect_error([&] { (void)load_hf_model(dir.str(), nullptr, WeightResidency::PerLayer); },
                       {"'model.layers.1.mlp.up_proj.weight' has shape"});
}

// A copy of the llama fixture with row 0, column 5 of layer 1's down_proj set to NaN.
std::string llama_with_nan(const test::TempDir& dir) {
    fs::copy_file(layer_case_dir("llama") + "/config.json", dir.file("config.json"));
    const auto file = SafetensorsFile::open(layer_case_dir("llama") + "/model.safetensors");
    std::vector<NamedTensor> tensors;
    for (const auto& [name, info] : file->tensors()) {
        tensors.push_back({name, info.shape, file->values(name)});
        if (name == "model.layers.1.mlp.down_proj.weight") tensors.back().data[5] = std::nanf("");
    }
    write_safetensors(dir.file("model.safetensors"), tensors);
    return dir.str();
}

// Opening checks every layer's names, shapes and vectors, not its matrices; a NaN in layer
// 1's stored weights is named by every forward that reaches it, until the file is mended.
TEST(HfLayerSource, AWeightThatIsNotFiniteInALaterLayerIsNamedByTheForward) {
    test::TempDir dir;
    const Model read = load_hf_model(llama_with_nan(dir), nullptr, WeightResidency::PerLayer);
    for (int attempt = 0; attempt < 2; ++attempt)
        test::expect_error([&] { (void)read.next_token_logits(ForwardInput::of({1, 5, 9})); },
                           {"model.safetensors: tensor 'model.layers.1.mlp.down_proj.weight' holds NaN at [0, 5]",
                            "not finite numbers"});
    // In memory the same file does not open.
    test::expect_error([&] { (void)load_hf_model(dir.str(), nullptr, WeightResidency::InMemory); },
                       {"model.safetensors: tensor 'model.layers.1.mlp.down_proj.weight' holds NaN at [0, 5]"});
}

// The file is cut short after it opened: the forward that reaches the missing bytes stops
// with the file and the tensor named, never a crash or a stale layer.
TEST(HfLayerSource, AFileTruncatedAfterOpeningIsAnErrorNamingTheTensor) {
    test::TempDir dir;
    const std::string path = dir.file("model.safetensors");
    fs::copy_file(layer_case_dir("llama") + "/config.json", dir.file("config.json"));
    fs::copy_file(layer_case_dir("llama") + "/model.safetensors", path);
    const Model read = load_hf_model(dir.str(), nullptr, WeightResidency::PerLayer);
    // The data block ends the file: its start is the file's size less the last tensor's end.
    const auto file = SafetensorsFile::open(path);
    std::uint64_t data_end = 0, down1 = 0;
    for (const auto& [name, info] : file->tensors()) data_end = std::max(data_end, info.end);
    down1 = file->info("model.layers.1.mlp.down_proj.weight").begin;
    fs::resize_file(path, fs::file_size(path) - data_end + down1 + 1);  // layer 1's down_proj cut after a byte
    test::expect_error([&] { (void)read.next_token_logits(ForwardInput::of({1, 5, 9})); },
                       {"model.safetensors", "changed while it was read", "tensor 'model.layers."});
}

}  // namespace
}  // namespace hs
