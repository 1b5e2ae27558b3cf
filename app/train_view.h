#pragma once
// The Train view's choices and drawing state (app/panels/train_panel.cpp). The run itself
// lives in the TrainWorker; `progress` is the copy this frame draws.
#include <string>
#include <vector>

#include "app/analysis_view.h"
#include "app/state.h"
#include "app/experiment_worker.h"
#include "app/train_worker.h"
#include "core/analysis/head_metrics.h"

namespace hs {

constexpr const char* kTrainTasks[] = {"copy", "reverse", "sort", "induction", "grammar", "text file"};
constexpr int kInductionTask = 3, kGrammarTask = 4, kTextFileTask = 5;

struct TrainView {
    // -- setup (the next Start) --------------------------------------------------
    int task = 3;  // index into kTrainTasks
    std::string text_file;  // the text file task: path, level (0 char, 1 word)
    int text_level = 0;
    std::string spec = "random:d_model=64,heads=4,layers=2,pe=learned,norm=pre-ln";  // over the default
    int steps = 1500, batch = 32, warmup = 100, every = 50, seed = 1;
    float lr = 1e-3f;
    std::string save_dir = "checkpoint";
    // -- what is shown ---------------------------------------------------------
    TrainProgress progress;       // newest publication, read once per frame
    int timeline = -1;            // snapshot shown; −1 follows the newest
    Metric metric = Metric::Induction;  // per-head trajectory plotted
    bool show_head_table = false;       // the snapshot as a table of heads instead of maps
    std::vector<KeyedTexture> probe_maps;  // one per head of the shown snapshot
    KeyedTexture similarity;
    // -- the Experiment tab: the setup above over several values of one key ----------
    int experiment_key = 0;  // 0 heads, 1 d_model
    std::string experiment_values = "1,2,4,8,16";
    ExperimentProgress experiment;  // newest publication, read once per frame
    std::string experiment_status;  // what the last export wrote
    // Why the last Train / Step (train_error) or Run experiment / export (experiment_error)
    // did not start: a bad setup, an unwritable folder. Shown in red where it was pressed.
    std::string train_error, experiment_error;
    bool select_experiment_tab = false;  // a script asks for the tab
};

// The snapshot of the view's run `run` at `step` when it still holds its weights (null
// when the run was reset or replaced, or the step's weights were thinned away).
std::shared_ptr<const train::HeadSnapshot> trained_snapshot(const TrainView& view, std::uint64_t run, int step);
// The steps of the current run whose snapshots hold weights, in order.
std::vector<int> trained_steps(const TrainView& view);
// Shows `snapshot` of the current run in every view (heatmap, grid, pipeline, analysis):
// the source becomes SourceKind::Trained and the text the snapshot's probe (the induction
// probe, or for an encoder–decoder the held-out source and answer), in the task's tokens.
void show_trained_snapshot(AppState& state, const TrainView& view, const train::HeadSnapshot& snapshot);

// The next run's setup from the view's fields; hs::Error names what is wrong.
train::TrainingSetup training_setup(const TrainView& view);
// The experiment over the Experiment tab's key and values, on training_setup(view).
train::ExperimentSetup experiment_setup(const TrainView& view);

}  // namespace hs
