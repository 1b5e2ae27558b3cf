#include "app/train_view.h"

#include <algorithm>

#include "core/error.h"

namespace hs {

train::TrainingSetup training_setup(const TrainView& v) {
    train::TrainingSetup s;
    s.config = train::training_config(v.spec);
    if (v.task == kTextFileTask) {  // read by the worker when it builds the run
        if (v.text_file.empty()) throw Error("choose a text file to train on");
        s.text_file = v.text_file;
        s.text_level = v.text_level == 1 ? train::TextLevel::Word : train::TextLevel::Char;
    } else {
        s.task = train::parse_task(kTrainTasks[std::clamp(v.task, 0, 3)], s.config.vocab);
    }
    s.options.batch = v.batch;
    s.options.seed = static_cast<std::uint64_t>(v.seed);
    s.options.adamw.lr = v.lr;
    s.options.adamw.warmup_steps = std::min(v.warmup, v.steps);
    s.options.adamw.total_steps = v.steps;
    s.every = v.every;
    return s;
}

train::ExperimentSetup experiment_setup(const TrainView& v) {
    const std::string key = v.experiment_key == 1 ? "d_model" : "heads";
    return train::parse_sweep(key + "=" + v.experiment_values, training_setup(v));
}

}  // namespace hs
