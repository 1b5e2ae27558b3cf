#version 330 core
// ImGui fragment (app/gl/ui_renderer.*):
//   HS_TEXTURED 1: colour = v_color · texture(u_texture, v_uv)   (imgui_impl_opengl3's rule)
//   HS_TEXTURED 0: colour = v_color, for triangles whose every vertex samples the atlas's
//                  white texel (exactly 1.0 in every channel), so the product is v_color.
// HS_FLAT 1 (with HS_TEXTURED 0): v_color is flat, for triangles of one colour.
// Under llvmpipe the texture fetch is a large share of each pixel's cost.
#ifndef HS_TEXTURED
#define HS_TEXTURED 1
#endif
#ifndef HS_FLAT
#define HS_FLAT 0
#endif
#if HS_FLAT
#define HS_COLOR_QUALIFIER flat
#else
#define HS_COLOR_QUALIFIER
#endif
#if HS_TEXTURED
uniform sampler2D u_texture;
in vec2 v_uv;
#endif
HS_COLOR_QUALIFIER in vec4 v_color;
layout(location = 0) out vec4 out_color;

void main() {
#if HS_TEXTURED
    out_color = v_color * texture(u_texture, v_uv.st);
#else
    out_color = v_color;
#endif
}
