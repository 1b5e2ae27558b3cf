// --bench-edits N [--bench-edit heads|d_model]: N live edits of the playground model, each
// timed from the change of the config (made where a click would be polled) to the end of
// the first frame whose maps come from the new trace; then how that time splits:
//   edits 60  p50 …      whole latency
//   edit jobs / loads / forwards 60  p50 …   the worker's share
//   edit ui 60  p50 …    what the UI adds (frame boundary, upload, drawing)
//   edit click frames 60  p50 …   of which the frame of the click itself, up to the submit
//   edit click frames drawn 0 of 60   (a frame that starts a job is not drawn: app.cpp)
//   edit frames between 60  p50 …  frames drawn between the click's and the result's
//   edit frame phases accept … sync … ui … render … swap …   the frame that showed it
#include <cstdio>

#include "app/bench.h"
#include "app/context.h"
#include "app/hooks/frame_hook.h"
#include "app/options.h"
#include "core/error.h"

namespace hs {

namespace {

class EditBench final : public FrameHook {
public:
    EditBench(const GuiOptions& o, const AppContext& ctx) : total_(o.bench_edits), key_(o.bench_edit) {
        if (ctx.state.source != SourceKind::Playground)
            throw Error("--bench-edits edits a playground model: pass --model random:… (got '" +
                        ctx.state.model_arg() + "').");
        start_ = ctx.state.config;
    }

    void before_ui(AppContext& ctx, const FrameRecord& f) override {
        edit_now_ = !pending_ && done_ < total_ && ctx.view.trace && ctx.worker.idle() && !ctx.state.dirty &&
                    settled_frames_ >= 3;
        if (!edit_now_) return;
        ctx.state.config = edited_config(start_, key_, done_ + 1);
        ctx.state.dirty = true;
        at_ = f.start;  // the edit stands for a click polled at the start of this frame
    }

    void after_submit(AppContext& ctx) override {
        if (!edit_now_) return;
        pending_ = true;
        generation_ = ctx.worker.latest_generation();
    }

    void after_frame(AppContext& ctx, const FrameRecord& f) override {
        ++settled_frames_;
        if (edit_now_) {
            click_.push_back(ms_between(at_, f.end));  // the click's own frame, to the submit
            clicks_drawn_ += !f.deferred;
            between_ = 0;
            return;
        }
        if (pending_ && ctx.view.trace && ctx.view.generation >= generation_) {
            // This frame showed the edited model's maps for the first time.
            latency_.push_back(ms_between(at_, f.end));
            job_.push_back(ctx.view.compute_ms);
            load_.push_back(ctx.view.load_ms);
            forward_.push_back(ctx.view.forward_ms);
            ui_.push_back(latency_.back() - ctx.view.compute_ms);
            accept_.push_back(ms_between(f.start, f.accepted));
            sync_.push_back(ms_between(f.accepted, f.synced));
            frame_ui_.push_back(ms_between(f.synced, f.ui_done));
            render_.push_back(ms_between(f.ui_done, f.drawn));
            swap_.push_back(ms_between(f.drawn, f.end));
            between_frames_.push_back(between_);
            pending_ = false;
            settled_frames_ = 0;
            if (++done_ >= total_) finish(0);
        }
        if (pending_) ++between_;  // drawn while the job ran
        if (pending_ && !ctx.view.error.empty() && ctx.worker.idle()) {
            std::fprintf(stderr, "headscope: live edit failed: %s\n", ctx.view.error.c_str());
            finish(1);
        }
    }

    void report(AppContext&) override {
        if (done_ < total_) return;
        print_bench(latency_, "edits");
        print_bench(job_, "edit jobs");
        print_bench(load_, "edit loads");
        print_bench(forward_, "edit forwards");
        print_bench(ui_, "edit ui");
        print_bench(click_, "edit click frames");
        std::printf("edit click frames drawn %d of %zu\n", clicks_drawn_, click_.size());
        const Percentiles between = percentiles(between_frames_);
        std::printf("edit frames between %zu  p50 %.0f  p95 %.0f  max %.0f\n", between.count, between.p50,
                    between.p95, between.max);
        std::printf("edit frame phases accept %.2f ms  sync %.2f ms  ui %.2f ms  render %.2f ms  "
                    "swap %.2f ms\n",
                    percentiles(accept_).p50, percentiles(sync_).p50, percentiles(frame_ui_).p50,
                    percentiles(render_).p50, percentiles(swap_).p50);
        std::fflush(stdout);
    }

    bool measures() const override { return true; }
    bool paced() const override { return true; }
    bool times_drawing() const override { return true; }
    bool needs_trace() const override { return true; }

private:
    int total_;
    std::string key_;    // "heads" | "d_model"
    ModelConfig start_;  // config of the first trace
    int done_ = 0;
    bool edit_now_ = false;        // this frame made an edit
    bool pending_ = false;         // an edit waits for its trace
    std::uint64_t generation_ = 0;  // worker generation of the pending edit
    FrameClock::time_point at_;
    int settled_frames_ = 0;  // frames drawn since the last edit landed
    int between_ = 0;         // frames drawn after the click's frame, before the result's
    int clicks_drawn_ = 0;    // click frames drawn (not deferred)
    std::vector<double> latency_, job_, load_, forward_, ui_, click_, between_frames_;
    std::vector<double> accept_, sync_, frame_ui_, render_, swap_;
};

}  // namespace

std::unique_ptr<FrameHook> make_edit_bench(const GuiOptions& options, const AppContext& ctx) {
    return std::make_unique<EditBench>(options, ctx);
}

}  // namespace hs
