// The app's one worker skeleton (app/latest_wins.h): the newest request wins, superseded
// and cancelled work is never delivered unless the job itself returns something after a
// cancel, and progress is visible while a job runs.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "app/latest_wins.h"

namespace hs {
namespace {

// A job that squares its request, but first waits until `release` is set (or it is no
// longer wanted), reporting progress 1/2 meanwhile. Returns -1 when stopped early.
// `started` counts up only after the first report, so a test that saw it may read 1/2.
struct GatedSquare {
    std::atomic<bool> release{false};
    std::atomic<int> started{0};
    std::optional<int> operator()(const int& x, const JobControl& control) {
        const bool wanted = control.report(1, 2);
        ++started;
        if (!wanted) return -1;
        while (!release.load())
            if (!control.report(1, 2)) return -1;
        return x * x;
    }
};

template <class W>
std::optional<int> wait_result(W& w) {
    for (int i = 0; i < 2000; ++i) {
        if (auto r = w.take_result()) return r;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return std::nullopt;
}

TEST(LatestWins, DeliversTheResultOnceAndIsIdleAfterwards) {
    GatedSquare job;
    job.release = true;
    LatestWins<int, int> w([&](const int& x, const JobControl& c) { return job(x, c); });
    EXPECT_TRUE(w.idle());
    EXPECT_EQ(w.submit(7), 1u);
    EXPECT_EQ(wait_result(w), 49);
    EXPECT_FALSE(w.take_result());
    EXPECT_TRUE(w.idle());
}

TEST(LatestWins, ANewerRequestSupersedesTheRunningOne) {
    GatedSquare job;
    LatestWins<int, int> w([&](const int& x, const JobControl& c) { return job(x, c); });
    w.submit(3);
    while (job.started.load() == 0) std::this_thread::yield();
    EXPECT_TRUE(w.busy());
    EXPECT_EQ(w.progress_done(), 1);
    EXPECT_EQ(w.progress_total(), 2);
    w.submit(4);  // the running job's report() now says stop; its -1 is dropped
    job.release = true;
    EXPECT_EQ(wait_result(w), 16);
    EXPECT_EQ(w.latest_generation(), 2u);
}

TEST(LatestWins, CancelDropsQueuedWorkButKeepsWhatTheJobStillReturns) {
    GatedSquare job;
    LatestWins<int, int> w([&](const int& x, const JobControl& c) { return job(x, c); });
    w.submit(5);
    while (job.started.load() == 0) std::this_thread::yield();
    w.cancel();  // the job stops being wanted and returns -1 (a partial result)
    EXPECT_EQ(wait_result(w), -1);
    EXPECT_EQ(job.started.load(), 1);
}

// The window's event wait ends when a worker leaves a result (app/frame_wait.h): the
// wake-up runs once per delivered result, and not for a job that delivers nothing.
std::atomic<int> g_wakeups{0};
void count_wakeup() { ++g_wakeups; }

TEST(LatestWins, WakesTheWindowOncePerDeliveredResult) {
    g_wakeups = 0;
    result_wakeup() = &count_wakeup;
    {
        LatestWins<int, int> w([](const int& x, const JobControl&) -> std::optional<int> {
            if (x < 0) return std::nullopt;
            return x * x;
        });
        w.submit(3);
        EXPECT_EQ(wait_result(w), 9);  // the result is stored before the wake-up runs...
        for (int i = 0; i < 2000 && g_wakeups.load() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        EXPECT_EQ(g_wakeups.load(), 1);  // ...so wait for it
        w.submit(-1);  // delivers nothing: no wake-up
        for (int i = 0; i < 2000 && !w.idle(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        EXPECT_TRUE(w.idle());
    }
    result_wakeup() = nullptr;
    EXPECT_EQ(g_wakeups.load(), 1);
}

TEST(LatestWins, AJobThatReturnsNothingDeliversNothing) {
    LatestWins<int, int> w([](const int&, const JobControl&) -> std::optional<int> { return std::nullopt; });
    w.submit(1);
    for (int i = 0; i < 2000 && !w.idle(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_TRUE(w.idle());
    EXPECT_FALSE(w.take_result());
}

}  // namespace
}  // namespace hs
