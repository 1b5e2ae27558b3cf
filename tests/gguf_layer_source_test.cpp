// A GGUF model too large for memory as f32 reads its layers from the file as the forward
// reaches them (core/formats/gguf_layer_source.h). On every architecture's fixture the
// model read that way gives the torch reference's logits (tests/gen_gguf_fixtures.py) and
// the same maps, hidden states and Pipeline steps as the model held in memory; what it
// cannot do (save, edit, train) and a file that changes under it are refused by name.
#include <cstring>
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/formats/gguf.h"
#include "core/formats/gguf_model.h"
#include "tests/json_fixture.h"
#include "tests/test_util.h"

namespace hs {
namespace {

namespace fs = std::filesystem;

const std::string kLayerGgufDir = std::string(HEADSCOPE_FIXTURES_DIR) + "/gguf";

using hs::test::json_file;

TraceOptions with_steps(int layer) {
    TraceOptions opt;
    opt.scores = true;
    opt.detail_layer = layer;
    return opt;
}

void expect_same_matrix(const Matrix& a, const Matrix& b, const std::string& what) {
    ASSERT_EQ(a.rows(), b.rows()) << what;
    ASSERT_EQ(a.cols(), b.cols()) << what;
    if (a.size() > 0) {
        EXPECT_LE((a - b).cwiseAbs().maxCoeff(), 1e-5f) << what;
    }
}

class EveryArchitecture : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryArchitecture, LayersReadFromTheFileGiveTheTorchLogitsAndTheInMemoryTrace) {
    const std::string path = kLayerGgufDir + "/" + GetParam() + ".gguf";
    const nlohmann::json ref = json_file(kLayerGgufDir + "/" + GetParam() + "_expected.json");
    const GgufCheckpoint held = load_gguf(path, nullptr, WeightResidency::InMemory);
    const GgufCheckpoint read = load_gguf(path, nullptr, WeightResidency::PerLayer);
    EXPECT_FALSE(held.model.reads_layers_from_file());
    ASSERT_TRUE(read.model.reads_layers_from_file());
    EXPECT_EQ(read.model.parameter_count(), held.model.parameter_count());
    EXPECT_NE(read.model.stored_dtype().find("read one layer at a time"), std::string::npos);
    // f32 held: everything in memory, or all but the layers and one layer (the fixtures'
    // layers are alike, so "one layer" is blk.0's tensors summed from the file).
    const auto file = GgufFile::open(path);
    double all = 0, layers = 0, layer0 = 0, embed_head = 0;
    for (const GgufTensor& t : file->tensors()) {
        all += static_cast<double>(t.numel());
        if (t.name == "token_embd.weight" || t.name == "output.weight") embed_head += static_cast<double>(t.numel());
        if (t.name.rfind("blk.", 0) == 0) layers += static_cast<double>(t.numel());
        if (t.name.rfind("blk.0.", 0) == 0) layer0 += static_cast<double>(t.numel());
    }
    EXPECT_DOUBLE_EQ(held.model.f32_weight_bytes(), 4 * all);
    EXPECT_DOUBLE_EQ(read.model.f32_weight_bytes(), 4 * (all - layers - embed_head + layer0));
    // The token embedding (and a separate head) stay in the file: a lookup converts its
    // tokens' rows, the head's product a panel at a time.
    const ModelWeights& w = read.model.resident_weights();
    EXPECT_EQ(w.embed.size(), 0);
    ASSERT_NE(w.embed_stored, nullptr);
    EXPECT_EQ(w.embed_stored->rows, read.model.config().vocab);
    EXPECT_EQ(w.lm_head_stored != nullptr, read.model.config().lm_head == LmHead::Separate);

    const ForwardInput in = ForwardInput::of(ref["ids"].get<std::vector<int>>());
    const int last = read.model.config().layers - 1;
    const Trace a = held.model.forward(in, with_steps(last));
    const Trace b = read.model.forward(in, with_steps(last));
    test::expect_values_near(b.next_token_logits, ref["next_token_logits"], 1e-4f, "logit");
    expect_same_matrix(b.next_token_logits, a.next_token_logits, "logits vs in memory");
    for (std::size_t il = 0; il < a.main.layers.size(); ++il) {
        const std::string where = "layer " + std::to_string(il);
        expect_same_matrix(a.main.layers[il].output, b.main.layers[il].output, where + " output");
        ASSERT_EQ(a.main.layers[il].self_attn.weights.size(), b.main.layers[il].self_attn.weights.size());
        for (std::size_t h = 0; h < a.main.layers[il].self_attn.weights.size(); ++h)
            expect_same_matrix(a.main.layers[il].self_attn.weights[h], b.main.layers[il].self_attn.weights[h],
                               where + " head " + std::to_string(h));
    }
    // The Pipeline's block converts the layer's attention weights from the file: the same
    // weights as the layer that ran.
    ASSERT_TRUE(a.steps && b.steps);
    expect_same_matrix(a.steps->w_in, b.steps->w_in, "steps W_in");
    expect_same_matrix(a.steps->w_out, b.steps->w_out, "steps W_out");
    expect_same_matrix(a.steps->qkv, b.steps->qkv, "steps QKV");
    // A block's maps recomputed from the trace read the layer again.
    const HeadMaps again = recompute_layer_maps(read.model, b, HeadRef{last, 0, false, false}, true);
    ASSERT_EQ(again.weights.size(), b.main.layers[last].self_attn.weights.size());
    expect_same_matrix(again.weights[0], b.main.layers[last].self_attn.weights[0], "recomputed head 0");
}

INSTANTIATE_TEST_SUITE_P(GgufLayerSource, EveryArchitecture,
                         ::testing::Values("tiny_llama", "tiny_qwen2", "tiny_qwen3", "tiny_gemma", "tiny_gemma2",
                                           "tiny_gemma3", "tiny_phi3", "tiny_gpt2", "tiny_gptneox"));

TEST(GgufLayerSource, AModelReadLayerByLayerCannotBeSavedEditedOrTrained) {
    GgufCheckpoint read = load_gguf(kLayerGgufDir + "/tiny_llama.gguf", nullptr, WeightResidency::PerLayer);
    const std::string why = "is read from its file one layer at a time (it does not fit in memory as f32), "
                            "so it cannot be saved, edited or trained";
    test::expect_error([&] { (void)read.model.weights(); }, {"tiny_llama.gguf'", why});
    test::expect_error([&] { (void)read.model.mutable_weights(); }, {why});
    // A heads edit is refused as for the model in memory (grouped-query heads are fixed);
    // the layers stay in the file either way.
    EXPECT_THROW((void)read.model.with_heads(2), Error);
}

TEST(GgufLayerSource, LoadingChecksEveryLayerAndReportsEach) {
    std::vector<int> done;
    (void)load_gguf(kLayerGgufDir + "/tiny_gemma3.gguf", [&](int d, int total) {
        EXPECT_EQ(total, 3);
        done.push_back(d);
        return true;
    }, WeightResidency::PerLayer);
    EXPECT_EQ(done, (std::vector<int>{1, 2, 3}));
    EXPECT_THROW((void)load_gguf(kLayerGgufDir + "/tiny_gemma3.gguf", [](int d, int) { return d < 2; },
                                 WeightResidency::PerLayer),
                 Cancelled);
}

// The file is cut short after it opened: the first forward after it stops with the file
// and a tensor named (the one that reaches the missing bytes, or the first product that
// sees the file changed), never a crash or a stale layer.
TEST(GgufLayerSource, AFileTruncatedAfterOpeningIsAnErrorNamingTheTensor) {
    test::TempDir dir;
    const std::string path = dir.file("cut.gguf");
    fs::copy_file(kLayerGgufDir + "/tiny_llama.gguf", path);
    const GgufCheckpoint read = load_gguf(path, nullptr, WeightResidency::PerLayer);
    const auto file = GgufFile::open(path);
    const GgufTensor* layer1 = file->find_tensor("blk.1.ffn_down.weight");
    ASSERT_NE(layer1, nullptr);
    fs::resize_file(path, fs::file_size(path) - 2 * layer1->bytes);  // the last tensors are layer 1's
    test::expect_error([&] { (void)read.model.next_token_logits(ForwardInput::of({1, 5, 9})); },
                       {"cut.gguf", "changed while it was read", "tensor 'blk."});
}


// A layer read for its products leaves its linear weights in the file; each is checked
// finite the first time its layer is read, so a NaN the open did not reach (it checks layer 0) is
// named by the forward that reaches it, every time until the file is mended.
TEST(GgufLayerSource, AWeightThatIsNotFiniteInALaterLayerIsNamedByTheForward) {
    test::TempDir dir;
    const std::string path = dir.file("nan.gguf");
    fs::copy_file(kLayerGgufDir + "/tiny_llama.gguf", path);
    {
        const auto file = GgufFile::open(path);
        const GgufTensor& t = *file->find_tensor("blk.1.ffn_down.weight");
        ASSERT_EQ(t.type, StoredType::Q8_0);  // blocks of an f16 scale and 32 int8
        const std::size_t at = file->stored_rows(t, 0, 1, 0).offset;  // of row 0 in the file
        std::string bytes = test::read_text(path);
        const std::uint16_t nan = 0x7E00;  // the second block's scale: [0, 32 … 63] NaN
        std::memcpy(bytes.data() + at + 34, &nan, 2);
        test::write_text(path, bytes);
    }
    const GgufCheckpoint read = load_gguf(path, nullptr, WeightResidency::PerLayer);
    for (int attempt = 0; attempt < 2; ++attempt)
        test::expect_error([&] { (void)read.model.next_token_logits(ForwardInput::of({1, 5, 9})); },
                           {"nan.gguf: tensor 'blk.1.ffn_down.weight' holds NaN at [0, 32]"});
}

}  // namespace
}  // namespace hs
