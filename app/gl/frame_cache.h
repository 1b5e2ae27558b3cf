#pragma once
// The UI frame kept between frames, so that each frame ImGui's draw data is re-rendered
// only inside the damaged rectangle (app/gl/damage.h). Where the window's back buffer
// keeps its contents across swaps (Mesa's software rasteriser does; probed at start),
// the frame stays there and nothing is copied. Elsewhere it lives in an offscreen RGBA8
// framebuffer that is copied to the back buffer every frame (under llvmpipe that copy
// alone costs several ms at 1600×1000, hence the probe). Pixels come out
// exactly as a full redraw makes them: inside the damage every command runs with its own
// scissor cut down to the damage, in the same order; outside it nothing that touches
// them changed. Falls back to a full redraw for unknown draw callbacks and HiDPI scales.
// Heatmap quads are opaque: nothing drawn before one is drawn (or cleared) under it.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <imgui.h>

#include "app/gl/damage.h"
#include "app/gl/gl.h"

namespace hs {

class HeatmapRenderer;
class UiRenderer;

// What the last render() drew (benchmarks print these).
struct FrameStats {
    long long redrawn_pixels = 0;  // area of the damage rectangles
    long long total_pixels = 0;    // framebuffer area
};

class FrameCache {
public:
    // The lists are drawn by the stock Dear ImGui OpenGL3 backend (its public
    // ImGui_ImplOpenGL3_RenderDrawData, on draw data whose clip rects are cut to the
    // damage), or with `own_renderer` by UiRenderer (app/gl/ui_renderer.h: --own-renderer,
    // an opt-in for software GL that mirrors the 1.86 backend's render state).
    explicit FrameCache(bool own_renderer = false);
    ~FrameCache();
    FrameCache(const FrameCache&) = delete;
    FrameCache& operator=(const FrameCache&) = delete;

    // full_redraw: behave like a plain renderer (every pixel, every frame, straight into
    // the back buffer), for comparisons.
    void set_full_redraw(bool on) { full_redraw_ = on; }
    // Draw straight into the window's back buffer (only when it is retained across swaps).
    void set_retained(bool on) { retained_ = on; tracker_.invalidate(); }
    bool retained() const { return retained_; }
    // Draws three frames and checks that after each `swap` the back buffer still holds
    // what was drawn. Leaves the default framebuffer bound.
    static bool probe_retained_back_buffer(const std::function<void()>& swap);
    // Renders `draw_data` (after ImGui::Render()) and leaves the finished frame in the
    // default framebuffer's back buffer, which stays bound. Modifies the commands' clip
    // rects in place (the draw data is rebuilt next frame anyway).
    // (Offscreen, llvmpipe blends RGBA8 and the window's BGRX8 with different rounding:
    // anti-aliased edges may differ by one level from drawing straight into the window.)
    void render(ImDrawData* draw_data, HeatmapRenderer& renderer, const ImVec4& clear_color);
    const FrameStats& stats() const { return stats_; }
    // One line for benchmark output: "frame cache retained back buffer (stock backend)", …
    std::string describe() const;

private:
    // Drawing straight into the window's back buffer (no offscreen copy).
    bool direct() const { return retained_ || full_redraw_; }
    void ensure_target(int width, int height);
    // Key bytes and bounds of every list; false when a command cannot be keyed.
    bool summarise(const ImDrawData& draw_data, std::vector<ListSummary>& out) const;

    std::unique_ptr<UiRenderer> ui_;  // --own-renderer: draws the lists; null: the stock backend
    DamageTracker tracker_;
    std::vector<ListSummary> spare_;  // summaries two frames old, refilled in place
    GLuint framebuffer_ = 0, color_ = 0;
    int width_ = 0, height_ = 0;
    bool full_redraw_ = false;
    bool retained_ = false;
    FrameStats stats_;
};

}  // namespace hs
