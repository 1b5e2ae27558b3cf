#include "core/train/trainer.h"

#include <algorithm>
#include <string>

#include "core/error.h"
#include "core/kernels/parallel.h"
#include "core/train/model_grad.h"
#include "core/train/parameters.h"

namespace hs::train {

namespace {

// a += b, parameter by parameter (same layout).
void add_into(ModelWeights& a, ModelWeights& b) {
    std::vector<Parameter> pa = parameters_of(a), pb = parameters_of(b);
    for (std::size_t k = 0; k < pa.size(); ++k)
        for (std::size_t i = 0; i < pa[k].size; ++i) pa[k].data[i] += pb[k].data[i];
}

void scale(ModelWeights& a, float s) {
    for (const Parameter& p : parameters_of(a))
        for (std::size_t i = 0; i < p.size; ++i) p.data[i] *= s;
}

}  // namespace

ModelWeights training_init(const ModelConfig& config) {
    ModelWeights w = init_weights(config);
    w.embed *= 0.02f;  // N(0, 1) → N(0, 0.02²): the same draws, scaled
    w.pos_embed *= 0.02f;
    return w;
}

Trainer::Trainer(ModelConfig config, ModelWeights weights, TaskSpec task, TrainOptions options)
    : config_(std::move(config)),
      weights_(std::move(weights)),
      task_(task),
      options_(options),
      adam_(weights_, options.adamw) {
    if (options_.batch < 1 || options_.batch > 4096)
        throw Error("batch " + std::to_string(options_.batch) + " must be between 1 and 4096");
    check_task(task_);
    check_adamw(options_.adamw);
    if (task_.vocab > config_.vocab)
        throw Error("the task uses " + std::to_string(task_.vocab) + " token ids; the model's vocabulary has " +
                    std::to_string(config_.vocab));
    if (longest_example(task_) > config_.max_len)
        throw Error("the task's sequences reach " + std::to_string(longest_example(task_)) +
                    " tokens; the model's max_len is " + std::to_string(config_.max_len));
    (void)example_loss(config_, weights_, make_example(task_, options_.seed, 0, 0));  // trainable?
}

StepReport Trainer::step() {
    const int step = adam_.steps_taken();
    std::vector<Example> batch;
    batch.reserve(static_cast<std::size_t>(options_.batch));
    for (int i = 0; i < options_.batch; ++i) batch.push_back(make_example(task_, options_.seed, step, i));
    return step_on(batch);
}

StepReport Trainer::step_on(std::span<const Example> batch) {
    const int B = static_cast<int>(batch.size()), step = adam_.steps_taken();
    if (B < 1) throw Error("a training step needs at least one example");
    // Group g sums examples g, g + G, g + 2G, … in order: the same sums on any thread count.
    const int groups = std::min(kGroups, B);
    std::vector<ModelWeights> grads(static_cast<std::size_t>(groups));
    std::vector<double> loss(static_cast<std::size_t>(groups), 0.0);
    std::vector<long long> targets(static_cast<std::size_t>(groups), 0), tokens(static_cast<std::size_t>(groups), 0);
    parallel_for(groups, [&](int g) {
        ModelWeights& sum = grads[static_cast<std::size_t>(g)];
        for (int i = g; i < B; i += groups) {
            const Example& e = batch[static_cast<std::size_t>(i)];
            LossAndGrads r = example_loss(config_, weights_, e);
            const long long n = static_cast<long long>(e.ids.size()) - e.first_target;
            // Per-token weighting: each example's mean loss times its target count.
            scale(r.grads, static_cast<float>(n));
            if (sum.layers.empty() && sum.embed.size() == 0) sum = std::move(r.grads);
            else add_into(sum, r.grads);
            loss[static_cast<std::size_t>(g)] += r.loss * static_cast<double>(n);
            targets[static_cast<std::size_t>(g)] += n;
            tokens[static_cast<std::size_t>(g)] += static_cast<long long>(e.ids.size());
        }
    });
    StepReport report;
    long long all_targets = 0;
    for (int g = 0; g < groups; ++g) {
        if (g > 0) add_into(grads[0], grads[static_cast<std::size_t>(g)]);
        report.loss += loss[static_cast<std::size_t>(g)];
        all_targets += targets[static_cast<std::size_t>(g)];
        report.tokens += tokens[static_cast<std::size_t>(g)];
    }
    // The batch loss is the mean over every predicted token of the batch.
    scale(grads[0], 1.0f / static_cast<float>(all_targets));
    report.loss /= static_cast<double>(all_targets);
    report.lr = learning_rate_at(step + 1, options_.adamw);
    report.grad_norm = adam_.step(weights_, grads[0]);
    report.step = adam_.steps_taken();
    return report;
}

double Trainer::held_out_loss(int n) const {
    double loss = 0.0;
    long long targets = 0;
    for (int i = 0; i < n; ++i) {
        const Example e = held_out_example(task_, options_.seed, i);
        const long long k = static_cast<long long>(e.ids.size()) - e.first_target;
        loss += example_loss(config_, weights_, e).loss * static_cast<double>(k);
        targets += k;
    }
    return loss / static_cast<double>(targets);
}

}  // namespace hs::train
