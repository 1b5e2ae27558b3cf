#include "app/train_view.h"

#include <algorithm>

#include "core/error.h"
#include "core/train/trained_source.h"

namespace hs {

train::TrainingSetup training_setup(const TrainView& v) {
    train::TrainingSetup s;
    s.config = train::training_config(v.spec);
    if (v.task == kTextFileTask) {  // read by the worker when it builds the run
        if (v.text_file.empty()) throw Error("choose a text file to train on");
        s.text_file = v.text_file;
        s.text_level = v.text_level == 1 ? train::TextLevel::Word : train::TextLevel::Char;
    } else {
        s.task = train::parse_task(kTrainTasks[std::clamp(v.task, 0, kTextFileTask - 1)], s.config.vocab);
        train::size_for_task(s.config, s.task);
    }
    s.options.batch = v.batch;
    s.options.seed = static_cast<std::uint64_t>(v.seed);
    s.options.adamw.lr = v.lr;
    s.options.adamw.warmup_steps = std::min(v.warmup, v.steps);
    s.options.adamw.total_steps = v.steps;
    s.every = v.every;
    return s;
}

std::shared_ptr<const train::HeadSnapshot> trained_snapshot(const TrainView& v, std::uint64_t run, int step) {
    if (!v.progress.history || v.progress.run_id != run) return nullptr;
    for (const auto& s : v.progress.history->snapshots)
        if (s->step == step && s->weights) return s;
    return nullptr;
}

std::vector<int> trained_steps(const TrainView& v) {
    std::vector<int> steps;
    if (v.progress.history)
        for (const auto& s : v.progress.history->snapshots)
            if (s->weights) steps.push_back(s->step);
    return steps;
}

void show_trained_snapshot(AppState& state, const TrainView& v, const train::HeadSnapshot& snapshot) {
    state.source = SourceKind::Trained;
    state.trained_run = v.progress.run_id;
    state.trained_step = snapshot.step;
    state.text = train::tokens_text(v.progress.task, snapshot.probe_tokens);
    state.decoder_text =
        snapshot.probe_query_tokens.empty() ? "" : train::tokens_text(v.progress.task, snapshot.probe_query_tokens);
    state.map = snapshot.probe_is_cross ? MapKind::DecoderCross : MapKind::Self;
    state.layer = std::clamp(state.layer, 0, v.progress.config.layers - 1);
    state.head = std::clamp(state.head, 0, v.progress.config.heads - 1);
    state.ablated.clear();
    state.view_mode = ViewMode::Attention;
    state.dirty = true;
}

train::ExperimentSetup experiment_setup(const TrainView& v) {
    const std::string key = v.experiment_key == 1 ? "d_model" : "heads";
    return train::parse_sweep(key + "=" + v.experiment_values, training_setup(v));
}

}  // namespace hs
