#pragma once
// One background thread that runs the newest request, for the app's workers (trace,
// analysis, layer maps, mip levels, the Train view's experiment). The UI submits and polls; it never waits on the thread.
//   submit(r)      replaces a queued request; the running job stops being wanted (its
//                  progress callback returns false at the next call, and a result it still
//                  returns is dropped as superseded)
//   take_result()  the newest job's result, once
//   cancel()       drops the queued request and a result not yet taken; the running job
//                  stops being wanted but what it returns (a partial corpus, say) arrives
// The job runs as run(request, control) and returns std::nullopt when it has nothing to
// deliver; control.report(done, total) publishes progress and says whether to go on.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include "core/kernels/parallel.h"

namespace hs {

// The window's wake-up (glfwPostEmptyEvent), run on a worker's thread each time a job ends
// with a result to take or with nothing left to do, so a frame loop waiting for events
// (app/frame_wait.h) draws at once. The window sets it after opening and clears it before
// closing GLFW; the lock makes sure no call is still running once set_result_wakeup
// returns. Unset (tests) nothing is called.
class ResultWakeup {
public:
    static void set(void (*wake)()) {
        std::lock_guard<std::mutex> lock(state().mutex);
        state().wake = wake;
    }
    static void run() {
        std::lock_guard<std::mutex> lock(state().mutex);
        if (state().wake) state().wake();
    }

private:
    struct State {
        std::mutex mutex;
        void (*wake)() = nullptr;
    };
    static State& state() {
        static State s;
        return s;
    }
};

// What a running job sees of its worker.
class JobControl {
public:
    JobControl(const std::atomic<std::uint64_t>& latest, const std::atomic<bool>& cancelled,
               std::atomic<int>& done, std::atomic<int>& total, std::uint64_t generation)
        : latest_(latest), cancelled_(cancelled), done_(done), total_(total), generation_(generation) {}
    // Still the newest request and not cancelled.
    bool wanted() const { return latest_.load() == generation_ && !cancelled_.load(); }
    // Publishes progress (shown by the UI); returns wanted(): the body of a ProgressFn.
    bool report(int done, int total) const {
        done_ = done;
        total_ = total;
        return wanted();
    }
    std::uint64_t generation() const { return generation_; }

private:
    const std::atomic<std::uint64_t>& latest_;
    const std::atomic<bool>& cancelled_;
    std::atomic<int>& done_;
    std::atomic<int>& total_;
    std::uint64_t generation_;
};

template <class Request, class Result>
class LatestWins {
public:
    using Run = std::function<std::optional<Result>(const Request&, const JobControl&)>;

    explicit LatestWins(Run run) : run_(std::move(run)), thread_([this] { loop(); }) {}
    ~LatestWins() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stop_ = true;
            cancelled_ = true;
            latest_.fetch_add(1);
        }
        wake_.notify_all();
        thread_.join();
    }
    LatestWins(const LatestWins&) = delete;
    LatestWins& operator=(const LatestWins&) = delete;

    // Returns the request's generation (1, 2, …).
    std::uint64_t submit(Request request) {
        std::uint64_t generation = 0;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            generation = latest_.fetch_add(1) + 1;
            pending_ = std::move(request);
            busy_ = true;
        }
        wake_.notify_all();
        return generation;
    }

    std::optional<Result> take_result() {
        std::lock_guard<std::mutex> lock(mutex_);
        std::optional<Result> out;
        if (finished_ && finished_generation_ == latest_.load()) out.swap(finished_);
        finished_.reset();  // a superseded result is never delivered
        return out;
    }

    void cancel() {
        std::lock_guard<std::mutex> lock(mutex_);
        pending_.reset();
        finished_.reset();
        cancelled_ = true;
        busy_ = running_;
    }

    // A job runs or waits to run.
    bool busy() const { return busy_.load(); }
    // Nothing queued, running or waiting to be taken.
    bool idle() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return !running_ && !pending_ && !finished_;
    }
    // Seconds the running job has taken so far (0 when none runs).
    double busy_seconds() const {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!running_) return 0.0;
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    }
    int progress_done() const { return done_.load(); }
    int progress_total() const { return total_.load(); }
    std::uint64_t latest_generation() const { return latest_.load(); }

private:
    void loop() {
        for (;;) {
            Request request;
            std::uint64_t generation = 0;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                wake_.wait(lock, [this] { return stop_ || pending_.has_value(); });
                if (stop_) return;
                request = std::move(*pending_);
                pending_.reset();
                generation = latest_.load();
                cancelled_ = false;
                done_ = 0;
                total_ = 0;
                started_ = std::chrono::steady_clock::now();
                running_ = true;
            }
            std::optional<Result> result = run_(request, JobControl(latest_, cancelled_, done_, total_, generation));
            park_threads();  // the pool stops spinning: the UI draws the result next
            bool wake = false;  // a result waits, or the worker fell idle (the window redraws)
            {
                std::lock_guard<std::mutex> lock(mutex_);
                running_ = false;
                busy_ = pending_.has_value();
                if (result && generation == latest_.load()) {
                    finished_ = std::move(result);
                    finished_generation_ = generation;
                }
                wake = finished_.has_value() || !busy_;
            }
            if (wake) ResultWakeup::run();
        }
    }

    Run run_;
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::optional<Request> pending_;
    std::optional<Result> finished_;
    std::uint64_t finished_generation_ = 0;
    bool stop_ = false;
    bool running_ = false;
    std::chrono::steady_clock::time_point started_;
    std::atomic<std::uint64_t> latest_{0};
    std::atomic<bool> cancelled_{false};
    std::atomic<bool> busy_{false};
    std::atomic<int> done_{0}, total_{0};
    std::thread thread_;  // last: starts after every member above exists
};

}  // namespace hs
