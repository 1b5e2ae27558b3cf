// --script FILE: the script runner (app/script.h) driven by the frame loop. An action runs
// once the previous one's recomputation has finished; a screenshot it asks for is taken
// before the swap of a later frame; 90 s without progress fails the run (a training run or
// experiment that is still taking steps is progress: under a sanitizer one takes minutes).
#include <cfloat>
#include <cstdint>
#include <cstdio>

#include <imgui.h>

#include "app/context.h"
#include "app/hooks/frame_hook.h"
#include "app/hooks/screenshot.h"
#include "app/keys.h"
#include "app/options.h"
#include "app/script.h"

namespace hs {

namespace {

class ScriptHook final : public FrameHook {
public:
    explicit ScriptHook(const GuiOptions& o) : script_(o.script), layout_(o.layout) {}

    void before_ui(AppContext& ctx, const FrameRecord&) override {
        if (!script_.click_request().empty() || script_.keyboard_pending()) return;  // still clicking or typing
        if (script_.finished() || ctx.state.dirty || !ctx.worker.idle() || !ctx.analysis_worker.idle() ||
            !ctx.mip_worker.idle() || !ctx.train_worker.idle() || !ctx.experiment_worker.idle() || selected_maps_pending(ctx.view, ctx.state))
            return;
        waiting_since_ = FrameClock::now();
        if (!script_.step(ctx)) {
            std::fprintf(stderr, "headscope: script: %s\n", script_.error().c_str());
            finish(1);
        }
    }

    // A click over three frames, as ImGui's buttons need it: the pointer arrives over the
    // widget's centre (hover), presses, releases (the button acts); on the fourth it leaves
    // the window (no hover left behind).
    void pointer(AppContext& ctx) override {
        if (script_.keyboard_pending()) play_keyboard();
        if (script_.click_request().empty()) return;
        const ClickTargets::Target* target = ctx.click_targets.recent(script_.click_request());
        ImGuiIO& io = ImGui::GetIO();
        if (click_frame_ == 3 || !target) {  // done (the widget may go away once clicked)
            io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
            if (click_frame_ < 3) {  // hidden between the script's check and the release
                std::fprintf(stderr, "headscope: script: the widget '%s' went away before it was clicked\n",
                             script_.click_request().c_str());
                finish(1);
            }
            click_frame_ = 0;
            script_.click_done();
            return;
        }
        io.MousePos = ImVec2(0.5f * (target->min.x + target->max.x), 0.5f * (target->min.y + target->max.y));
        io.MouseDown[0] = click_frame_ == 1;
        ++click_frame_;
        waiting_since_ = FrameClock::now();
    }

    // Characters typed in one frame; a key down for one frame and up on the next.
    void play_keyboard() {
        const ScriptRunner::KeyboardRequest& r = script_.keyboard_request();
        waiting_since_ = FrameClock::now();
        if (!r.typed.empty()) {
            ImGui::GetIO().AddInputCharactersUTF8(r.typed.c_str());
            script_.keyboard_done();
            return;
        }
        play_key(*r.key, !key_down_);
        key_down_ = !key_down_;
        if (!key_down_) script_.keyboard_done();
    }

    void before_swap(AppContext& ctx, const FrameRecord& f) override {
        const std::uint64_t training = ctx.train.progress.version;
        const int experiment = ctx.experiment_worker.progress().done_steps;
        if (training != seen_training_ || experiment != seen_experiment_) {
            seen_training_ = training;
            seen_experiment_ = experiment;
            waiting_since_ = FrameClock::now();
        }
        if (FrameClock::now() - waiting_since_ > std::chrono::seconds(90)) {
            std::fprintf(stderr,
                         "headscope: script stalled for 90 s (dirty %d, worker idle %d, busy %d, trace %d, "
                         "error '%s')\n",
                         int(ctx.state.dirty), int(ctx.worker.idle()), int(ctx.worker.busy()),
                         int(bool(ctx.view.trace)), ctx.view.error.c_str());
            finish(1);
            return;
        }
        const std::string shot = script_.take_screenshot_request();
        if (!shot.empty()) {
            save_screenshot(shot, f.fb_width, f.fb_height);
            if (!layout_.empty()) write_layout(layout_, ctx, f.fb_width, f.fb_height);
        }
        if (!script_.finished() || !f.settled) return;
        // Every action ran; the last one's recomputation may still have failed (with or
        // without a trace on screen from before).
        if (const std::string error = script_.unexpected_error(ctx); !error.empty()) {
            std::fprintf(stderr, "headscope: script: %s\n", error.c_str());
            finish(1);
            return;
        }
        finish(0);
    }

    bool measures() const override { return true; }
    bool plays_input() const override { return true; }  // a step (click, key, edit) may come any frame

private:
    ScriptRunner script_;
    std::string layout_;
    int click_frame_ = 0;  // of the click being played: 0 hover, 1 press, 2 release
    bool key_down_ = false;  // the key being played is down
    FrameClock::time_point waiting_since_ = FrameClock::now();
    std::uint64_t seen_training_ = 0;  // the training run's and the experiment's progress last seen
    int seen_experiment_ = 0;
};

}  // namespace

std::unique_ptr<FrameHook> make_script_hook(const GuiOptions& options) { return std::make_unique<ScriptHook>(options); }

}  // namespace hs
