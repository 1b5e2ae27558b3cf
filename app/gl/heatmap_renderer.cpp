#include "app/gl/heatmap_renderer.h"

#include <algorithm>
#include <cmath>

namespace hs {

HeatmapRenderer::HeatmapRenderer() : program_("heatmap.vert", "heatmap.frag") {
    glGenVertexArrays(1, &vao_);  // core profile needs a bound VAO; the quad uses gl_VertexID
    const GLuint p = program_.id();
    u_rect_ = glGetUniformLocation(p, "u_rect");
    u_display_ = glGetUniformLocation(p, "u_display");
    u_uv_ = glGetUniformLocation(p, "u_uv");
    u_values_ = glGetUniformLocation(p, "u_values");
    u_lut_ = glGetUniformLocation(p, "u_lut");
    u_lo_ = glGetUniformLocation(p, "u_lo");
    u_hi_ = glGetUniformLocation(p, "u_hi");
    u_gamma_ = glGetUniformLocation(p, "u_gamma");
    u_log_ = glGetUniformLocation(p, "u_log");
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
    items_.push_back(DrawItem{this, map.id(), map.version(), lut_for(cmap), p0, p1, uv, scale});
    list->AddCallback(&HeatmapRenderer::render_callback, &items_.back());
    list->AddCallback(ImDrawCallback_ResetRenderState, nullptr);
}

void HeatmapRenderer::draw_colorbar(ImDrawList* list, ImVec2 p0, ImVec2 p1, Colormap cmap,
                                    bool vertical) {
    draw(list, vertical ? ramp_vertical_ : ramp_, p0, p1, UvRect{}, ColorScale{}, cmap);
}

bool HeatmapRenderer::owns(const ImDrawCmd& cmd) { return cmd.UserCallback == &HeatmapRenderer::render_callback; }

ImVec4 HeatmapRenderer::item_rect(const ImDrawCmd& cmd) {
    const auto* item = static_cast<const DrawItem*>(cmd.UserCallbackData);
    return ImVec4(item->p0.x, item->p0.y, item->p1.x, item->p1.y);
}

void HeatmapRenderer::append_key(const ImDrawCmd& cmd, std::vector<unsigned char>& key) {
    const auto* item = static_cast<const DrawItem*>(cmd.UserCallbackData);
    auto put = [&key](const auto& v) { append_value(key, v); };
    put(item->values);
    put(item->version);
    put(item->lut);
    put(item->p0.x), put(item->p0.y), put(item->p1.x), put(item->p1.y);
    put(item->uv.u0), put(item->uv.v0), put(item->uv.u1), put(item->uv.v1);
    put(item->scale.lo), put(item->scale.hi), put(item->scale.gamma), put(item->scale.log);
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
    // GL scissor (origin bottom-left), then cut to the pixel limit (FrameCache damage).
    GLint sx = static_cast<GLint>(cx0 * fb_scale.x), sy = static_cast<GLint>(fb_height - cy1 * fb_scale.y);
    GLsizei sw = static_cast<GLsizei>((cx1 - cx0) * fb_scale.x), sh = static_cast<GLsizei>((cy1 - cy0) * fb_scale.y);
    if (limited_) {
        const int fb_h = static_cast<int>(std::lround(fb_height));
        const DamageRect cut = intersect(DamageRect{sx, fb_h - (sy + sh), sx + sw, fb_h - sy}, limit_);
        if (cut.empty()) return;
        sx = cut.x0;
        sy = fb_h - cut.y1;
        sw = cut.x1 - cut.x0;
        sh = cut.y1 - cut.y0;
    }
    glEnable(GL_SCISSOR_TEST);
    glScissor(sx, sy, sw, sh);
    glDisable(GL_BLEND);
    glUseProgram(program_.id());
    glBindVertexArray(vao_);
    glUniform4f(u_rect_, item.p0.x, item.p0.y, item.p1.x, item.p1.y);
    glUniform2f(u_display_, io.DisplaySize.x, io.DisplaySize.y);
    glUniform4f(u_uv_, item.uv.u0, item.uv.v0, item.uv.u1, item.uv.v1);
    glUniform1f(u_lo_, item.scale.lo);
    glUniform1f(u_hi_, item.scale.hi);
    glUniform1f(u_gamma_, item.scale.gamma);
    glUniform1i(u_log_, item.scale.log ? 1 : 0);
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_2D, item.lut);
    glUniform1i(u_lut_, 1);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, item.values);
    glUniform1i(u_values_, 0);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    // The ResetRenderState callback that follows restores ImGui's program, VAO and blend.
    glEnable(GL_BLEND);
}

}  // namespace hs
