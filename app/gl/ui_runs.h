#pragma once
// Splitting one ImGui draw command into runs of triangles that a cheaper fragment program
// can draw with the same pixels (app/gl/ui_renderer.* draws them). Under llvmpipe every
// shaded pixel costs: ImGui's program fetches the font texture (bilinear) for every
// pixel, although most of the window (backgrounds, frames, buttons) uses the atlas's
// white texel, whose value is exactly (1, 1, 1, 1), so Color · texel = Color. No GL here.
#include <cstdint>
#include <vector>

#include <imgui.h>

namespace hs {

// What a triangle needs, cheapest last; a triangle may always be drawn by a more general
// kind (a solid triangle by the textured program gives the same pixels).
enum class RunKind : std::uint8_t {
    Textured = 0,  // Color · texture(uv)
    Solid = 1,     // every vertex uses the white texel: Color alone
    Opaque = 2,    // Solid, all three vertices one colour with alpha 255: blending leaves
                   // exactly that colour, and flat shading gives it too
};

// A run of a command's triangles: indices [first, first + count) of the command (count is
// a multiple of 3), drawn with one program.
struct UiRun {
    unsigned first = 0;
    unsigned count = 0;
    RunKind kind = RunKind::Textured;
    bool operator==(const UiRun&) const = default;
};

struct RunOptions {
    ImVec2 white_uv;            // ImFontAtlas::TexUvWhitePixel
    double min_area = 4096.0;   // a run covering fewer pixels (sum of triangle areas) joins a neighbour
    bool opaque = true;         // tell Opaque triangles apart from Solid ones
};

// The kind of triangle (a, b, c).
RunKind triangle_kind(const ImDrawVert& a, const ImDrawVert& b, const ImDrawVert& c, const RunOptions& options);

// Splits the `elem_count` indices at `idx` (into `vtx`) into runs, in order, covering all
// of them. Consecutive triangles of one kind form a run; a run of a cheap kind whose area
// is below `min_area` (a draw call that saves little) takes the cheapest kind among its
// neighbours (the previous run as already decided, the next as found) that can still draw
// it, if any; finally neighbours of equal kind merge. Output replaces `out`.
void split_runs(const ImDrawVert* vtx, const ImDrawIdx* idx, unsigned elem_count, const RunOptions& options,
                std::vector<UiRun>& out);

}  // namespace hs
