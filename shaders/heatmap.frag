#version 330 core
// Attention values -> colour, the same rule as hs::ColorScale / colormap_index
// (core/image/colormap.h), so the screen matches the PNG exporter:
//   t = clamp((v - lo) / (hi - lo), 0, 1)             linear (degenerate range: v > lo ? 1 : 0)
//   t = clamp(log(1 + 999 t) / log(1000), 0, 1)       when u_log
//   t = pow(t, gamma)
//   index = min(255, floor(t * 255 + 0.5)); colour = LUT[index]
//   v = −∞ (a masked score): the grey hs::kMinusInfinityRgb (96, 96, 104)
// Interface:
//   uniform sampler2D u_values  R32F map, (T, S) texels: rows = queries, columns = keys
//   uniform sampler2D u_lut     256x1 RGBA8 colormap table from hs::colormap_lut
//   uniform float u_lo, u_hi, u_gamma; uniform int u_log
//   in vec2 v_uv                texture coordinate
// Variants (HeatmapRenderer picks one per draw): HS_LOG 0 drops the log step (u_log off),
// HS_GAMMA 0 drops the gamma step (effective gamma 1). llvmpipe runs both sides of a
// branch under a mask, so an unused log/pow would otherwise cost every pixel.
#ifndef HS_LOG
#define HS_LOG 1
#endif
#ifndef HS_GAMMA
#define HS_GAMMA 1
#endif
uniform sampler2D u_values;
uniform sampler2D u_lut;
uniform float u_lo;
uniform float u_hi;
uniform float u_gamma;
uniform int u_log;
in vec2 v_uv;
out vec4 frag_color;

void main() {
    float v = texture(u_values, v_uv).r;
    if (isinf(v) && v < 0.0) {  // a masked score: hs::kMinusInfinityRgb, whatever the colormap
        frag_color = vec4(96.0 / 255.0, 96.0 / 255.0, 104.0 / 255.0, 1.0);
        return;
    }
    float t = 0.0;
    if (!isnan(v)) {
        float range = u_hi - u_lo;
        if (range == 0.0 || isinf(range) || isnan(range)) {
            t = v > u_lo ? 1.0 : 0.0;
        } else {
            t = clamp((v - u_lo) / range, 0.0, 1.0);
        }
#if HS_LOG
        if (u_log != 0) t = clamp(log(1.0 + 999.0 * t) / log(1000.0), 0.0, 1.0);
#endif
#if HS_GAMMA
        float g = (u_gamma > 0.0 && !isinf(u_gamma) && !isnan(u_gamma)) ? u_gamma : 1.0;
        if (g != 1.0) t = pow(t, g);
#endif
    }
    int index = min(255, int(floor(t * 255.0 + 0.5)));
    frag_color = vec4(texelFetch(u_lut, ivec2(index, 0), 0).rgb, 1.0);
}
