#pragma once
// Shrinking a float map by averaging: grid thumbnails (app/worker.cpp) and the mipmap
// levels of large map textures (app/gl/texture.cpp).
#include "core/tensor.h"

namespace hs {

// out: (out_rows, out_cols), 1 ≤ out_rows ≤ m.rows(), 1 ≤ out_cols ≤ m.cols();
//   out(i, j) = mean of m over rows [i·R/out_rows, (i+1)·R/out_rows) × columns
//   [j·C/out_cols, (j+1)·C/out_cols) (integer division), so every cell of m counts once.
Matrix box_mean(const Matrix& m, int out_rows, int out_cols);

// The next mipmap level: (max(1, R/2), max(1, C/2)) by box_mean (an odd last row or
// column joins its neighbours instead of being dropped).
Matrix mip_level_below(const Matrix& m);

}  // namespace hs
