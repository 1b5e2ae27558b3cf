// When the window's frame loop waits for an event instead of drawing (app/frame_wait.h).
#include <gtest/gtest.h>

#include "app/frame_wait.h"

namespace hs {
namespace {

FrameWaitInputs idle_window() {
    FrameWaitInputs in;
    in.last_frame_identical = true;
    in.workers_idle = true;
    return in;
}

FrameWaitInputs young_job(double seconds) {
    FrameWaitInputs in;
    in.trace_job_busy = true;
    in.trace_job_seconds = seconds;
    return in;
}

TEST(FrameWait, AnIdleWindowWhoseLastFrameChangedNothingWaitsUpTo50Ms) {
    EXPECT_DOUBLE_EQ(frame_wait_seconds(idle_window()), 0.05);
    FrameWaitInputs changed = idle_window();
    changed.last_frame_identical = false;  // something moved: draw again
    EXPECT_DOUBLE_EQ(frame_wait_seconds(changed), 0.0);
    FrameWaitInputs measured = idle_window();
    measured.continuous = true;  // a benchmark times every frame
    EXPECT_DOUBLE_EQ(frame_wait_seconds(measured), 0.0);
    FrameWaitInputs busy = idle_window();
    busy.workers_idle = false;  // a thumbnail or analysis result is on its way: one refresh
    EXPECT_DOUBLE_EQ(frame_wait_seconds(busy), 1.0 / 60.0);
    busy.last_frame_identical = false;
    EXPECT_DOUBLE_EQ(frame_wait_seconds(busy), 0.0);
}

TEST(FrameWait, AYoungTraceJobWaitsUntilTheProgressOverlayWouldShow) {
    EXPECT_DOUBLE_EQ(frame_wait_seconds(young_job(0.0)), kProgressOverlaySeconds);
    EXPECT_NEAR(frame_wait_seconds(young_job(0.03)), kProgressOverlaySeconds - 0.03, 1e-12);
    // Measured and paced runs wait too: they time what a user sees.
    FrameWaitInputs paced = young_job(0.02);
    paced.continuous = true;
    EXPECT_NEAR(frame_wait_seconds(paced), kProgressOverlaySeconds - 0.02, 1e-12);
    // Once the overlay shows (its bar moves), every frame is drawn.
    EXPECT_DOUBLE_EQ(frame_wait_seconds(young_job(kProgressOverlaySeconds)), 0.0);
    EXPECT_DOUBLE_EQ(frame_wait_seconds(young_job(0.5)), 0.0);
}

TEST(FrameWait, InputEveryFrameOrTrainingNeverWaits) {
    FrameWaitInputs played = young_job(0.01);
    played.plays_input = true;  // a frame benchmark pans, a script clicks
    EXPECT_DOUBLE_EQ(frame_wait_seconds(played), 0.0);
    FrameWaitInputs played_idle = idle_window();
    played_idle.plays_input = true;
    EXPECT_DOUBLE_EQ(frame_wait_seconds(played_idle), 0.0);
    FrameWaitInputs training = young_job(0.01);
    training.training = true;  // the Train view's curves move
    EXPECT_DOUBLE_EQ(frame_wait_seconds(training), 0.0);
}

}  // namespace
}  // namespace hs
