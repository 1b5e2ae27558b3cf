#pragma once
// The Train view's worker: one thread that builds a TrainingRun (core/train/training_run.h)
// and steps it while the view says Train, or one step per Step. After each step it
// publishes what the view draws (Progress): the UI thread reads the newest copy each frame
// and never waits on a training step. Save writes a checkpoint between two steps.
#include <condition_variable>
#include <memory>
#include <chrono>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "core/train/training_run.h"

namespace hs {

// What the Train view shows of a run: copies, so the UI may hold them while training goes on.
struct TrainProgress {
    std::shared_ptr<const train::TrainingHistory> history;  // null before the first run
    train::LossCurve curve;       // per-step loss averaged into ≤ 400 points
    ModelConfig config;           // of the run
    train::TaskSpec task;
    int steps_taken = 0, total_steps = 0;
    bool running = false;         // stepping on its own (Train), not paused
    bool preparing = false;       // building the run (initialising, measuring step 0)
    std::string error;            // why the last Start or Save failed
    std::string replace_dir;      // a Save refused: this directory holds a model or other files (the view offers Replace)
    std::string notice;           // "saved DIR"
    std::uint64_t run_id = 0;     // which run (textures of a snapshot are keyed by it)
    std::uint64_t version = 0;    // grows with every publication
};

class TrainWorker {
public:
    TrainWorker();
    ~TrainWorker();
    TrainWorker(const TrainWorker&) = delete;
    TrainWorker& operator=(const TrainWorker&) = delete;

    // A new run from `setup` (replacing any), which starts stepping when `run` is set.
    void start(train::TrainingSetup setup, bool run);
    void resume();          // step on its own
    void pause();           // stop after the current step
    void step_once();       // one step (when paused)
    void reset();           // drop the run
    // A checkpoint (core/train/checkpoint.h) between steps. Into a directory that holds a
    // model or other files only with `replace`, or when this run saved there before (saving
    // a later step of the same run over its earlier one); otherwise the Save is refused with
    // progress().replace_dir set.
    void save(std::string dir, bool replace = false);
    TrainProgress progress() const;
    // Nothing being built, stepped or saved (the script runner waits for this).
    bool idle() const;

private:
    void loop();
    // The loop's jobs, each called with mutex_ held through `lock` (released meanwhile
    // around the work): forget the run (Reset); build the run of a pending setup; save the
    // run to save_dir_; take one step and publish it when due.
    void drop_run_locked();
    void set_up_run(std::unique_lock<std::mutex>& lock);
    void save_run(std::unique_lock<std::mutex>& lock);
    void step_run(std::unique_lock<std::mutex>& lock, std::chrono::steady_clock::time_point& last_publish);
    TrainProgress snapshot_of_run() const;
    void publish_locked(TrainProgress fresh);

    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::optional<train::TrainingSetup> pending_setup_;
    std::unique_ptr<train::TrainingRun> run_;  // touched only by the thread
    bool running_ = false, stop_ = false, busy_ = false;
    int pending_steps_ = 0;
    int save_after_ = 0;       // queued Steps that come before the queued Save
    std::uint64_t run_id_ = 0;  // runs built so far (touched only by the thread)
    bool drop_run_ = false;
    std::string save_dir_;
    bool save_replaces_ = false;
    std::set<std::string> saved_dirs_;  // where this run saved (canonical paths; touched only by the thread)
    TrainProgress progress_;
    std::thread thread_;
};

}  // namespace hs
