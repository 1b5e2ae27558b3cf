#pragma once
// Hooks into the window's frame loop (app/app.cpp, run_gui): benchmarks, the script
// runner, screenshots and timing are files of their own that the loop calls at fixed
// points, so the loop itself stays the few steps a reader sees in one screen:
//   1 events · 2 newest trace · 3 before_ui · 4 UI (pointer, in_ui) · 5 draw · 6 before_swap ·
//   swap · 7 submit edits, after_submit · 8 after_frame · finished()?
#include <chrono>
#include <memory>
#include <optional>
#include <vector>

namespace hs {

struct AppContext;
struct GuiOptions;

using FrameClock = std::chrono::steady_clock;

// What one frame did, for the hooks.
struct FrameRecord {
    // Phase boundaries: start, newest trace taken, textures and fonts synced, ImGui
    // built, drawn (glFinish'd when a hook times drawing), swapped.
    FrameClock::time_point start, accepted, synced, ui_done, drawn, end;
    bool busy_at_start = false;  // the worker was computing when the frame began
    bool took_trace = false;     // this frame took a new trace in
    bool settled = false;        // no work is pending (a trace or an error is shown)
    bool ready = false;          // settled, and a trace is shown
    int ready_frames = 0;        // ready frames so far, this one included
    int fb_width = 0, fb_height = 0;
    bool skipped = false;        // identical to the frame on screen: not drawn, not swapped
    bool deferred = false;       // started a trace job: not drawn (its result will be); no before_swap
};

class FrameHook {
public:
    virtual ~FrameHook() = default;
    // Step 3, before the UI is built: edits as a click would make them (ctx.state).
    virtual void before_ui(AppContext&, const FrameRecord& /*so far: start, ready_frames*/) {}
    // Step 4, before ImGui reads this frame's input: a hook may play the pointer
    // (ImGui::GetIO().MousePos, MouseDown) as a user would move and click it.
    virtual void pointer(AppContext&) {}
    // Step 4, inside the ImGui frame before the panels are drawn.
    virtual void in_ui(AppContext&, const FrameRecord&) {}
    // Step 6: the frame is in the back buffer, not yet swapped (screenshots); not called
    // for a deferred frame (FrameRecord::deferred).
    virtual void before_swap(AppContext&, const FrameRecord&) {}
    // Step 5 or 7: the frame's edits have gone to the worker.
    virtual void after_submit(AppContext&) {}
    // Step 8: the whole frame, with its timings.
    virtual void after_frame(AppContext&, const FrameRecord&) {}
    // Set when the loop should end: the exit status.
    std::optional<int> finished() const { return finished_; }
    // Printed after the loop (summaries of measured runs).
    virtual void report(AppContext&) {}

    // What the hook needs from the loop:
    virtual bool measures() const { return false; }       // no vsync, pointer ignored
    virtual bool paced() const { return false; }          // sleep out 60 Hz frames
    virtual bool times_drawing() const { return false; }  // glFinish before the swap
    virtual bool needs_trace() const { return false; }    // fail if no trace can come
    virtual bool plays_input() const { return false; }    // input every frame: never wait for events

protected:
    void finish(int status) {
        if (!finished_) finished_ = status;
    }

private:
    std::optional<int> finished_;
};

// The hooks the options ask for (throws hs::Error on a bad combination, e.g. edits of a
// model that is not a playground model).
std::vector<std::unique_ptr<FrameHook>> make_frame_hooks(const GuiOptions& options, const AppContext& ctx);

// The hooks' factories (one file each under app/hooks/).
std::unique_ptr<FrameHook> make_frame_bench(const GuiOptions& options);       // --bench-frames/-pan/-busy
std::unique_ptr<FrameHook> make_edit_bench(const GuiOptions& options, const AppContext& ctx);  // --bench-edits
std::unique_ptr<FrameHook> make_script_hook(const GuiOptions& options);       // --script
std::unique_ptr<FrameHook> make_screenshot_hook(const GuiOptions& options);   // --screenshot, --layout
std::unique_ptr<FrameHook> make_timing_hook();                                 // --timing

}  // namespace hs
