#include "app/hooks/frame_hook.h"

#include "app/options.h"

namespace hs {

std::vector<std::unique_ptr<FrameHook>> make_frame_hooks(const GuiOptions& options, const AppContext& ctx) {
    std::vector<std::unique_ptr<FrameHook>> hooks;
    if (!options.script.empty()) hooks.push_back(make_script_hook(options));
    if (options.bench_frames > 0) hooks.push_back(make_frame_bench(options));
    if (options.bench_edits > 0) hooks.push_back(make_edit_bench(options, ctx));
    if (!options.screenshot.empty()) hooks.push_back(make_screenshot_hook(options));
    if (options.timing) hooks.push_back(make_timing_hook());
    return hooks;
}

}  // namespace hs
