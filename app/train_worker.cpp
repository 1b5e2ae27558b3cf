#include "app/train_worker.h"

#include <chrono>

#include "core/error.h"
#include "core/io/atomic_file.h"
#include "core/io/model_dir.h"
#include "core/train/checkpoint.h"
#include "core/train/text_corpus.h"

namespace hs {

namespace {
constexpr int kCurvePoints = 400;
constexpr auto kPublishEvery = std::chrono::milliseconds(40);  // while stepping without snapshots
}  // namespace

TrainWorker::TrainWorker() : thread_([this] { loop(); }) {}

TrainWorker::~TrainWorker() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

void TrainWorker::start(train::TrainingSetup setup, bool run) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        pending_setup_ = std::move(setup);
        running_ = run;
        pending_steps_ = 0;
        save_dir_.clear();  // a Save asked for the previous run does not apply to the new one
        save_after_ = 0;
        progress_.error.clear();
        progress_.replace_dir.clear();
        progress_.notice.clear();
        progress_.preparing = true;
        progress_.running = run;
        ++progress_.version;
    }
    wake_.notify_all();
}

void TrainWorker::resume() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        running_ = true;
        progress_.running = true;
        ++progress_.version;
    }
    wake_.notify_all();
}

void TrainWorker::pause() {
    std::lock_guard<std::mutex> lock(mutex_);
    running_ = false;
    pending_steps_ = 0;
    progress_.running = false;
    ++progress_.version;
}

void TrainWorker::step_once() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        ++pending_steps_;
    }
    wake_.notify_all();
}

void TrainWorker::reset() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        pending_setup_.reset();
        running_ = false;
        pending_steps_ = 0;
        save_dir_.clear();
        save_after_ = 0;
        drop_run_ = true;
        const std::uint64_t version = progress_.version + 1;
        progress_ = TrainProgress{};
        progress_.version = version;
    }
    wake_.notify_all();
}

void TrainWorker::save(std::string dir, bool replace) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        save_dir_ = std::move(dir);
        save_replaces_ = replace;
        save_after_ = pending_steps_;  // the Steps asked before it come first
    }
    wake_.notify_all();
}

TrainProgress TrainWorker::progress() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return progress_;
}

bool TrainWorker::idle() const {
    std::lock_guard<std::mutex> lock(mutex_);
    // From the publication: run_ belongs to the thread.
    const bool stepping = progress_.steps_taken < progress_.total_steps && (running_ || pending_steps_ > 0);
    return !busy_ && !pending_setup_ && !drop_run_ && save_dir_.empty() && !stepping;
}

// On the thread, with mutex_ released: the run's state as the view shows it (a copy of its
// history, O(steps): made outside the lock so that progress() never waits on it).
TrainProgress TrainWorker::snapshot_of_run() const {
    TrainProgress p;
    p.history = std::make_shared<const train::TrainingHistory>(run_->history());
    p.curve = train::loss_curve(run_->history().points, kCurvePoints);
    p.config = run_->setup().config;
    p.task = run_->setup().task;
    p.steps_taken = run_->trainer().steps_taken();
    p.total_steps = run_->total_steps();
    return p;
}

// Called with mutex_ held: `fresh` (snapshot_of_run) becomes the publication, keeping the
// messages and numbering of the current one.
void TrainWorker::publish_locked(TrainProgress fresh) {
    if (fresh.steps_taken >= fresh.total_steps) running_ = false;
    fresh.running = running_;
    fresh.preparing = false;
    fresh.error = std::move(progress_.error);
    fresh.notice = std::move(progress_.notice);
    fresh.replace_dir = std::move(progress_.replace_dir);
    fresh.run_id = run_id_;
    fresh.version = progress_.version + 1;
    progress_ = std::move(fresh);
}

void TrainWorker::loop() {
    auto last_publish = std::chrono::steady_clock::now();
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        wake_.wait(lock, [&] {
            const bool can_step = run_ && !run_->finished() && (running_ || pending_steps_ > 0);
            return stop_ || pending_setup_ || drop_run_ || !save_dir_.empty() || can_step;
        });
        if (stop_) return;
        if (drop_run_) {
            drop_run_locked();
        } else if (pending_setup_) {
            set_up_run(lock);
        } else if (!save_dir_.empty() && !(save_after_ > 0 && pending_steps_ > 0 && run_ && !run_->finished())) {
            // Save after the Steps asked before it (the user's order), else at the next boundary.
            save_run(lock);
        } else {
            step_run(lock, last_publish);
        }
    }
}

void TrainWorker::drop_run_locked() {
    drop_run_ = false;
    run_.reset();
    saved_dirs_.clear();
    const std::uint64_t version = progress_.version + 1;
    progress_ = TrainProgress{};  // a step that ended after Reset may have published
    progress_.version = version;
}

void TrainWorker::set_up_run(std::unique_lock<std::mutex>& lock) {
    const train::TrainingSetup setup = std::move(*pending_setup_);
    pending_setup_.reset();
    busy_ = true;
    lock.unlock();
    std::unique_ptr<train::TrainingRun> run;
    std::string error;
    try {
        run = std::make_unique<train::TrainingRun>(setup);
    } catch (const std::exception& e) {
        error = e.what();
    }
    lock.lock();
    busy_ = false;
    if (pending_setup_ || drop_run_) return;  // replaced while it was built
    run_ = std::move(run);
    saved_dirs_.clear();
    if (run_) ++run_id_;
    if (!run_) {
        running_ = false;
        const std::uint64_t version = progress_.version + 1;
        progress_ = TrainProgress{};
        progress_.error = error;
        progress_.version = version;
        return;
    }
    busy_ = true;
    lock.unlock();
    TrainProgress fresh = snapshot_of_run();
    // A text task whose vocabulary misses tokens of the text says so from the start.
    const std::string note = run_->setup().task.text ? train::vocabulary_note(*run_->setup().task.text) : "";
    lock.lock();
    busy_ = false;
    if (!note.empty()) progress_.notice = note;
    if (!pending_setup_ && !drop_run_) publish_locked(std::move(fresh));
}

void TrainWorker::save_run(std::unique_lock<std::mutex>& lock) {
    const std::string dir = std::move(save_dir_);
    save_dir_.clear();
    if (!run_) {
        progress_.error = "nothing to save: start a run first";
        ++progress_.version;
        return;
    }
    // Outside the lock (busy meanwhile): a directory holding a model or other files is
    // replaced only when asked, or when this run saved there before.
    const bool replace = save_replaces_;
    busy_ = true;
    lock.unlock();
    const std::string where = landing_path(dir);
    const SaveTarget target = replace || saved_dirs_.count(where) ? SaveTarget::Free : save_target(dir);
    std::string error;
    if (target == SaveTarget::HoldsModel)
        error = dir + " already holds a model (config.json): press Replace to put this checkpoint in its "
                      "place, or type another directory";
    else if (target == SaveTarget::HoldsOtherFiles)
        error = dir + " is a directory that is not empty: press Replace to write the checkpoint there among "
                      "its files, or type another directory";
    else
        try {
            train::save_checkpoint(run_->trainer(), dir);
            saved_dirs_.insert(where);
        } catch (const std::exception& e) {
            error = e.what();
        }
    lock.lock();
    busy_ = false;
    progress_.replace_dir = target == SaveTarget::Free ? "" : dir;
    progress_.error = error;
    progress_.notice = error.empty() ? "saved " + dir + " (a model directory: open it in the Model panel)" : "";
    ++progress_.version;
}

void TrainWorker::step_run(std::unique_lock<std::mutex>& lock, std::chrono::steady_clock::time_point& last_publish) {
    // One step, outside the lock: the UI reads the last publication meanwhile.
    if (pending_steps_ > 0) {
        --pending_steps_;
        if (save_after_ > 0) --save_after_;
    }
    busy_ = true;
    lock.unlock();
    bool snapshot = false;
    std::string error;
    try {
        snapshot = run_->step();
    } catch (const std::exception& e) {
        error = e.what();
    }
    lock.lock();
    if (!error.empty()) {
        running_ = false;
        progress_.error = "training stopped: " + error;
    }
    const auto now = std::chrono::steady_clock::now();
    const bool publish =
        snapshot || !error.empty() || run_->finished() || !running_ || now - last_publish >= kPublishEvery;
    if (publish && !drop_run_ && !pending_setup_) {  // not after Reset or a new Start
        lock.unlock();
        TrainProgress fresh = snapshot_of_run();
        lock.lock();
        if (!drop_run_ && !pending_setup_) publish_locked(std::move(fresh));
        last_publish = now;
    }
    busy_ = false;
}

}  // namespace hs
