#pragma once
// Draws ImGui's draw data (after ImGui::Render()) like imgui_impl_opengl3's
// RenderDrawData, pixel for pixel, but cheaper per pixel under llvmpipe: each command's
// triangles are split into runs (app/gl/ui_runs.h) and those that only use the font
// atlas's white texel are drawn by a program without the texture fetch; opaque ones
// (alpha 255, one colour) with a flat colour and blending off, where blending would leave
// exactly their colour.
// Same state and scissor rules as the backend: alpha blending, no cull/depth/stencil,
// scissor = clip rect × framebuffer scale truncated to int (damage.h backend_scissor).
// User callbacks are called in order; ImDrawCallback_ResetRenderState re-applies our state.
// The backend stays in charge of NewFrame and of the font texture.
#include <vector>

#include <imgui.h>

#include "app/gl/gl.h"
#include "app/gl/shader_program.h"
#include "app/gl/ui_runs.h"

namespace hs {

class UiRenderer {
public:
    // Needs a current GL 3.3 context; throws hs::Error if the shaders fail.
    UiRenderer();
    ~UiRenderer();
    UiRenderer(const UiRenderer&) = delete;
    UiRenderer& operator=(const UiRenderer&) = delete;

    // Draws into the bound framebuffer. Leaves blending off, the scissor test on, and no
    // program, vertex array or texture bound.
    void render(ImDrawData* draw_data);

private:
    struct Program {
        ShaderProgram program;
        GLint u_proj = -1, u_texture = -1;
    };
    // The backend's render state: blending, no cull/depth/stencil/primitive restart,
    // scissor on, viewport = framebuffer, projection of the display rectangle.
    void setup_state(const ImDrawData& dd, int fb_width, int fb_height);
    void upload(const ImDrawData& dd);
    void use(RunKind kind);

    Program textured_;  // Color · texture(uv), the backend's program
    Program solid_;     // Color, interpolated
    Program flat_;      // Color of the provoking vertex (opaque runs: one colour per triangle)
    GLuint vao_ = 0, vbo_ = 0, ebo_ = 0;
    float projection_[4][4] = {};
    std::vector<UiRun> runs_;
    std::vector<int> vtx_base_, idx_base_;  // per list: first vertex / index in the buffers
    // What is bound now; unknown after a user callback.
    bool state_known_ = false;
    const Program* current_ = nullptr;
    bool blending_ = true;
    GLuint texture_ = 0;
    bool texture_known_ = false;
};

}  // namespace hs
