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
#include "core/train/checkpoint.h"
#include "core/train/trainer.h"
#include "core/model/weights.h"
#include "core/train/model_grad.h"
#include "core/train/parameters.h"
#include "tests/train_reference_loss.h"

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

// Central differences in double precision, independent of PyTorch and of the float32
// forward: tests/train_reference_loss.cpp computes the same loss from the math in double,
// with one weight entry moved by ±ε = 1e-5, so (L(w+ε) − L(w−ε)) / 2ε is the gradient to
// ~1e-9. For every option the playground offers (norm kind and placement, each position
// encoding and RoPE layout, each activation, GQA, biases or none, tied or separate head,
// key padding, the encoder–decoder's cross-attention) and BERT's token type and embedding
// norm, every entry of every parameter tensor is checked: the float32 backward agrees to
// 1e-5 + 1e-3·|g| (its own rounding); a wrong term misses by far more. The reference's
// loss equals the trainer's to 1e-5 first.
struct GradCase {
    const char* spec;
    std::vector<int> key_padding;  // of the sequence (single stack) or of the source
    bool bert_embedding = false;   // token type 0 and the embedding norm
};

std::vector<GradCase> grad_cases() {
    return {
        {"norm=pre-ln,pe=learned,act=relu,lm_head=tied", {}},
        {"norm=post-ln,pe=sinusoidal,act=gelu,lm_head=separate", {}},
        {"norm=rmsnorm,pe=rope,rope=rotate-half,act=swiglu,kv_heads=1,bias=0,lm_head=separate", {}},
        {"norm=post-rmsnorm,pe=rope,rope=interleaved,act=gelu-tanh,lm_head=tied", {}},
        {"norm=pre-ln,pe=none,act=gelu,kv_heads=2,heads=4,lm_head=tied", {}},
        {"norm=pre-ln,pe=learned,act=relu,mask=none,lm_head=tied", {}},
        // key padding: no query sees keys 2 and 5 (query 0 still sees key 0)
        {"norm=pre-ln,pe=rope,act=gelu,lm_head=tied", {2, 5}},
        {"norm=post-ln,pe=learned,act=relu,mask=none,lm_head=separate", {1}, true},
        // encoder–decoder: cross-attention, three norms per decoder layer, both final norms
        {"arch=encoder-decoder,norm=pre-ln,pe=learned,act=gelu,lm_head=tied", {}},
        {"arch=encoder-decoder,norm=post-rmsnorm,pe=rope,act=swiglu,kv_heads=1,lm_head=separate", {3}},
        // a sliding window of 2 keys (Mistral's): each query sees itself and the key before
        {"norm=rmsnorm,pe=rope,act=swiglu,bias=0,window=2,lm_head=separate", {}},
        {"norm=pre-ln,pe=learned,act=gelu,window=3,lm_head=tied", {1}},
        {"arch=encoder-decoder,norm=pre-ln,pe=rope,act=relu,window=2,lm_head=tied", {}},
        // qk-norm (Qwen3): each head's q and k RMS-normalised with γ before the rotation
        {"norm=rmsnorm,pe=rope,act=swiglu,bias=0,qk_norm=1,kv_heads=1,lm_head=separate", {}},
        {"arch=encoder-decoder,norm=post-ln,pe=learned,act=gelu,qk_norm=1,lm_head=tied", {2}},
        // GPT-NeoX (Pythia): attention and feed-forward side by side, rotary on 2 of 4 dims
        {"norm=pre-ln,pe=rope,rotary_dims=2,parallel=1,act=gelu,lm_head=separate", {}},
        {"norm=pre-ln,pe=rope,rotary_dims=2,rope=interleaved,parallel=1,act=swiglu,lm_head=tied", {3}},
        // GPT-Neo: unscaled scores, a global layer then a local one (window 2)
        {"norm=pre-ln,pe=learned,act=gelu-tanh,scale=1,window=2,window_layers=GL,lm_head=tied", {}},
        {"arch=encoder-decoder,norm=pre-ln,pe=rope,act=relu,scale=0.75,window=2,window_layers=LG,lm_head=tied", {1}},
        // Gemma: GeGLU, token embeddings × √d_model read by a tied head
        {"norm=rmsnorm,pe=rope,act=geglu,bias=0,embed_scale=1,kv_heads=1,lm_head=tied", {}},
        {"norm=post-ln,pe=learned,act=geglu,embed_scale=1,lm_head=separate", {2}, true},
        // Gemma 2: sandwich norms, soft-capped scores (cap 1.5) and logits (cap 2), its own
        // score scale, a local layer then a global one
        {"norm=rmsnorm,pe=rope,act=geglu,bias=0,embed_scale=1,sandwich=1,softcap=1.5,logit_softcap=2,scale=0.4,"
         "window=2,window_layers=LG,kv_heads=1,lm_head=tied", {}},
        {"norm=pre-ln,pe=learned,act=gelu,softcap=0.8,logit_softcap=1.5,lm_head=separate", {3}},
        {"norm=pre-ln,pe=learned,act=gelu,sandwich=1,lm_head=tied", {}},  // sandwich LayerNorms (γ, β)
        {"arch=encoder-decoder,norm=pre-ln,pe=learned,act=relu,softcap=0.9,lm_head=tied", {2}},  // capped cross-attention
        // Gemma 3: sandwich norms, qk-norm, the local layer's rope base 100, the global's 10000
        {"norm=rmsnorm,pe=rope,act=geglu,bias=0,sandwich=1,qk_norm=1,window=2,window_layers=LG,local_theta=100,"
         "lm_head=tied", {}},
    };
}

// The case's small model (d_model 8, 2 layers, vocabulary 11).
ModelConfig config_of(const GradCase& option) {
    ModelConfig c = parse_playground_spec(
        merge_playground_specs("random:arch=decoder,d_model=8,heads=2,layers=2,d_ff=12,vocab=11,max_len=16,seed=5",
                               std::string("random:") + option.spec));
    if (option.bert_embedding) {
        c.embed_norm = true;
        c.type_vocab = 2;
    }
    ensure_valid(c);
    return c;
}

const std::vector<int> kGradIds = {0, 5, 9, 2, 5, 9, 7}, kGradSource = {0, 3, 8, 10, 1};

// The case's weights; qk-norm's and the sandwich norms' γ, ones as initialised, made uneven
// (0.8 … 1.2) so that a backward that forgot γ misses.
ModelWeights weights_of(const ModelConfig& c) {
    ModelWeights w = init_weights(c);
    const auto vary = [](Vector& gamma, float shift) {
        for (Eigen::Index i = 0; i < gamma.size(); ++i) gamma(i) = 0.8f + 0.1f * static_cast<float>((i + 1) % 5) + shift;
    };
    for (EncoderLayerWeights& l : w.layers) {
        vary(l.self_attn.q_norm, 0.0f);
        vary(l.self_attn.k_norm, 0.05f);
        if (l.post_attn_norm) vary(l.post_attn_norm->weight, -0.05f);
        if (l.post_ffn_norm) vary(l.post_ffn_norm->weight, 0.03f);
    }
    for (DecoderLayerWeights& l : w.decoder_layers) {
        vary(l.self_attn.q_norm, 0.02f);
        vary(l.self_attn.k_norm, -0.03f);
    }
    return w;
}

TEST(TrainGrad, EveryGradientEntryMatchesDoublePrecisionCentralDifferences) {
    const std::vector<int>& ids = kGradIds;
    const std::vector<int>& source = kGradSource;
    for (const GradCase& option : grad_cases()) {
        SCOPED_TRACE(std::string(option.spec) + (option.bert_embedding ? " + BERT embedding" : ""));
        const ModelConfig c = config_of(option);
        ModelWeights w = weights_of(c);
        const bool enc_dec = c.arch == Arch::EncoderDecoder;
        const std::vector<int>& pad = option.key_padding;
        const train::LossAndGrads r = enc_dec ? train::seq2seq_loss(c, w, source, ids, 1, pad)
                                              : train::next_token_loss(c, w, ids, 1, pad);
        ASSERT_NEAR(test::reference_loss(c, w, source, ids, {}, pad), r.loss, 1e-5);
        ModelWeights grads = r.grads;
        const std::vector<train::Parameter> params = train::parameters_of(w), g = train::parameters_of(grads);
        ASSERT_EQ(params.size(), g.size());
        constexpr double eps = 1e-5;
        std::size_t checked = 0, worst_k = 0, worst_i = 0;
        double worst = 0.0, worst_fd = 0.0, worst_g = 0.0;
        for (std::size_t k = 0; k < params.size(); ++k)
            for (std::size_t i = 0; i < params[k].size; ++i) {
                const double up = test::reference_loss(c, w, source, ids, {params[k].data, i, eps}, pad);
                const double down = test::reference_loss(c, w, source, ids, {params[k].data, i, -eps}, pad);
                const double fd = (up - down) / (2.0 * eps), analytic = g[k].data[i];
                const double excess = std::abs(analytic - fd) - (1e-5 + 1e-3 * std::abs(fd));
                if (excess > worst) worst = excess, worst_k = k, worst_i = i, worst_fd = fd, worst_g = analytic;
                ++checked;
            }
        EXPECT_EQ(worst, 0.0) << "parameter tensor " << worst_k << " entry " << worst_i << ": backward " << worst_g
                              << ", central difference " << worst_fd;
        EXPECT_GT(checked, 1000u);
    }
}

// Training runs Model::forward's forward (run_forward), for every option: the last row of
// its logits is Model::forward's next-token logits, and with a causal mask and no padding
// each row t is the next-token logits of Model::forward on the first t + 1 tokens.
TEST(TrainGrad, TheTrainingForwardIsTheRuntimesForwardForEveryOption) {
    for (const GradCase& option : grad_cases()) {
        SCOPED_TRACE(std::string(option.spec) + (option.bert_embedding ? " + BERT embedding" : ""));
        const ModelConfig c = config_of(option);
        const Model model(c, weights_of(c));
        const bool enc_dec = c.arch == Arch::EncoderDecoder;
        const std::vector<int>& pad = option.key_padding;
        const train::LossAndGrads r = enc_dec ? train::seq2seq_loss(c, model.weights(), kGradSource, kGradIds, 1, pad)
                                              : train::next_token_loss(c, model.weights(), kGradIds, 1, pad);
        const auto runtime_logits = [&](std::size_t tokens) {
            const std::vector<int> prefix(kGradIds.begin(), kGradIds.begin() + static_cast<std::ptrdiff_t>(tokens));
            ForwardInput in = ForwardInput::of(enc_dec ? kGradSource : prefix);
            if (enc_dec) in.decoder_ids = prefix;
            in.key_padding = pad;
            return model.forward(in).next_token_logits;
        };
        ASSERT_EQ(r.logits.rows(), static_cast<Eigen::Index>(kGradIds.size()));
        const bool every_row = c.mask == MaskKind::Causal && pad.empty();
        for (std::size_t t = every_row ? 0 : kGradIds.size() - 1; t < kGradIds.size(); ++t) {
            const Vector want = runtime_logits(t + 1);
            const auto row = static_cast<Eigen::Index>(t);
            EXPECT_LT((r.logits.row(row).transpose() - want).cwiseAbs().maxCoeff(), 1e-5f) << "position " << t;
        }
    }
}

// The same on the PyTorch fixtures' models (real-layout blocks).
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
    EXPECT_EQ(message_of(model.config(), {3, 29}), "token id 29 is outside the vocabulary (0..28)");
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

// One full training step from a saved checkpoint on a given batch equals PyTorch's:
// tests/gen_train_fixtures.py took one torch.optim.AdamW step on the batch, saved the
// model, AdamW's moments and trainer.json as a checkpoint, and took a second step; the
// trainer loads that checkpoint and takes the second step on the same batch.
TEST(AdamW, AStepFromASavedCheckpointOnAGivenBatchEqualsPyTorchs) {
    const fs::path dir = fs::path(HEADSCOPE_FIXTURES_DIR) / "train_checkpoint";
    train::Trainer trainer = train::load_checkpoint(dir.string());
    ASSERT_EQ(trainer.steps_taken(), 1);
    std::ifstream in(dir / "batch.json");
    const nlohmann::json examples = nlohmann::json::parse(in).at("examples");
    std::vector<train::Example> batch;
    for (const auto& e : examples)
        batch.push_back({e.at("ids").get<std::vector<int>>(), e.at("first_target").get<int>()});
    ASSERT_EQ(batch.size(), 3u);
    const train::StepReport r = trainer.step_on(batch);
    const auto file = SafetensorsFile::open((dir / "after_step.safetensors").string());
    EXPECT_NEAR(r.loss, file->values("step.loss")[0], 1e-5);
    EXPECT_NEAR(r.grad_norm, file->values("step.grad_norm")[0], 1e-4 * file->values("step.grad_norm")[0]);
    EXPECT_EQ(trainer.steps_taken(), 2);
    int compared = 0;
    float worst = 0.0f;
    for (const NamedTensor& t : to_state_dict(trainer.config(), trainer.weights())) {
        const std::vector<float> want = file->values(t.name);
        ASSERT_EQ(t.data.size(), want.size()) << t.name;
        for (std::size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::abs(t.data[i] - want[i]));
        ++compared;
    }
    EXPECT_LE(worst, 1e-4f) << "the largest difference from PyTorch's weights";
    EXPECT_EQ(compared + 2, static_cast<int>(file->tensors().size()));
}

}  // namespace
}  // namespace hs
