#pragma once
// Draws float maps (FloatTexture) through core's colormap LUTs with shaders/heatmap.*,
// inside ImGui windows: each draw is one ImDrawList callback (one textured quad), so a
// grid of L×H thumbnails is L×H draws, never one ImGui rectangle per cell.
#include <cstdint>
#include <deque>
#include <map>
#include <vector>

#include <imgui.h>

#include "app/gl/shader_program.h"
#include "app/gl/texture.h"
#include "core/image/colormap.h"

namespace hs {

// Which part of the map is visible, in texture coordinates (0..1): zoom and pan.
struct UvRect {
    float u0 = 0.0f, v0 = 0.0f, u1 = 1.0f, v1 = 1.0f;
};

class HeatmapRenderer {
public:
    // Needs a current GL 3.3 context; throws hs::Error if the shaders fail.
    HeatmapRenderer();
    ~HeatmapRenderer();
    HeatmapRenderer(const HeatmapRenderer&) = delete;
    HeatmapRenderer& operator=(const HeatmapRenderer&) = delete;

    // Call once per frame before any draw(): recycles last frame's draw records.
    void begin_frame();
    // Queues `map` into the screen rectangle [p0, p1) of `list`, clipped by the list's
    // current clip rect. Colours follow ColorScale exactly as colorize() does.
    void draw(ImDrawList* list, const FloatTexture& map, ImVec2 p0, ImVec2 p1, const UvRect& uv,
              const ColorScale& scale, Colormap cmap);
    // A vertical or horizontal colour bar: the LUT itself from lo (start) to hi (end).
    void draw_colorbar(ImDrawList* list, ImVec2 p0, ImVec2 p1, Colormap cmap, bool vertical);

    // A hash of everything that decides this frame's map pixels (texture ids and upload
    // versions, rectangles, uv, scales, colormaps), for the frame loop's "nothing changed"
    // test (app/gl/frame_signature.h).
    std::uint64_t frame_signature() const;

private:
    struct DrawItem {
        HeatmapRenderer* self = nullptr;
        GLuint values = 0;
        std::uint64_t version = 0;  // FloatTexture::version() of `values`
        int rows = 0, cols = 0;     // texels of `values`
        bool mipmapped = false;
        GLuint lut = 0;
        ImVec2 p0, p1;
        UvRect uv;
        ColorScale scale;
    };
    static void render_callback(const ImDrawList* list, const ImDrawCmd* cmd);
    void render(const DrawItem& item, const ImDrawCmd* cmd);
    GLuint lut_for(Colormap cmap);

    // shaders/heatmap.frag compiled with HS_LOG / HS_GAMMA on or off: [log][gamma].
    struct Program {
        ShaderProgram program;
        GLint u_rect = -1, u_display = -1, u_uv = -1, u_values = -1, u_lut = -1;
        GLint u_lo = -1, u_hi = -1, u_gamma = -1, u_log = -1;
    };
    Program programs_[2][2];
    GLuint vao_ = 0;
    std::map<Colormap, GLuint> luts_;
    FloatTexture ramp_;            // (1, 256) values 0..1 for horizontal colour bars
    FloatTexture ramp_vertical_;   // (256, 1) values 1..0 for vertical colour bars
    std::deque<DrawItem> items_;   // stable addresses until the frame is rendered
};

}  // namespace hs
