#pragma once
// The head-count experiment (issue 13): the same task, seed and budget over several values
// of one architecture key (heads at fixed d_model, or d_model at fixed heads), one run
// after another; per run the final and held-out loss, the best induction score over the
// snapshots, the first snapshot step with an induction head, the roles the heads end with
// and the curves to plot. `headscope train --sweep` and the Train view's Experiment tab
// both use it; experiment_csv / render_experiment export it.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/image/rgb_image.h"
#include "core/train/training_run.h"

namespace hs::train {

struct ExperimentSetup {
    TrainingSetup base;        // task, options (total_steps = the budget), every, config
    std::string key = "heads";  // "heads" or "d_model"
    std::vector<int> values;   // 1 … 16 of them
};

struct ExperimentRun {
    int value = 0;
    int d_k = 0;
    double final_loss = 0.0;      // mean loss of the last step's batch
    double held_out_loss = 0.0;   // at the last snapshot
    double best_induction = 0.0;  // highest score of any head at the last snapshot
    int first_induction_step = -1;  // first snapshot with a head ≥ the label threshold; −1: never
    std::map<std::string, int> roles;  // primary role → heads, at the last snapshot
    std::vector<int> steps;            // of the snapshots
    std::vector<double> induction;     // best induction score at each snapshot
    std::vector<double> held_out;      // held-out loss at each snapshot
    double seconds = 0.0;
};

// "heads=1,2,4" → key and values; hs::Error unless heads or d_model with 1 to 16 positive values.
ExperimentSetup parse_sweep(const std::string& text, const TrainingSetup& base);
// One setup per value, each checked (training_config's rules, the task fits) before any
// run starts; hs::Error names the value that cannot be trained.
std::vector<TrainingSetup> experiment_setups(const ExperimentSetup& experiment);
ExperimentRun summarize_run(const TrainingRun& run, int value);
// One value's run from `setup` to its last step, then its summary. `after_step(run,
// snapshot)` is called after every step (snapshot: the heads were just measured); when it
// returns false the run stops and nothing is returned (a cancelled experiment).
std::optional<ExperimentRun> run_experiment_value(const TrainingSetup& setup, int value,
                                                  const std::function<bool(const TrainingRun&, bool)>& after_step);
// "induction ×2; mixed ×2": the roles the heads ended with.
std::string roles_text(const ExperimentRun& run);

// key,d_k,final_loss,held_out_loss,best_induction,first_induction_step,roles — a row per run;
// first_induction_step is "never" for a run in which no head reached the threshold.
std::string experiment_csv(const std::string& key, const std::vector<ExperimentRun>& runs);
// Side by side: best induction score over the steps (a line per run), held-out loss per
// run, first induction step per run ("never" when none formed); title names the key.
RgbImage render_experiment(const std::string& key, const std::vector<ExperimentRun>& runs);

}  // namespace hs::train
