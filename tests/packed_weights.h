#pragma once
// The packed-weight cache packs a registered weight on its second product
// (core/kernels/packed_cache.h). Tests that check the packed path ask for the panels as
// two products would.
#include "core/kernels/packed_cache.h"
#include "core/model/model.h"

namespace hs::test {

// The panels of registered weight w, packed now if they were not yet (null if w is not registered).
inline const gemm::PackedWeights* pack_registered(const Eigen::Ref<const Matrix>& w) {
    for (int product = 0; product < 2; ++product)
        if (const gemm::PackedWeights* p = panels_for_product(w).panels) return p;
    return nullptr;
}

// Every linear weight of the model packed, as after its second forward.
inline void pack_model(const Model& m) {
    for (const WeightRows& w : linear_weights(m.weights()))
        (void)pack_registered(Eigen::Map<const Matrix>(w.data, w.rows, w.cols));
}

}  // namespace hs::test
