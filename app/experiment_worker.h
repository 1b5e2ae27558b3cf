#pragma once
// The Train view's Experiment tab: a head-count (or d_model) experiment run on its own
// thread (LatestWins), one training run after another (core/train/experiment.h). Each run's
// summary is published as it ends, so the plots fill in while the next run trains;
// progress counts steps over all runs, and Cancel stops at the next step.
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "app/latest_wins.h"
#include "core/train/experiment.h"

namespace hs {

struct ExperimentProgress {
    std::string key;                            // heads / d_model
    std::vector<int> values;                    // every value asked for
    std::vector<train::ExperimentRun> runs;     // the finished ones, in order
    std::string error;
    bool running = false;  // a job queued or running
    int done_steps = 0, total_steps = 0;
};

class ExperimentWorker {
public:
    ExperimentWorker();
    // Checks every setup first (hs::Error for the first bad value, nothing started).
    void start(const train::ExperimentSetup& experiment);
    void cancel() { jobs_.cancel(); }  // stops at the next step; finished runs stay
    ExperimentProgress progress() const;
    bool idle() const { return jobs_.idle(); }

private:
    struct Request {
        train::ExperimentSetup experiment;
        std::vector<train::TrainingSetup> setups;
    };
    struct Done {};  // never delivered: runs are published as they finish
    mutable std::mutex mutex_;
    ExperimentProgress progress_;  // guarded by mutex_, written by the job
    LatestWins<Request, Done> jobs_;
};

}  // namespace hs
