// Colormap lookup and the value -> [0, 1] -> LUT index rule shared with shaders/heatmap.frag.
#include "core/image/colormap.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "core/error.h"
#include "core/image/colormap_data.h"

namespace hs {

const ColormapLut& colormap_lut(Colormap cmap) {
    switch (cmap) {
        case Colormap::Viridis: return detail::kViridis;
        case Colormap::Magma: return detail::kMagma;
        case Colormap::Inferno: return detail::kInferno;
        case Colormap::Greys: return detail::kGreys;
        case Colormap::RedBlue: return detail::kRedBlue;
    }
    return detail::kViridis;  // unreachable for valid enum values
}

std::string to_string(Colormap cmap) {
    switch (cmap) {
        case Colormap::Viridis: return "viridis";
        case Colormap::Magma: return "magma";
        case Colormap::Inferno: return "inferno";
        case Colormap::Greys: return "greys";
        case Colormap::RedBlue: return "redblue";
    }
    return "viridis";
}

const std::vector<Colormap>& all_colormaps() {
    static const std::vector<Colormap> all = {Colormap::Viridis, Colormap::Magma,
                                              Colormap::Inferno, Colormap::Greys,
                                              Colormap::RedBlue};
    return all;
}

Colormap parse_colormap(const std::string& name) {
    std::string lower = name;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    std::string choices;
    for (Colormap c : all_colormaps()) {
        if (lower == to_string(c)) return c;
        choices += (choices.empty() ? "" : ", ") + to_string(c);
    }
    throw Error("unknown colormap \"" + name + "\"; choose one of: " + choices);
}

// t_lin = clamp((v − lo) / (hi − lo), 0, 1); lo == hi (or a NaN bound) gives the step
// t = (v > lo ? 1 : 0); a NaN value gives 0. Then optional log, then gamma (≤ 0 or
// non-finite gamma is treated as 1).
float ColorScale::normalized(float v) const {
    if (std::isnan(v)) return 0.0f;
    const float range = hi - lo;
    float t = 0.0f;
    if (!(range != 0.0f) || !std::isfinite(range)) {
        t = v > lo ? 1.0f : 0.0f;
    } else {
        t = std::clamp((v - lo) / range, 0.0f, 1.0f);
    }
    if (log) t = std::clamp(std::log(1.0f + 999.0f * t) / std::log(1000.0f), 0.0f, 1.0f);
    const float g = effective_gamma();
    if (g != 1.0f) t = std::pow(t, g);
    return t;
}

float ColorScale::effective_gamma() const { return gamma > 0.0f && std::isfinite(gamma) ? gamma : 1.0f; }

// index = min(255, floor(t · 255 + 0.5)), t from normalized().
int colormap_index_of(float t) { return std::min(255, static_cast<int>(std::floor(t * 255.0f + 0.5f))); }

int colormap_index(float v, const ColorScale& scale) { return colormap_index_of(scale.normalized(v)); }

Rgb8 colorize(float v, Colormap cmap, const ColorScale& scale) {
    if (std::isinf(v) && v < 0.0f) return kMinusInfinityRgb;
    return colormap_lut(cmap)[static_cast<std::size_t>(colormap_index(v, scale))];
}

}  // namespace hs
