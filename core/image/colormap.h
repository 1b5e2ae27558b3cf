#pragma once
// Colormaps as 256-entry RGB lookup tables. The app's fragment shader samples the very
// same tables (uploaded as a 256×1 texture) with the same value→index rule as
// colormap_index(), so a PNG export matches the screen pixel for pixel.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/model/robust_range.h"

namespace hs {

enum class Colormap { Viridis, Magma, Inferno, Greys, RedBlue };

struct Rgb8 {
    std::uint8_t r = 0, g = 0, b = 0;
    bool operator==(const Rgb8&) const = default;
};

using ColormapLut = std::array<Rgb8, 256>;
const ColormapLut& colormap_lut(Colormap cmap);

std::string to_string(Colormap cmap);        // "viridis", "magma", "inferno", "greys", "redblue"
Colormap parse_colormap(const std::string& name);  // throws hs::Error listing the choices
const std::vector<Colormap>& all_colormaps();

// How values map into [0, 1] before the LUT (shader: shaders/heatmap.frag, same math):
//   t = clamp((v − lo) / (hi − lo), 0, 1)              linear
//   t = clamp(log(1 + 999·t_lin) / log(1000), 0, 1)    log (emphasises small weights)
//   t = pow(t, gamma)
//   index = min(255, floor(t · 255 + 0.5))
// Degenerate range (lo == hi, or non-finite hi − lo): t_lin = (v > lo ? 1 : 0). NaN v: t = 0.
// gamma ≤ 0 or non-finite is treated as 1.
struct ColorScale {
    float lo = 0.0f;
    float hi = 1.0f;
    float gamma = 1.0f;
    bool log = false;
    float normalized(float v) const;  // t in [0, 1]
    float effective_gamma() const;    // gamma, or 1 when it is ≤ 0 or not finite
};

// A masked score, −∞, is drawn as itself in every colormap: this grey, not the colour of
// the lowest value (it read as a strong negative score). The shader uses the same.
constexpr Rgb8 kMinusInfinityRgb{96, 96, 104};

int colormap_index(float v, const ColorScale& scale);
int colormap_index_of(float t);  // the LUT index of t in [0, 1]: min(255, floor(t · 255 + 0.5))
// The LUT colour of v, or kMinusInfinityRgb for v = −∞.
Rgb8 colorize(float v, Colormap cmap, const ColorScale& scale);

}  // namespace hs
