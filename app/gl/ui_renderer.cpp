#include "app/gl/ui_renderer.h"

#include <cstddef>
#include <cstdint>

namespace hs {
namespace {

constexpr GLenum kIndexType = sizeof(ImDrawIdx) == 2 ? GL_UNSIGNED_SHORT : GL_UNSIGNED_INT;

}  // namespace

UiRenderer::UiRenderer() {
    auto build = [](Program& p, const char* defines) {
        p.program = ShaderProgram("ui.vert", "ui.frag", defines);
        p.u_proj = p.program.uniform("u_proj");
        p.u_texture = p.program.uniform("u_texture");
    };
    build(textured_, "#define HS_TEXTURED 1\n#define HS_FLAT 0\n");
    build(solid_, "#define HS_TEXTURED 0\n#define HS_FLAT 0\n");
    build(flat_, "#define HS_TEXTURED 0\n#define HS_FLAT 1\n");
    glGenVertexArrays(1, &vao_);
    glGenBuffers(1, &vbo_);
    glGenBuffers(1, &ebo_);
    // ImDrawVert: pos (2 floats), uv (2 floats), col (4 bytes, normalised), 20 bytes.
    glBindVertexArray(vao_);
    glBindBuffer(GL_ARRAY_BUFFER, vbo_);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ebo_);
    glEnableVertexAttribArray(0);
    glEnableVertexAttribArray(1);
    glEnableVertexAttribArray(2);
    const auto stride = static_cast<GLsizei>(sizeof(ImDrawVert));
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, stride, reinterpret_cast<void*>(offsetof(ImDrawVert, pos)));
    glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, stride, reinterpret_cast<void*>(offsetof(ImDrawVert, uv)));
    glVertexAttribPointer(2, 4, GL_UNSIGNED_BYTE, GL_TRUE, stride, reinterpret_cast<void*>(offsetof(ImDrawVert, col)));
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
}

UiRenderer::~UiRenderer() {
    if (ebo_) glDeleteBuffers(1, &ebo_);
    if (vbo_) glDeleteBuffers(1, &vbo_);
    if (vao_) glDeleteVertexArrays(1, &vao_);
}

void UiRenderer::upload(const ImDrawData& dd) {
    // All lists in one vertex and one index buffer (orphaned every frame): list n's
    // vertices start at vtx_base_[n], its indices at idx_base_[n].
    vtx_base_.assign(static_cast<std::size_t>(dd.CmdListsCount), 0);
    idx_base_.assign(static_cast<std::size_t>(dd.CmdListsCount), 0);
    int vertices = 0, indices = 0;
    for (int n = 0; n < dd.CmdListsCount; ++n) {
        vtx_base_[static_cast<std::size_t>(n)] = vertices;
        idx_base_[static_cast<std::size_t>(n)] = indices;
        vertices += dd.CmdLists[n]->VtxBuffer.Size;
        indices += dd.CmdLists[n]->IdxBuffer.Size;
    }
    glBindBuffer(GL_ARRAY_BUFFER, vbo_);
    glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(vertices) * GLsizeiptr(sizeof(ImDrawVert)), nullptr,
                 GL_STREAM_DRAW);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ebo_);  // binds into the VAO bound by setup_state
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, static_cast<GLsizeiptr>(indices) * GLsizeiptr(sizeof(ImDrawIdx)), nullptr,
                 GL_STREAM_DRAW);
    for (int n = 0; n < dd.CmdListsCount; ++n) {
        const ImDrawList& list = *dd.CmdLists[n];
        const auto i = static_cast<std::size_t>(n);
        glBufferSubData(GL_ARRAY_BUFFER, GLintptr(vtx_base_[i]) * GLintptr(sizeof(ImDrawVert)),
                        GLsizeiptr(list.VtxBuffer.Size) * GLsizeiptr(sizeof(ImDrawVert)), list.VtxBuffer.Data);
        glBufferSubData(GL_ELEMENT_ARRAY_BUFFER, GLintptr(idx_base_[i]) * GLintptr(sizeof(ImDrawIdx)),
                        GLsizeiptr(list.IdxBuffer.Size) * GLsizeiptr(sizeof(ImDrawIdx)), list.IdxBuffer.Data);
    }
}

void UiRenderer::setup_state(const ImDrawData& dd, int fb_width, int fb_height) {
    glEnable(GL_BLEND);
    glBlendEquation(GL_FUNC_ADD);
    glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
    glDisable(GL_CULL_FACE);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_STENCIL_TEST);
    glDisable(GL_PRIMITIVE_RESTART);
    glEnable(GL_SCISSOR_TEST);
    glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
    glViewport(0, 0, fb_width, fb_height);
    // Orthographic projection of the display rectangle [L, R] × [T, B] (y down) onto
    // [-1, 1]²: x' = 2x/(R−L) + (R+L)/(L−R), y' = 2y/(T−B) + (T+B)/(B−T) (column-major).
    const float l = dd.DisplayPos.x, r = dd.DisplayPos.x + dd.DisplaySize.x;
    const float t = dd.DisplayPos.y, b = dd.DisplayPos.y + dd.DisplaySize.y;
    const float m[4][4] = {
        {2.0f / (r - l), 0.0f, 0.0f, 0.0f},
        {0.0f, 2.0f / (t - b), 0.0f, 0.0f},
        {0.0f, 0.0f, -1.0f, 0.0f},
        {(r + l) / (l - r), (t + b) / (b - t), 0.0f, 1.0f},
    };
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) projection_[i][j] = m[i][j];
    for (Program* p : {&textured_, &flat_, &solid_}) {
        glUseProgram(p->program.id());
        glUniformMatrix4fv(p->u_proj, 1, GL_FALSE, &projection_[0][0]);
        if (p->u_texture >= 0) glUniform1i(p->u_texture, 0);
    }
    glActiveTexture(GL_TEXTURE0);
    glBindSampler(0, 0);
    glBindVertexArray(vao_);
    glBindBuffer(GL_ARRAY_BUFFER, vbo_);
    current_ = &solid_;  // the last program used above
    blending_ = true;
    texture_known_ = false;
    state_known_ = true;
}

void UiRenderer::use(RunKind kind) {
    if (!state_known_) {
        // After a user callback: our program, vertex array and texture may have changed;
        // blending is left as the callback set it.
        glBindVertexArray(vao_);
        current_ = nullptr;
        texture_known_ = false;
        if (kind == RunKind::Opaque) kind = RunKind::Solid;
    }
    const Program* want = kind == RunKind::Textured ? &textured_ : kind == RunKind::Opaque ? &flat_ : &solid_;
    if (current_ != want) {
        glUseProgram(want->program.id());
        current_ = want;
    }
    if (!state_known_) return;
    // Opaque runs: every fragment has alpha 1, so SRC_ALPHA / ONE_MINUS_SRC_ALPHA blending
    // gives src·1 + dst·0 = src for colour and 1·1 + dst_a·0 = 1 for alpha: the same
    // pixels without reading the destination. Each opaque triangle has one colour, so the
    // flat program (no colour interpolation) gives the same value. (The window keeps its
    // depth buffer: without one llvmpipe drops a tile's earlier draws under an opaque
    // triangle covering it, and partial redraws then differed from full ones by one level
    // at a few anti-aliased pixels.)
    const bool blend = kind != RunKind::Opaque;
    if (blend != blending_) {
        if (blend)
            glEnable(GL_BLEND);
        else
            glDisable(GL_BLEND);
        blending_ = blend;
    }
}

void UiRenderer::render(ImDrawData* dd) {
    // Framebuffer size and clip projection exactly as the backend computes them.
    const int fb_width = static_cast<int>(dd->DisplaySize.x * dd->FramebufferScale.x);
    const int fb_height = static_cast<int>(dd->DisplaySize.y * dd->FramebufferScale.y);
    if (fb_width <= 0 || fb_height <= 0) return;
    setup_state(*dd, fb_width, fb_height);
    upload(*dd);
    const ImVec2 clip_off = dd->DisplayPos;
    const ImVec2 clip_scale = dd->FramebufferScale;
    RunOptions options;
    options.white_uv = ImGui::GetIO().Fonts->TexUvWhitePixel;

    for (int n = 0; n < dd->CmdListsCount; ++n) {
        const ImDrawList* list = dd->CmdLists[n];
        const int vtx_base = vtx_base_[static_cast<std::size_t>(n)];
        const int idx_base = idx_base_[static_cast<std::size_t>(n)];
        const ImDrawCmd* split_cmd = nullptr;  // the command runs_ were split for
        for (int c = 0; c < list->CmdBuffer.Size; ++c) {
            const ImDrawCmd* cmd = &list->CmdBuffer[c];
            if (cmd->UserCallback != nullptr) {
                if (cmd->UserCallback == ImDrawCallback_ResetRenderState) {
                    setup_state(*dd, fb_width, fb_height);
                } else {
                    cmd->UserCallback(list, cmd);
                    state_known_ = false;
                }
                continue;
            }
            // Scissor: clip rect in framebuffer pixels, truncated (y up in GL).
            const ImVec2 clip_min((cmd->ClipRect.x - clip_off.x) * clip_scale.x,
                                  (cmd->ClipRect.y - clip_off.y) * clip_scale.y);
            const ImVec2 clip_max((cmd->ClipRect.z - clip_off.x) * clip_scale.x,
                                  (cmd->ClipRect.w - clip_off.y) * clip_scale.y);
            if (clip_max.x <= clip_min.x || clip_max.y <= clip_min.y) continue;
            glScissor(static_cast<int>(clip_min.x), static_cast<int>(static_cast<float>(fb_height) - clip_max.y),
                      static_cast<int>(clip_max.x - clip_min.x), static_cast<int>(clip_max.y - clip_min.y));
            const auto texture = static_cast<GLuint>(reinterpret_cast<std::intptr_t>(cmd->GetTexID()));
            // Only the font atlas has the white texel: other textures (images) draw as they are.
            // The frame cache issues a command once per piece of the damage, back to back:
            // its runs are split once.
            const bool same_as_last = split_cmd != nullptr && split_cmd->IdxOffset == cmd->IdxOffset &&
                                      split_cmd->VtxOffset == cmd->VtxOffset &&
                                      split_cmd->ElemCount == cmd->ElemCount &&
                                      split_cmd->GetTexID() == cmd->GetTexID();
            if (same_as_last) {
                // runs_ still hold this command's runs
            } else if (cmd->GetTexID() == ImGui::GetIO().Fonts->TexID) {
                split_runs(list->VtxBuffer.Data + cmd->VtxOffset, list->IdxBuffer.Data + cmd->IdxOffset,
                           cmd->ElemCount, options, runs_);
            } else {
                runs_.assign(1, UiRun{0, cmd->ElemCount, RunKind::Textured});
            }
            split_cmd = cmd;
            for (const UiRun& run : runs_) {
                use(run.kind);
                if (run.kind == RunKind::Textured && (!texture_known_ || texture_ != texture)) {
                    glBindTexture(GL_TEXTURE_2D, texture);
                    texture_ = texture;
                    texture_known_ = true;
                }
                const std::size_t first = static_cast<std::size_t>(idx_base) + cmd->IdxOffset + run.first;
                glDrawElementsBaseVertex(GL_TRIANGLES, static_cast<GLsizei>(run.count), kIndexType,
                                         reinterpret_cast<void*>(first * sizeof(ImDrawIdx)),
                                         vtx_base + static_cast<GLint>(cmd->VtxOffset));
            }
        }
    }
    // GL defaults outside the UI pass (as the backend's restore left them here).
    glDisable(GL_BLEND);
    glBindVertexArray(0);
    glUseProgram(0);
    glBindTexture(GL_TEXTURE_2D, 0);
    state_known_ = false;
}

}  // namespace hs
