#pragma once
// Matrix types shared by all of core.
// Convention (written once, used everywhere): row-vector convention, a sequence is
// a matrix X (T, D) with one token per row; attention maps are (T_query, T_key):
// rows = query tokens, columns = key tokens. Row-major storage to match PyTorch.
#include <Eigen/Dense>

// Every Eigen heap buffer starts on a cache line (EIGEN_MAX_ALIGN_BYTES=64, defined for
// headscope_core and all that links it in core/CMakeLists.txt). A file built without it
// would free those blocks as plain malloc blocks, and the kernels' aligned stores would fault.
static_assert(EIGEN_MAX_ALIGN_BYTES == 64, "build with EIGEN_MAX_ALIGN_BYTES=64 (link headscope_core)");

namespace hs {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vector = Eigen::Matrix<float, Eigen::Dynamic, 1>;       // column vector
using RowVector = Eigen::Matrix<float, 1, Eigen::Dynamic>;    // one token

}  // namespace hs
