#pragma once
// Training a single-stack model of the one runtime on a task: each step draws `batch`
// examples (tasks.h), sums their next-token gradients (model_grad.h), and takes one AdamW
// step (adamw.h). Deterministic for any thread count: the batch is split into a fixed
// number of groups (kGroups), each summed in example order on whichever thread, and the
// groups are added in group order.
#include <cstdint>
#include <span>
#include <vector>

#include "core/model/config.h"
#include "core/model/weights.h"
#include "core/train/adamw.h"
#include "core/train/tasks.h"

namespace hs::train {

struct TrainOptions {
    int batch = 16;
    std::uint64_t seed = 1;  // examples (the weights come with the model)
    AdamWOptions adamw;
};

struct StepReport {
    int step = 0;            // steps taken so far (this one included)
    double loss = 0.0;       // mean over the batch's predicted tokens
    double grad_norm = 0.0;  // before clipping
    float lr = 0.0f;         // the rate this step used
    long long tokens = 0;    // tokens the batch held
};

// A new model's weights for training: init_weights (PyTorch's defaults), with the token
// and position embeddings drawn at GPT-2's scale, N(0, 0.02²), instead of nn.Embedding's
// N(0, 1). With a tied LM head the N(0, 1) table makes logits of size √d_model: the first
// loss is tens of nats and training spends its first hundreds of steps shrinking them.
ModelWeights training_init(const ModelConfig& config);

class Trainer {
public:
    // Throws hs::Error when the model cannot be trained (model_grad.h) or the task's
    // sequences do not fit max_len / the vocabulary.
    Trainer(ModelConfig config, ModelWeights weights, TaskSpec task, TrainOptions options);
    // One step on the task's next batch (examples 0 … batch−1 of this step).
    StepReport step();
    // One step on the given examples: the same sums in the same order as step(). The loss
    // is the mean over every predicted token of the batch (each example weighted by its
    // number of targets); the gradient is that mean's.
    StepReport step_on(std::span<const Example> batch);
    // Mean loss over `n` held-out examples (a seed no training step uses).
    double held_out_loss(int n) const;
    const ModelConfig& config() const { return config_; }
    const ModelWeights& weights() const { return weights_; }
    const TaskSpec& task() const { return task_; }
    const TrainOptions& options() const { return options_; }
    int steps_taken() const { return adam_.steps_taken(); }
    // The optimizer's state (checkpoints save and restore it).
    AdamW& optimizer() { return adam_; }
    const AdamW& optimizer() const { return adam_; }

private:
    static constexpr int kGroups = 4;
    ModelConfig config_;
    ModelWeights weights_;
    TaskSpec task_;
    TrainOptions options_;
    AdamW adam_;
};

}  // namespace hs::train
