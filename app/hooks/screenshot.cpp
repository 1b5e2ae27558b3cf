// Screenshots: the --screenshot option's hook (after --frames ready frames) and the
// functions the script runner's `screenshot` action uses too.
#include "app/hooks/screenshot.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/context.h"
#include "app/gl/gl.h"
#include "app/hooks/frame_hook.h"
#include "app/options.h"
#include "core/image/png.h"
#include "core/io/atomic_file.h"

namespace hs {

void save_screenshot(const std::string& path, int width, int height) {
    std::vector<unsigned char> rgb(static_cast<std::size_t>(width) * height * 3);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadBuffer(GL_BACK);
    glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, rgb.data());
    RgbImage image(width, height);  // rows flipped to top-first
    const std::size_t row = static_cast<std::size_t>(width) * 3;
    for (int y = 0; y < height; ++y)
        std::copy_n(rgb.data() + static_cast<std::size_t>(height - 1 - y) * row, row,
                    image.bytes().data() + static_cast<std::size_t>(y) * row);
    write_png(path, image);
}

void write_layout(const std::string& path, const AppContext& ctx, int fb_w, int fb_h) {
    const ImVec2 s = ImGui::GetIO().DisplayFramebufferScale;
    const HeatmapView& h = ctx.heatmap;
    nlohmann::json j;
    j["framebuffer"] = {fb_w, fb_h};
    j["heatmap_drawn"] = h.drawn;
    j["heatmap"] = {h.last_p0.x * s.x, h.last_p0.y * s.y, h.last_p1.x * s.x, h.last_p1.y * s.y};
    j["uv"] = {h.uv.u0, h.uv.v0, h.uv.u1, h.uv.v1};
    j["lo"] = h.last_scale.lo;
    j["hi"] = h.last_scale.hi;
    j["gamma"] = h.last_scale.gamma;
    j["log"] = h.last_scale.log;
    j["colormap"] = to_string(ctx.state.colormap);
    j["layer"] = ctx.state.layer;
    j["head"] = ctx.state.head;
    j["model"] = ctx.view.trace ? ctx.view.trace->model_name : "";
    write_file_atomic(path, j.dump(2) + "\n");
}

namespace {

// --screenshot FILE [--layout FILE] [--frames N]: the window after N ready frames, once;
// the run then ends unless a frame benchmark is still timing.
class ScreenshotHook final : public FrameHook {
public:
    explicit ScreenshotHook(const GuiOptions& o) : path_(o.screenshot), layout_(o.layout), frames_(o.frames),
                                                   keep_running_(o.bench_frames > 0) {}
    void before_swap(AppContext& ctx, const FrameRecord& f) override {
        if (taken_ || f.ready_frames < frames_) return;
        save_screenshot(path_, f.fb_width, f.fb_height);
        if (!layout_.empty()) write_layout(layout_, ctx, f.fb_width, f.fb_height);
        std::printf("wrote %s (%dx%d)\n", path_.c_str(), f.fb_width, f.fb_height);
        taken_ = true;
        if (!keep_running_) finish(0);
    }
    bool measures() const override { return true; }
    bool needs_trace() const override { return true; }

private:
    std::string path_, layout_;
    int frames_;
    bool keep_running_;
    bool taken_ = false;
};

}  // namespace

std::unique_ptr<FrameHook> make_screenshot_hook(const GuiOptions& options) {
    return std::make_unique<ScreenshotHook>(options);
}

}  // namespace hs
