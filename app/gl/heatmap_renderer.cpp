#include "app/gl/heatmap_renderer.h"

#include "app/gl/frame_signature.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace hs {

HeatmapRenderer::HeatmapRenderer() {
    glGenVertexArrays(1, &vao_);  // core profile needs a bound VAO; the quad uses gl_VertexID
    for (int log = 0; log < 2; ++log)
        for (int gamma = 0; gamma < 2; ++gamma) {
            Program& v = programs_[log][gamma];
            v.program = ShaderProgram("heatmap.vert", "heatmap.frag",
                                      "#define HS_LOG " + std::to_string(log) + "\n#define HS_GAMMA " +
                                          std::to_string(gamma) + "\n");
            const GLuint p = v.program.id();
            v.u_rect = glGetUniformLocation(p, "u_rect");
            v.u_display = glGetUniformLocation(p, "u_display");
            v.u_uv = glGetUniformLocation(p, "u_uv");
            v.u_values = glGetUniformLocation(p, "u_values");
            v.u_lut = glGetUniformLocation(p, "u_lut");
            v.u_lo = glGetUniformLocation(p, "u_lo");
            v.u_hi = glGetUniformLocation(p, "u_hi");
            v.u_gamma = glGetUniformLocation(p, "u_gamma");
            v.u_log = glGetUniformLocation(p, "u_log");
        }
    // ramp: (1, 256), value i/255 in column i, so LUT index i lands in column i exactly.
    Matrix ramp(1, 256);
    for (int i = 0; i < 256; ++i) ramp(0, i) = static_cast<float>(i) / 255.0f;
    ramp_.upload(ramp);
    // vertical ramp: (256, 1), hi on top.
    Matrix ramp_v(256, 1);
    for (int i = 0; i < 256; ++i) ramp_v(i, 0) = static_cast<float>(255 - i) / 255.0f;
    ramp_vertical_.upload(ramp_v);
}

HeatmapRenderer::~HeatmapRenderer() {
    for (auto& [cmap, tex] : luts_) glDeleteTextures(1, &tex);
    if (vao_) glDeleteVertexArrays(1, &vao_);
}

void HeatmapRenderer::begin_frame() { items_.clear(); }

GLuint HeatmapRenderer::lut_for(Colormap cmap) {
    auto it = luts_.find(cmap);
    if (it != luts_.end()) return it->second;
    const GLuint tex = create_lut_texture(cmap);
    luts_[cmap] = tex;
    return tex;
}

void HeatmapRenderer::draw(ImDrawList* list, const FloatTexture& map, ImVec2 p0, ImVec2 p1,
                           const UvRect& uv, const ColorScale& scale, Colormap cmap) {
    if (map.empty() || p1.x <= p0.x || p1.y <= p0.y) return;
    items_.push_back(DrawItem{this, map.id(), map.version(), map.rows(), map.cols(), map.mipmapped(), lut_for(cmap), p0,
                             p1, uv, scale});
    // render() sets all the GL state it uses; the reset after it hands the backend's
    // own state back (program, VAO, blending) before ImGui's next triangles.
    list->AddCallback(&HeatmapRenderer::render_callback, &items_.back());
    list->AddCallback(ImDrawCallback_ResetRenderState, nullptr);
}

void HeatmapRenderer::draw_colorbar(ImDrawList* list, ImVec2 p0, ImVec2 p1, Colormap cmap,
                                    bool vertical) {
    draw(list, vertical ? ramp_vertical_ : ramp_, p0, p1, UvRect{}, ColorScale{}, cmap);
}

std::uint64_t HeatmapRenderer::frame_signature() const {
    FrameHasher h;
    for (const DrawItem& item : items_) {
        h.add(item.values), h.add(item.version), h.add(item.lut);
        h.add(item.p0.x), h.add(item.p0.y), h.add(item.p1.x), h.add(item.p1.y);
        h.add(item.uv.u0), h.add(item.uv.v0), h.add(item.uv.u1), h.add(item.uv.v1);
        h.add(item.scale.lo), h.add(item.scale.hi), h.add(item.scale.gamma), h.add(item.scale.log);
    }
    return h.value();
}

void HeatmapRenderer::render_callback(const ImDrawList*, const ImDrawCmd* cmd) {
    const auto* item = static_cast<const DrawItem*>(cmd->UserCallbackData);
    item->self->render(*item, cmd);
}

void HeatmapRenderer::render(const DrawItem& item, const ImDrawCmd* cmd) {
    const ImGuiIO& io = ImGui::GetIO();
    const ImVec2 fb_scale = io.DisplayFramebufferScale;
    const float fb_height = io.DisplaySize.y * fb_scale.y;
    // Scissor to the command's clip rectangle (framebuffer pixels, y up).
    const ImVec4 clip = cmd->ClipRect;
    const float cx0 = std::max(clip.x, item.p0.x), cy0 = std::max(clip.y, item.p0.y);
    const float cx1 = std::min(clip.z, item.p1.x), cy1 = std::min(clip.w, item.p1.y);
    if (cx1 <= cx0 || cy1 <= cy0) return;
    // GL scissor: framebuffer pixels, origin bottom-left.
    const GLint sx = static_cast<GLint>(cx0 * fb_scale.x), sy = static_cast<GLint>(fb_height - cy1 * fb_scale.y);
    const GLsizei sw = static_cast<GLsizei>((cx1 - cx0) * fb_scale.x), sh = static_cast<GLsizei>((cy1 - cy0) * fb_scale.y);
    glEnable(GL_SCISSOR_TEST);
    glScissor(sx, sy, sw, sh);
    glDisable(GL_BLEND);
    // The variant without the steps this scale skips anyway (the shader's own rule:
    // gamma that is not a positive finite number counts as 1).
    const float g = item.scale.gamma;
    const bool gamma_step = g > 0.0f && std::isfinite(g) && g != 1.0f;
    const Program& v = programs_[item.scale.log ? 1 : 0][gamma_step ? 1 : 0];
    glUseProgram(v.program.id());
    glBindVertexArray(vao_);
    glUniform4f(v.u_rect, item.p0.x, item.p0.y, item.p1.x, item.p1.y);
    glUniform2f(v.u_display, io.DisplaySize.x, io.DisplaySize.y);
    glUniform4f(v.u_uv, item.uv.u0, item.uv.v0, item.uv.u1, item.uv.v1);
    glUniform1f(v.u_lo, item.scale.lo);
    glUniform1f(v.u_hi, item.scale.hi);
    glUniform1f(v.u_gamma, item.scale.gamma);
    glUniform1i(v.u_log, item.scale.log ? 1 : 0);
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_2D, item.lut);
    glUniform1i(v.u_lut, 1);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, item.values);
    glUniform1i(v.u_values, 0);
    // Texels per pixel ρ = |Δu|·cols / width (same in v). Magnified (ρ < 1, λ = log2 ρ < 0)
    // GL samples with the mag filter (nearest) whatever the min filter, so a mipmapped
    // map shown magnified samples the same with min filter nearest; under llvmpipe that
    // skips the per-pixel level-of-detail work. ρ ≤ 0.9 keeps clear of λ = 0.
    const float rho_x = std::abs(item.uv.u1 - item.uv.u0) * float(item.cols) / ((item.p1.x - item.p0.x) * fb_scale.x);
    const float rho_y = std::abs(item.uv.v1 - item.uv.v0) * float(item.rows) / ((item.p1.y - item.p0.y) * fb_scale.y);
    const bool nearest_only = item.mipmapped && std::max(rho_x, rho_y) <= 0.9f;
    if (nearest_only) glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    if (nearest_only) glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST_MIPMAP_NEAREST);
    // The ResetRenderState callback that follows restores ImGui's program, VAO and blend.
    glEnable(GL_BLEND);
}

}  // namespace hs
