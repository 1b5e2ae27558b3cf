#!/usr/bin/python3
"""Generate core/image/colormap_data.cpp: 256-entry RGB8 LUTs sampled from matplotlib.

Usage (Debian's python3-matplotlib lives under /usr/bin/python3):
    /usr/bin/python3 scripts/gen_colormaps.py            # writes core/image/colormap_data.cpp
    /usr/bin/python3 scripts/gen_colormaps.py OUT.cpp    # writes elsewhere

Each LUT entry i is matplotlib's colormap evaluated at the integer index i
(cmap(i) for i in 0..255, i.e. the colormap's own 256-entry table, no resampling),
converted to 8 bits as round(channel * 255).
"""
import pathlib
import sys

import matplotlib
import numpy as np
from matplotlib import colormaps

# C++ array name -> matplotlib colormap name, in the order of hs::Colormap.
TABLES = [
    ("kViridis", "viridis"),
    ("kMagma", "magma"),
    ("kInferno", "inferno"),
    ("kGreys", "Greys"),      # white (low) -> black (high)
    ("kRedBlue", "RdBu_r"),   # blue (low) -> white (middle) -> red (high)
]


def lut_rgb8(name):
    cmap = colormaps[name]
    if cmap.N != 256:
        raise SystemExit(f"colormap {name} has {cmap.N} entries, expected 256")
    rgba = cmap(np.arange(256))  # (256, 4) floats in [0, 1]
    return np.clip(np.round(rgba[:, :3] * 255.0), 0, 255).astype(int)


def emit_table(cpp_name, mpl_name):
    rows = lut_rgb8(mpl_name)
    lines = [f"// matplotlib \"{mpl_name}\"", f"const ColormapLut {cpp_name} = {{{{"]
    for start in range(0, 256, 4):
        lines.append(f"    {rgb_list(rows[start:start + 4])},")
    lines.append("}};")
    return "\n".join(lines)


def rgb_list(rows):
    return ", ".join(f"Rgb8{{{r}, {g}, {b}}}" for r, g, b in rows)


def main():
    root = pathlib.Path(__file__).resolve().parent.parent
    out = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else root / "core/image/colormap_data.cpp"
    parts = [
        "// GENERATED FILE - do not edit by hand.",
        f"// Produced by scripts/gen_colormaps.py from matplotlib {matplotlib.__version__}.",
        "// Regenerate: /usr/bin/python3 scripts/gen_colormaps.py",
        "// Entry i = matplotlib cmap(i) for i in 0..255, channels rounded to 8 bits.",
        '#include "core/image/colormap_data.h"',
        "",
        "namespace hs::detail {",
        "",
    ]
    for cpp_name, mpl_name in TABLES:
        parts.append(emit_table(cpp_name, mpl_name))
        parts.append("")
    parts.append("}  // namespace hs::detail")
    out.write_text("\n".join(parts) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
