// The app's one worker skeleton (app/latest_wins.h): the newest request wins, superseded
// and cancelled work is never delivered unless the job itself returns something after a
// cancel, and progress is visible while a job runs.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
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

// The window's event wait ends when a job leaves a result or the worker falls idle
// (app/frame_wait.h): the wake-up runs after the result can be taken, and not when a
// superseded job stops while a newer one waits to run.
std::atomic<int> g_wakeups{0}, g_wakeups_with_result{0};
std::function<bool()> g_result_waits;
void count_wakeup() {
    if (g_result_waits && g_result_waits()) ++g_wakeups_with_result;
    ++g_wakeups;  // last: a test that saw it may reset g_result_waits
}

TEST(LatestWins, WakesTheWindowWhenAResultWaitsOrTheWorkerFallsIdle) {
    g_wakeups = 0;
    g_wakeups_with_result = 0;
    ResultWakeup::set(&count_wakeup);
    {
        GatedSquare job;
        LatestWins<int, int> w([&](const int& x, const JobControl& c) -> std::optional<int> {
            if (x < 0) return std::nullopt;
            return job(x, c);
        });
        g_result_waits = [&] { return !w.idle() && !w.busy(); };  // a result, nothing running
        const auto wait_wakeups = [&](int n) {
            for (int i = 0; i < 2000 && g_wakeups.load() < n; ++i)
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
        };
        w.submit(3);
        while (job.started.load() == 0) std::this_thread::yield();
        w.submit(4);  // job 3 stops unwanted while 4 waits: no wake-up for it
        job.release = true;
        wait_wakeups(1);
        EXPECT_EQ(g_wakeups.load(), 1);
        EXPECT_EQ(g_wakeups_with_result.load(), 1);  // woken with job 4's result waiting
        EXPECT_EQ(w.take_result(), 16);
        w.submit(-1);  // delivers nothing, then the worker is idle: one wake-up
        wait_wakeups(2);
        EXPECT_EQ(g_wakeups.load(), 2);
        EXPECT_EQ(g_wakeups_with_result.load(), 1);
        g_result_waits = nullptr;
    }
    ResultWakeup::set(nullptr);
    EXPECT_EQ(g_wakeups.load(), 2);
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
