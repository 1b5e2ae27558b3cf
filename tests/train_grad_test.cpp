// The trainer's hand-written backward (core/train/) against PyTorch autograd: fixtures by
// tests/gen_train_fixtures.py hold a model, a sequence, the next-token loss, all logits
// and the gradient of the loss for every parameter.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/io/model_dir.h"
#include "core/io/safetensors.h"
#include "core/io/state_dict.h"
#include "core/model/model.h"
#include "core/train/adamw.h"
#include "core/model/weights.h"
#include "core/train/model_grad.h"
#include "core/train/parameters.h"

namespace hs {
namespace {

namespace fs = std::filesystem;

const fs::path kTrainDir = fs::path(HEADSCOPE_FIXTURES_DIR) / "train";

std::vector<fs::path> cases() {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(kTrainDir))
        if (e.is_directory()) out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

// A case's input: {"ids"} for a single stack, {"source", "target"} for an encoder–decoder.
struct CaseInput {
    std::vector<int> ids, source;
};
CaseInput input_of(const fs::path& dir) {
    std::ifstream in(dir / "input.json");
    const nlohmann::json j = nlohmann::json::parse(in);
    if (j.contains("ids")) return {j.at("ids").get<std::vector<int>>(), {}};
    return {j.at("target").get<std::vector<int>>(), j.at("source").get<std::vector<int>>()};
}

train::LossAndGrads loss_of(const Model& model, const CaseInput& in) {
    if (in.source.empty()) return train::next_token_loss(model.config(), model.weights(), in.ids);
    return train::seq2seq_loss(model.config(), model.weights(), in.source, in.ids);
}

// |got − want| ≤ 1e-5 + 1e-3·|want| element-wise: float32 sums in another order.
void expect_close(const std::vector<float>& got, const std::vector<float>& want, const std::string& what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    float worst = 0.0f;
    std::size_t at = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
        const float excess = std::abs(got[i] - want[i]) - (1e-5f + 1e-3f * std::abs(want[i]));
        if (excess > worst) worst = excess, at = i;
    }
    EXPECT_EQ(worst, 0.0f) << what << "[" << at << "]: " << got[at] << " vs PyTorch " << want[at];
}

TEST(TrainGrad, LossLogitsAndEveryGradientEqualPyTorchAutograd) {
    const std::vector<fs::path> dirs = cases();
    ASSERT_GE(dirs.size(), 6u);
    int seq2seq = 0;
    for (const fs::path& dir : dirs) {
        SCOPED_TRACE(dir.filename().string());
        const Model model = load_model_dir(dir.string());
        const CaseInput in = input_of(dir);
        seq2seq += in.source.empty() ? 0 : 1;
        const train::LossAndGrads r = loss_of(model, in);
        const auto file = SafetensorsFile::open((dir / "expected.safetensors").string());
        const SafetensorsFile& expected = *file;
        EXPECT_NEAR(r.loss, expected.values("loss")[0], 1e-5);
        expect_close(std::vector<float>(r.logits.data(), r.logits.data() + r.logits.size()), expected.values("logits"),
                     "logits");
        int compared = 0;
        for (const NamedTensor& g : to_state_dict(model.config(), r.grads)) {
            ASSERT_TRUE(expected.has("grad." + g.name)) << g.name;
            expect_close(g.data, expected.values("grad." + g.name), "grad of " + g.name);
            ++compared;
        }
        EXPECT_EQ(compared + 2, static_cast<int>(expected.tensors().size())) << "a parameter without a gradient";
    }
    EXPECT_EQ(seq2seq, 2) << "the encoder–decoder cases (cross-attention)";
}

// Central differences on the loss, independent of PyTorch: for every option the
// playground offers (norm kind and placement, each position encoding and RoPE layout,
// each activation, GQA, biases or none, tied or separate head), a few entries of every
// parameter tensor are moved by ±ε and (L(w+ε) − L(w−ε)) / 2ε is compared with the
// analytic gradient. The forward is float32 (its loss is summed in double), so ε = 4e-3:
// the rounding of a loss near 3 (≈ 3e-7) then errs by ≈ 4e-5 in a difference quotient,
// and the bound is 2e-3 + 3 % of the gradient; a wrong backward misses it by far.
TEST(TrainGrad, EveryGradientMatchesCentralDifferences) {
    struct Option {
        const char* spec;
    };
    const Option options[] = {
        {"norm=pre-ln,pe=learned,act=relu,lm_head=tied"},
        {"norm=post-ln,pe=sinusoidal,act=gelu,lm_head=separate"},
        {"norm=rmsnorm,pe=rope,rope=rotate-half,act=swiglu,kv_heads=1,bias=0,lm_head=separate"},
        {"norm=post-rmsnorm,pe=rope,rope=interleaved,act=gelu-tanh,lm_head=tied"},
        {"norm=pre-ln,pe=none,act=gelu,kv_heads=2,heads=4,lm_head=tied"},
        // encoder–decoder: cross-attention, three norms per decoder layer, both final norms
        {"arch=encoder-decoder,norm=pre-ln,pe=learned,act=gelu,lm_head=tied"},
        {"arch=encoder-decoder,norm=post-rmsnorm,pe=rope,act=swiglu,kv_heads=1,lm_head=separate"},
    };
    const std::vector<int> ids = {0, 5, 9, 2, 5, 9, 7}, source = {0, 3, 8, 10, 1};
    for (const Option& o : options) {
        SCOPED_TRACE(o.spec);
        ModelConfig c = parse_playground_spec(
            merge_playground_specs("random:arch=decoder,d_model=8,heads=2,layers=2,d_ff=12,vocab=11,max_len=16,seed=5",
                                   std::string("random:") + o.spec));
        ensure_valid(c);
        ModelWeights w = init_weights(c);
        const auto loss = [&] {
            return c.arch == Arch::EncoderDecoder ? train::seq2seq_loss(c, w, source, ids) : train::next_token_loss(c, w, ids);
        };
        const train::LossAndGrads r = loss();
        ModelWeights grads = r.grads;
        std::vector<train::Parameter> params = train::parameters_of(w), g = train::parameters_of(grads);
        ASSERT_EQ(params.size(), g.size());
        constexpr float eps = 4e-3f;
        int checked = 0;
        for (std::size_t k = 0; k < params.size(); ++k)
            for (std::size_t n = 0; n < 3 && n < params[k].size; ++n) {
                const std::size_t i = (n * 7919 + k * 104729) % params[k].size;  // spread over the tensor
                const float saved = params[k].data[i];
                params[k].data[i] = saved + eps;
                const double up = loss().loss;
                params[k].data[i] = saved - eps;
                const double down = loss().loss;
                params[k].data[i] = saved;
                const double fd = (up - down) / (2.0 * eps), analytic = g[k].data[i];
                EXPECT_NEAR(analytic, fd, 2e-3 + 0.03 * std::abs(fd)) << "parameter tensor " << k << " entry " << i;
                ++checked;
            }
        EXPECT_GT(checked, 40);
    }
}

TEST(TrainGrad, TheTrainingForwardIsTheRuntimesForward) {
    // The last row of the training logits is Model::forward's next-token logits.
    for (const fs::path& dir : cases()) {
        SCOPED_TRACE(dir.filename().string());
        const Model model = load_model_dir(dir.string());
        const CaseInput input = input_of(dir);
        const train::LossAndGrads r = loss_of(model, input);
        ForwardInput in;
        in.ids = input.source.empty() ? input.ids : input.source;
        if (!input.source.empty()) in.decoder_ids = input.ids;
        const Trace t = model.forward(in, TraceOptions{});
        ASSERT_EQ(t.next_token_logits.size(), r.logits.cols());
        for (Eigen::Index v = 0; v < r.logits.cols(); ++v)
            EXPECT_NEAR(r.logits(r.logits.rows() - 1, v), t.next_token_logits(v), 2e-5f) << v;
    }
}

TEST(TrainGrad, RefusesWhatItCannotTrainWithAReason) {
    const Model model = load_model_dir((kTrainDir / "llama_block").string());
    const auto message_of = [&](const ModelConfig& c, std::vector<int> ids) {
        try {
            (void)train::next_token_loss(c, model.weights(), ids);
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(message_of(model.config(), {3}), "a training sequence needs at least 2 tokens (got 1)");
    EXPECT_EQ(message_of(model.config(), {3, 29}), "token id 29 is outside the vocabulary of 29");
    ModelConfig no_head = model.config();
    no_head.lm_head = LmHead::None;
    EXPECT_EQ(message_of(no_head, {1, 2}), "training needs a model with an LM head (lm_head=tied or lm_head=separate)");
    ModelConfig enc_dec = model.config();
    enc_dec.arch = Arch::EncoderDecoder;
    EXPECT_EQ(message_of(enc_dec, {1, 2}),
              "an encoder–decoder model trains on a source and a target (seq2seq_loss), not on one sequence");
}

TEST(AdamW, ScheduleWarmsUpThenFollowsTheCosineToItsFloor) {
    // lr 1e-2, warm-up 2 of 6 steps, floor 0.1: 5e-3, 1e-2, then 1e-2·(0.1 + 0.9·½(1 + cos(π·k/4))).
    train::AdamWOptions o;
    o.lr = 1e-2f;
    o.warmup_steps = 2;
    o.total_steps = 6;
    o.min_lr_ratio = 0.1f;
    EXPECT_FLOAT_EQ(train::learning_rate_at(1, o), 5e-3f);
    EXPECT_FLOAT_EQ(train::learning_rate_at(2, o), 1e-2f);
    EXPECT_FLOAT_EQ(train::learning_rate_at(4, o), 1e-2f * (0.1f + 0.9f * 0.5f));  // halfway: cos(π/2) = 0
    EXPECT_FLOAT_EQ(train::learning_rate_at(6, o), 1e-3f);
    EXPECT_FLOAT_EQ(train::learning_rate_at(60, o), 1e-3f);  // stays at the floor
}

TEST(AdamW, ThreeStepsEqualTorchOptimAdamWWithClippingAndTheSchedule) {
    // tests/gen_train_fixtures.py ADAMW: the same settings, torch.optim.AdamW with decay on
    // matrices only and clip_grad_norm_ before each step.
    const fs::path dir = kTrainDir / "llama_block";
    const Model model = load_model_dir(dir.string());
    const std::vector<int> ids = input_of(dir).ids;
    train::AdamWOptions o;
    o.lr = 1e-2f;
    o.beta1 = 0.9f;
    o.beta2 = 0.95f;
    o.eps = 1e-3f;
    o.weight_decay = 0.1f;
    o.warmup_steps = 1;
    o.total_steps = 3;
    o.min_lr_ratio = 0.1f;
    o.clip_norm = 1.0f;
    ModelWeights w = model.weights();
    train::AdamW adam(w, o);
    const auto file = SafetensorsFile::open((dir / "after_adamw.safetensors").string());
    const std::vector<float> losses = file->values("adamw.loss"), norms = file->values("adamw.grad_norm");
    ASSERT_EQ(losses.size(), 3u);
    for (int step = 0; step < 3; ++step) {
        train::LossAndGrads r = train::next_token_loss(model.config(), w, ids);
        EXPECT_NEAR(r.loss, losses[static_cast<std::size_t>(step)], 1e-4) << step;
        const double norm = adam.step(w, r.grads);
        EXPECT_NEAR(norm, norms[static_cast<std::size_t>(step)], 1e-4 * norms[static_cast<std::size_t>(step)]) << step;
    }
    EXPECT_EQ(adam.steps_taken(), 3);
    int compared = 0;
    for (const NamedTensor& t : to_state_dict(model.config(), w)) {
        expect_close(t.data, file->values(t.name), "after 3 steps: " + t.name);
        ++compared;
    }
    EXPECT_EQ(compared + 2, static_cast<int>(file->tensors().size()));
}

}  // namespace
}  // namespace hs
