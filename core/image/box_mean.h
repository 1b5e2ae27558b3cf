#pragma once
// Shrinking a float map by averaging: grid thumbnails (app/worker.cpp) and the mipmap
// levels of large map textures (app/mip_worker.h, uploaded by app/gl/texture.cpp).
#include <vector>

#include "core/tensor.h"

namespace hs {

// out: (out_rows, out_cols), 1 ≤ out_rows ≤ m.rows(), 1 ≤ out_cols ≤ m.cols();
//   out(i, j) = mean of m over rows [i·R/out_rows, (i+1)·R/out_rows) × columns
//   [j·C/out_cols, (j+1)·C/out_cols) (integer division), so every cell of m counts once;
//   a block holding −∞ (masked scores) is the mean of its finite cells (−∞ when it has none),
//   so a zoomed-out causal map keeps the scores along its diagonal.
Matrix box_mean(const Matrix& m, int out_rows, int out_cols);

// The next mipmap level: (max(1, R/2), max(1, C/2)) by box_mean (an odd last row or
// column joins its neighbours instead of being dropped).
Matrix mip_level_below(const Matrix& m);

// Every mipmap level below m, down to 1×1: levels[0] = mip_level_below(m),
// levels[k] = mip_level_below(levels[k-1]). Empty for a 1×1 map.
std::vector<Matrix> mip_chain(const Matrix& m);

// The level a GPU samples with nearest-level mipmapping (GL_*_MIPMAP_NEAREST) when a map
// with `levels` levels below level 0 is drawn ρ = `texels_per_pixel` texels to a pixel:
// 0 for ρ ≤ √2, else ceil(log2 ρ + ½) − 1 (λ = log2 ρ; OpenGL 4.6 §8.14.3), at most
// `levels`. The window colours a signed map on that level's range.
int sampled_mip_level(float texels_per_pixel, int levels);

}  // namespace hs
