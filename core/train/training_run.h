#pragma once
// A training run as the Train view follows it: a Trainer (trainer.h) stepped one step at a
// time, its loss at every step, and the heads measured (head_trajectory.h) at step 0, every
// `every` steps and at the last one. The app's TrainWorker steps it on its own thread and
// publishes copies of the history; nothing here knows about threads.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "core/train/head_trajectory.h"
#include "core/train/trainer.h"

namespace hs::train {

// Issue 13's model: 2 layers, d_model 64, 4 heads, learned positions, pre-LN, tied head.
constexpr const char* kDefaultTrainingSpec =
    "random:arch=decoder,d_model=64,heads=4,layers=2,vocab=32,max_len=64,pe=learned,norm=pre-ln,lm_head=tied";

// The model to train: kDefaultTrainingSpec with the keys of `spec` replaced (config.h's
// merge_playground_specs), validated. Training predicts the next token, so it must be a
// causal decoder (or an encoder–decoder whose decoder is causal) with an LM head;
// hs::Error says what is missing otherwise.
ModelConfig training_config(const std::string& spec);

// The most bytes of snapshot weights a run keeps (~1000 snapshots of the default
// 420 KB model fit; a larger model keeps every other one as the run grows, the first and
// the newest always).
constexpr std::size_t kSnapshotWeightBudget = std::size_t{256} << 20;

struct TrainingSetup {
    ModelConfig config;
    TaskSpec task;
    // A text file to train on instead of `task` (read when the run is built, on the
    // caller's thread: the Train view's worker), split at `text_level`, windows of
    // `text_window` tokens (0: the model's max_len, at most 64).
    std::string text_file;
    TextLevel text_level = TextLevel::Char;
    int text_window = 0;
    TrainOptions options;  // options.adamw.total_steps: the run's length
    int every = 50;        // steps between head snapshots (raised to total/1000: ≤ ~1000 of them)
    std::size_t snapshot_weight_budget = kSnapshotWeightBudget;  // bytes of snapshot weights kept
};

// A grammar task numbers its words itself: the model's vocabulary becomes the task's and
// max_len grows to the window. Other tasks leave the config as it is.
void size_for_task(ModelConfig& config, const TaskSpec& task);

// setup.task, or the text task of setup.text_file (read here; hs::Error names the file).
TaskSpec training_task(const TrainingSetup& setup);

struct StepPoint {
    int step = 0;
    double loss = 0.0;
    float lr = 0.0f;
};

struct TrainingHistory {
    std::vector<StepPoint> points;                                // one per step taken
    std::vector<std::shared_ptr<const HeadSnapshot>> snapshots;  // step 0, every K, last
    double tokens_per_second = 0.0;  // over the steps of this session (not a resumed past)
    double seconds = 0.0;            // spent in step() and in measuring the heads
};

class TrainingRun {
public:
    // Throws hs::Error (from Trainer) when the setup cannot be trained; measures step 0.
    explicit TrainingRun(const TrainingSetup& setup);
    // One step (no-op once finished); measures the heads when the step is a multiple of
    // `every` or the last one. Returns whether it took a snapshot.
    bool step();
    bool finished() const { return trainer_.steps_taken() >= total_steps(); }
    int total_steps() const { return trainer_.options().adamw.total_steps; }
    const Trainer& trainer() const { return trainer_; }
    const TrainingHistory& history() const { return history_; }
    const TrainingSetup& setup() const { return setup_; }

private:
    // Measures the heads and keeps the weights, thinning older snapshots' weights to the budget.
    void take_snapshot();

    TrainingSetup setup_;
    Trainer trainer_;
    std::size_t weight_bytes_ = 0;  // of one snapshot
    TrainingHistory history_;
    long long tokens_ = 0;
    double step_seconds_ = 0.0;
};

// The per-step losses averaged over at most `buckets` equal runs of steps: (step at the
// bucket's end, mean loss), for a plot of a long run.
struct LossCurve {
    std::vector<int> steps;
    std::vector<double> loss;
};
LossCurve loss_curve(const std::vector<StepPoint>& points, int buckets);

}  // namespace hs::train
