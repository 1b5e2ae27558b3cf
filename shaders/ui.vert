#version 330 core
// ImGui vertex (app/gl/ui_renderer.*). Interface:
//   in vec2 a_pos        display pixels, y down;  in vec2 a_uv  font atlas coordinate
//   in vec4 a_color      RGBA8 normalised
//   uniform mat4 u_proj  orthographic: display rectangle -> normalised device coordinates
// gl_Position = u_proj · (x, y, 0, 1), written exactly as imgui_impl_opengl3 does so that
// both rasterise the same pixels. HS_TEXTURED 0 (solid runs) passes no uv; HS_FLAT 1
// (opaque runs, one colour per triangle) passes the colour flat, without interpolation.
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
layout(location = 0) in vec2 a_pos;
layout(location = 1) in vec2 a_uv;
layout(location = 2) in vec4 a_color;
uniform mat4 u_proj;
#if HS_TEXTURED
out vec2 v_uv;
#endif
HS_COLOR_QUALIFIER out vec4 v_color;

void main() {
#if HS_TEXTURED
    v_uv = a_uv;
#endif
    v_color = a_color;
    gl_Position = u_proj * vec4(a_pos.xy, 0, 1);
}
