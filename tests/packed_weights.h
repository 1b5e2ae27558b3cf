#pragma once
// The packed-weight cache packs a registered weight on its second product
// (core/kernels/packed_cache.h). Tests that check the packed path make two products.
#include "core/kernels/packed_cache.h"
#include "core/kernels/parallel.h"

namespace hs::test {

// The panels of registered weight w, packed now if they were not yet, by the products that
// pack them (matmul_nt); null if w is not registered.
inline const gemm::PackedWeights* pack_registered(const Eigen::Ref<const Matrix>& w) {
    const Matrix x = Matrix::Zero(1, w.cols());
    Matrix y(1, w.rows());
    for (int product = 0; product < 2 && !packed_panels(w); ++product) matmul_nt(x, w, nullptr, y);
    return packed_panels(w);
}

}  // namespace hs::test
