#include "app/frame_wait.h"

#include <algorithm>

namespace hs {

double frame_wait_seconds(const FrameWaitInputs& in) {
    if (in.plays_input) return 0.0;
    if (in.trace_job_busy && !in.training && in.trace_job_seconds < kProgressOverlaySeconds)
        return kProgressOverlaySeconds - std::max(0.0, in.trace_job_seconds);
    // An identical frame is neither drawn nor swapped (app/gl/frame_signature.h), so no
    // vsynced swap paces the loop: while workers run it waits a refresh (a result wakes it
    // at once through ResultWakeup) instead of rebuilding the UI as fast as it can.
    if (!in.continuous && in.last_frame_identical) return in.workers_idle ? 0.05 : 1.0 / 60.0;
    return 0.0;
}

}  // namespace hs
