#pragma once
// The raw 256-entry LUTs behind colormap_lut(); generated into colormap_data.cpp by
// scripts/gen_colormaps.py. Internal to core/image: use colormap_lut() instead.
#include "core/image/colormap.h"

namespace hs::detail {

extern const ColormapLut kViridis;
extern const ColormapLut kMagma;
extern const ColormapLut kInferno;
extern const ColormapLut kGreys;
extern const ColormapLut kRedBlue;

}  // namespace hs::detail
