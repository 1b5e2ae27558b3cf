// --bench-frames N (with --bench-pan or --bench-busy): frame-time percentiles of N frames
// after the first trace has settled, and where their time went:
//   frames 300  p50 0.71 ms  p95 0.79 ms  max 1.46 ms
//   phases ui 0.32 ms  render 0.07 ms  swap 0.30 ms
// --bench-pan moves the heatmap's visible part every timed frame (as a drag would);
// --bench-busy keeps the worker recomputing and times only the frames drawn while it
// computed throughout, plus the frames that took a new trace in; it runs until it has N
// such frames and at least one finished pass (however slow the machine or the build);
// --bench-train opens the Train view, starts its default run (induction, the issue-13
// model) and times the N frames drawn while it trains, with the training's tokens/s.
#include <cstdio>

#include "app/bench.h"
#include "app/context.h"
#include "app/hooks/frame_hook.h"
#include "app/options.h"

namespace hs {

namespace {

class FrameBench final : public FrameHook {
public:
    explicit FrameBench(const GuiOptions& o)
        : frames_(o.bench_frames), pan_(o.bench_pan), busy_(o.bench_busy), train_(o.bench_train) {}

    void before_ui(AppContext& ctx, const FrameRecord& f) override {
        // --bench-busy: recompute the same input (the model stays cached).
        if (busy_ && f.ready_frames > 3 && ctx.worker.idle() && !ctx.state.dirty) ctx.state.dirty = true;
        // --bench-train: a run long enough to outlast the timed frames.
        if (train_ && f.ready_frames > 3 && !train_started_) {
            ctx.state.view_mode = ViewMode::Train;
            ctx.train.steps = 1'000'000;
            ctx.train_worker.start(training_setup(ctx.train), true);
            train_started_ = true;
        }
    }

    void in_ui(AppContext& ctx, const FrameRecord& f) override {
        if (!pan_ || f.ready_frames <= 3) return;
        const PanUv p = pan_uv(pan_frame_++);  // a new part of the map every frame
        ctx.heatmap.uv = UvRect{p.u0, p.v0, p.u1, p.v1};
    }

    void after_frame(AppContext& ctx, const FrameRecord& f) override {
        if (f.ready_frames <= 3) return;
        const double frame = ms_between(f.start, f.end);
        const bool busy_throughout =
            train_ ? train_started_ && ctx.train_worker.progress().steps_taken > 0 : f.busy_at_start && ctx.worker.busy();
        if (busy_ && f.took_trace) {
            ++busy_passes_;
            result_ms_.push_back(frame);
        }
        const bool want_frames = static_cast<int>(frame_ms_.size()) < frames_;
        if (want_frames && (!(busy_ || train_) || busy_throughout)) {
            frame_ms_.push_back(frame);
            ui_.push_back(ms_between(f.start, f.ui_done));
            render_.push_back(ms_between(f.ui_done, f.drawn));
            swap_.push_back(ms_between(f.drawn, f.end));
        }
        if (static_cast<int>(frame_ms_.size()) >= frames_ && (!busy_ || busy_passes_ >= 1)) {
            if (train_) {
                const TrainProgress p = ctx.train_worker.progress();
                train_steps_ = p.steps_taken;
                train_tokens_per_s_ = p.history ? p.history->tokens_per_second : 0.0;
                ctx.train_worker.pause();
            }
            finish(0);
        }
    }

    void report(AppContext&) override {
        if (static_cast<int>(frame_ms_.size()) < frames_) return;  // ended early (an error)
        print_bench(frame_ms_, pan_ ? "pan frames" : busy_ ? "busy frames" : train_ ? "training frames" : "frames");
        if (train_) std::printf("training: %d steps, %.0f tokens/s while the frames were drawn\n", train_steps_, train_tokens_per_s_);
        if (busy_) {
            std::printf("busy passes %d\n", busy_passes_);
            print_bench(result_ms_, "busy result frames");
        }
        std::printf("phases ui %.2f ms  render %.2f ms  swap %.2f ms\n", percentiles(ui_).p50,
                    percentiles(render_).p50, percentiles(swap_).p50);
        std::printf("phases p95 ui %.2f ms  render %.2f ms  swap %.2f ms\n", percentiles(ui_).p95,
                    percentiles(render_).p95, percentiles(swap_).p95);
        std::fflush(stdout);
    }

    bool measures() const override { return true; }
    bool paced() const override { return busy_ || train_; }
    bool times_drawing() const override { return true; }
    bool needs_trace() const override { return true; }
    bool plays_input() const override { return true; }  // times every frame (pans, reruns the forward)

private:
    int frames_;
    bool pan_, busy_, train_;
    bool train_started_ = false;
    int train_steps_ = 0;
    double train_tokens_per_s_ = 0.0;
    int pan_frame_ = 0;
    int busy_passes_ = 0;
    std::vector<double> frame_ms_, result_ms_, ui_, render_, swap_;
};

// --timing: on exit, the last job's load / forward times and the frames drawn while the
// worker computed.
class TimingHook final : public FrameHook {
public:
    void after_frame(AppContext& ctx, const FrameRecord& f) override {
        if (f.busy_at_start && ctx.worker.busy()) busy_ms_.push_back(ms_between(f.start, f.end));
    }
    void report(AppContext& ctx) override {
        std::printf("model %s\nload %.1f ms  forward %.1f ms  job %.1f ms  (%zu tokens)\n", ctx.view.model_arg.c_str(),
                    ctx.view.load_ms, ctx.view.forward_ms, ctx.view.compute_ms,
                    ctx.view.trace ? ctx.view.trace->main.tokens.size() : std::size_t{0});
        print_bench(busy_ms_, "frames while computing");
    }
    bool measures() const override { return true; }

private:
    std::vector<double> busy_ms_;
};

}  // namespace

std::unique_ptr<FrameHook> make_frame_bench(const GuiOptions& options) { return std::make_unique<FrameBench>(options); }
std::unique_ptr<FrameHook> make_timing_hook() { return std::make_unique<TimingHook>(); }

}  // namespace hs
