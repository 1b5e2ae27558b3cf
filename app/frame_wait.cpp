#include "app/frame_wait.h"

#include <algorithm>

namespace hs {

double frame_wait_seconds(const FrameWaitInputs& in) {
    if (in.plays_input) return 0.0;
    if (in.trace_job_busy && !in.training && in.trace_job_seconds < kProgressOverlaySeconds)
        return kProgressOverlaySeconds - std::max(0.0, in.trace_job_seconds);
    if (!in.continuous && in.last_frame_identical && in.workers_idle) return 0.05;
    return 0.0;
}

}  // namespace hs
