#pragma once
// The packed-weight cache: the panels (gemm::pack) of linear layers' weights, made once and
// found again by the weight itself. Weights stay plain PyTorch-layout matrices
// (core/weights.h); the packed layout lives here and nowhere else, so saving, editing and
// inspecting never see it.
//
// A PackedPanels object packs a set of weights and registers them while it lives; every
// matmul_nt (core/kernels/parallel.h) whose weight is one of them then runs the packed
// kernel. A Model owns one for its weights (shared with the models with_heads makes from
// it) and drops it before the weights may change.
#include <memory>
#include <vector>

#include "core/kernels/gemm.h"
#include "core/tensor.h"

namespace hs {

// A weight W (rows, cols) as the kernels see it: row-major and contiguous, a whole matrix
// or a block of whole rows of one (cross-attention's W_Q and [W_K; W_V] rows of W_in).
struct WeightRows {
    const float* data = nullptr;
    int rows = 0, cols = 0;
    static WeightRows of(const Matrix& m) {
        return {m.data(), static_cast<int>(m.rows()), static_cast<int>(m.cols())};
    }
    static WeightRows of(const Matrix& m, int first_row, int rows) {
        return {m.data() + static_cast<long>(first_row) * m.cols(), rows, static_cast<int>(m.cols())};
    }
};

class PackedPanels {
public:
    // Packs every non-empty weight (in parallel jobs) and registers it by address and
    // shape. `keep_alive` owns the weights and is held until this object dies, so a
    // registered address always holds the values it was packed from; the weights must not
    // change meanwhile (Model::mutable_weights drops its PackedPanels first).
    PackedPanels(std::shared_ptr<const void> keep_alive, const std::vector<WeightRows>& weights);
    ~PackedPanels();
    PackedPanels(const PackedPanels&) = delete;
    PackedPanels& operator=(const PackedPanels&) = delete;

    std::size_t bytes() const;  // held by the panels

private:
    struct Entry {
        WeightRows weight;  // the registered key
        std::unique_ptr<const gemm::PackedWeights> panels;
    };
    std::shared_ptr<const void> keep_alive_;
    std::vector<Entry> entries_;
};

// The panels of weight w (N, K) when a live PackedPanels holds exactly these rows (same
// address, same shape), else null: the caller multiplies w itself.
const gemm::PackedWeights* packed_panels(const Eigen::Ref<const Matrix>& w);

}  // namespace hs
