#version 330 core
// Heatmap quad. Interface:
//   uniform vec4 u_rect     target rectangle in window pixels (x0, y0, x1, y1), y down
//   uniform vec2 u_display  window size in pixels (ImGui display size)
//   uniform vec4 u_uv       visible part of the map in texture coordinates (u0, v0, u1, v1)
//   out vec2 v_uv           texture coordinate of this fragment
// Four vertices from gl_VertexID (triangle strip), no vertex buffer.
uniform vec4 u_rect;
uniform vec2 u_display;
uniform vec4 u_uv;
out vec2 v_uv;

void main() {
    vec2 corner = vec2(float(gl_VertexID & 1), float((gl_VertexID >> 1) & 1));
    vec2 pixel = mix(u_rect.xy, u_rect.zw, corner);
    v_uv = mix(u_uv.xy, u_uv.zw, corner);
    // window pixels (y down) -> normalized device coordinates (y up)
    gl_Position = vec4(pixel.x / u_display.x * 2.0 - 1.0, 1.0 - pixel.y / u_display.y * 2.0, 0.0, 1.0);
}
