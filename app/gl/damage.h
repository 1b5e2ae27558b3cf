#pragma once
// Damage tracking for the UI frame: which framebuffer pixels can differ from the last
// frame. Software GL (llvmpipe under Xvfb) pays for every shaded pixel, and a 1600×1000
// window of ImGui backgrounds costs more than a 60 Hz frame on these 2-core machines,
// while most frames change only one panel (panning the heatmap, the progress bar) or
// nothing at all, and often a few glyphs of it. Each ImGui draw list is summarised by its
// commands (the parameters of heatmap draws included), vertices and indices; a list that
// changed damages the pixels of the draws that differ, in the old and the new frame
// (changed_pixels), and a frame's damage is a few disjoint rectangles. No GL here:
// app/gl/frame_cache.* does the drawing.
#include <cstdint>
#include <string>
#include <vector>

#include <imgui.h>

namespace hs {

// Framebuffer pixels [x0, x1) × [y0, y1), origin top-left (ImGui's orientation).
struct DamageRect {
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    bool empty() const { return x1 <= x0 || y1 <= y0; }
    long long area() const { return empty() ? 0 : static_cast<long long>(x1 - x0) * (y1 - y0); }
    bool operator==(const DamageRect&) const = default;
};

// Smallest rectangle holding both (an empty operand is ignored).
DamageRect unite(const DamageRect& a, const DamageRect& b);
DamageRect intersect(const DamageRect& a, const DamageRect& b);

// The pixels imgui_impl_opengl3 (1.86) scissors a command to: it truncates
//   x = (int)min.x, y_gl = (int)(fb_h − max.y), w = (int)(max.x − min.x), h = (int)(max.y − min.y)
// with min/max = clip rect × framebuffer scale; returned flipped to top-left origin.
DamageRect backend_scissor(const ImVec4& clip, ImVec2 scale, int fb_height);
// Every pixel a command with this clip rect can touch, whatever its rounding:
// [floor(min), ceil(max)) in framebuffer pixels.
DamageRect outer_pixels(const ImVec4& clip, ImVec2 scale);
// A clip rect (framebuffer scale 1) that the backend turns into exactly `pixels`
// (integer coordinates survive its truncation); an empty rect becomes an empty clip.
ImVec4 clip_for_pixels(const DamageRect& pixels);

// Pixels of `area` outside every rectangle of `holes`, as disjoint rectangles (a − hole
// splits into the bands above and below the hole and the parts left and right of it).
// Holes are cut largest first; a hole that would raise the count above `max_pieces` is
// skipped (its pixels stay in the result), so the answer always covers area − ∪ holes.
std::vector<DamageRect> cut_holes(const DamageRect& area, std::vector<DamageRect> holes, std::size_t max_pieces);
// The pixels an opaque quad over [p0, p1) (float pixels, top-left origin) scissored to
// `clip` surely writes: those whose centres lie inside both, one pixel in from every
// edge so that no rounding of the rasteriser or of the truncated scissor can miss them.
DamageRect inner_pixels(ImVec2 p0, ImVec2 p1, const ImVec4& clip);
// Every pixel a draw over the box `drawn` (display pixels) can touch: its clip rect ∩ the
// box's outer pixels, a pixel more on every side for edge rounding.
DamageRect touched_pixels(const ImVec4& drawn, const ImVec4& clip, ImVec2 scale);

// One command of a draw list as the tracker compares it: plain triangles, or a heatmap
// quad (its parameters' bytes; draw callbacks that draw nothing are left out).
struct DrawStep {
    ImVec4 clip;
    ImTextureID texture = nullptr;
    unsigned int vtx_offset = 0, idx_offset = 0, elem_count = 0;
    bool quad = false;             // a heatmap quad instead of triangles
    std::size_t quad_key_at = 0, quad_key_size = 0;  // its parameters' bytes in the list's key
    DamageRect quad_pixels;        // pixels the quad can touch
};

// One draw list of a frame: its owner window, the bytes that determine its pixels and
// the pixels it can touch. With `steps` filled (and `vertices`, `indices`), a changed
// list's damage is narrowed to the draws that changed (changed_pixels below); without,
// it is the list's old and new bounds.
struct ListSummary {
    std::string name;
    std::vector<unsigned char> key;  // the commands' bytes (clip, texture, offsets, quads)
    DamageRect bounds;
    std::vector<ImDrawVert> vertices;
    std::vector<ImDrawIdx> indices;
    std::vector<DrawStep> steps;
    ImVec2 scale{1.0f, 1.0f};        // framebuffer pixels per display pixel
};

// Whether two summaries draw the same pixels (key, bounds, vertices and indices).
bool same_draws(const ListSummary& a, const ListSummary& b);

// The pixels where `now` can draw differently from `old` (the same list a frame apart),
// as at most kMaxRectsPerList disjoint rectangles. The draws (triangles, quads) are walked
// in step; each run of draws that differ (an edited label's glyphs, a redrawn quad,
// glyphs inserted or removed) gets a box in the old and the new frame, and the walk goes
// on where kAnchor draws agree again (the nearest such place within kReach draws ahead in
// each frame). At a pixel outside the boxes the list lays down the same fragments in the
// same order. More than kMaxRunsPerList runs: one old and one new box. Falls back to the
// old and new bounds when either list has no steps.
constexpr std::size_t kAnchor = 2, kReach = 512, kMaxRunsPerList = 16, kMaxRectsPerList = 4;
constexpr long kSearchBudget = 20000;  // candidate places tried per list and frame
std::vector<DamageRect> changed_pixels(const ListSummary& old, const ListSummary& now);

// Disjoint rectangles covering every pixel of `rects`: overlapping ones are united until
// none overlap, then, while there are more than `max_rects`, the pair whose union adds
// the fewest pixels is united. (A partial redraw draws every command once per rectangle:
// overlapping rectangles would blend a pixel twice.)
std::vector<DamageRect> disjoint_cover(std::vector<DamageRect> rects, std::size_t max_rects);
long long total_area(const std::vector<DamageRect>& rects);

// Appends n raw bytes to a list key.
void append_bytes(std::vector<unsigned char>& key, const void* data, std::size_t n);
template <typename T>
void append_value(std::vector<unsigned char>& key, const T& v) {
    append_bytes(key, &v, sizeof v);
}

// Each rectangle costs a draw call per command that reaches into it: a live edit's frames
// damage the edited field, the heatmap, the grid and the Pipeline, a few apart.
constexpr std::size_t kMaxDamageRects = 8;

class DamageTracker {
public:
    // Damage of this frame against the previous one (then remembers this frame), as at
    // most kMaxDamageRects disjoint rectangles:
    //   everything on the first frame, after invalidate(), or when the framebuffer size
    //   or `epoch` (state outside the lists, e.g. the font atlas) changed, or when lists
    //   present in both frames were reordered (z-order);
    //   else the changed pixels of each list that draws differently (changed_pixels), and
    //   the bounds of lists that appeared or disappeared. Empty: the frame is pixel-identical.
    // On return `lists` holds the previous frame's summaries: refill them next frame, so
    // that their storage is reused instead of freshly mapped every frame.
    std::vector<DamageRect> update(std::vector<ListSummary>& lists, int fb_width, int fb_height, std::uint64_t epoch);
    void invalidate() { valid_ = false; }

private:
    std::vector<ListSummary> previous_;
    int width_ = 0, height_ = 0;
    std::uint64_t epoch_ = 0;
    bool valid_ = false;
};

}  // namespace hs
