#pragma once
// How long the window's frame loop waits for an event before it draws the next frame:
// a frame that would show nothing new is not drawn.
//   - The last frame changed nothing and no worker runs: up to 50 ms for input (the
//     window then idles instead of spinning); while a worker runs, one 60 Hz refresh
//     (that frame was not swapped, so no vsync paces the loop).
//   - A trace job (an edit's model and forward) has run for less than
//     kProgressOverlaySeconds: until input, its result (a worker wakes the loop through
//     ResultWakeup, app/latest_wins.h) or the moment the progress overlay appears.
//     Until then no frame shows anything of the job, and on a machine whose OpenGL is
//     software the frames drawn meanwhile (ImGui's build of every panel, the rasteriser,
//     the swap) take cores from the forward. The price: what ImGui would settle a frame
//     after the click (a window's auto-size, a popup) shows up to 0.1 s late.
// Runs that play input every frame (frame benchmarks, scripts) never wait: a window
// would be woken by that input each frame.

namespace hs {

// A trace job shows the progress overlay once it has run this long.
constexpr double kProgressOverlaySeconds = 0.1;

struct FrameWaitInputs {
    bool plays_input = false;       // a hook moves the pointer or edits every frame
    bool continuous = false;        // a measured or paced run: never idles between frames
    bool last_frame_identical = false;
    bool workers_idle = false;      // trace, analysis, layer-maps and mip workers
    bool trace_job_busy = false;    // the trace worker has a job queued or running
    double trace_job_seconds = 0;   // how long the running job (perhaps superseded) has run; 0 while queued
    bool training = false;          // the Train view's runs redraw as they go
};

// Seconds to wait in glfwWaitEventsTimeout; 0 = draw the next frame now.
double frame_wait_seconds(const FrameWaitInputs& in);

}  // namespace hs
