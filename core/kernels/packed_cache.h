#pragma once
// The packed-weight cache: the panels (gemm::pack_panel) of linear layers' weights, made
// once and found again by the weight itself. Weights stay plain PyTorch-layout matrices
// (core/weights.h); the packed layout lives here and nowhere else, so saving, editing and
// inspecting never see it.
//
// A PackedPanels object registers a set of weights while it lives; every matmul_nt
// (core/kernels/parallel.h) whose weight is one of them then runs the packed kernel. A
// Model owns one for its weights (shared with the models with_heads makes from it) and
// drops it before the weights may change.
//
// Panels are made lazily: a weight's first product reads it as it is and keeps nothing
// (gemm::nn_packing: the transposed product for 64, 128, 192 or 256 rows of input, else
// panels packed into a thread buffer), so a model that runs once (a live edit of d_model makes a new
// model for one forward) never lays its weights out; its second product (the next text,
// a heads edit sharing these weights) packs each panel into the cache's storage as it
// goes, and every later product reads the kept panels.
#include <memory>
#include <mutex>
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
    // Registers every non-empty weight by address and shape; packs nothing yet.
    // `keep_alive` owns the weights and is held until this object dies (null: the caller
    // keeps them alive), so a registered address always holds the values it was registered
    // with; the weights must not change meanwhile (Model::mutable_weights drops its
    // PackedPanels first).
    PackedPanels(std::shared_ptr<const void> keep_alive, const std::vector<WeightRows>& weights);
    ~PackedPanels();
    PackedPanels(const PackedPanels&) = delete;
    PackedPanels& operator=(const PackedPanels&) = delete;

    std::size_t bytes() const;  // held by the panels packed so far

    struct Entry;  // one registered weight (packed_cache.cpp)

private:
    std::shared_ptr<const void> keep_alive_;
    std::vector<std::unique_ptr<Entry>> entries_;
};

// The panels of weight w (N, K) when a live PackedPanels holds exactly these rows (same
// address, same shape) and has packed them, else null. Looks only: packs nothing.
const gemm::PackedWeights* packed_panels(const Eigen::Ref<const Matrix>& w);

// How one product reads weight w (N, K); panels_for_product counts the product:
//   panels():   the kept panels, to read (packed by an earlier product)
//   filling():  this product is the weight's second: it packs each panel into this
//               storage just before using it (gemm::nn_packing's `keep`) and, once the
//               product is complete, calls publish() to keep them. The weight's lock is
//               held until this object dies, so concurrent products pack on the fly.
//   registered() with neither: the weight's first product (or another thread is
//               filling): gemm::nn_packing without `keep`, which keeps nothing.
//   not registered: the caller multiplies w itself.
class WeightPanels {
public:
    WeightPanels() = default;
    WeightPanels(WeightPanels&& other) noexcept;  // `other` keeps nothing (no publish, no lock)
    WeightPanels& operator=(WeightPanels&&) = delete;
    ~WeightPanels();
    const gemm::PackedWeights* panels() const { return panels_; }
    gemm::PackedWeights* filling() const { return filling_; }
    bool registered() const { return entry_ != nullptr; }
    void publish();  // every panel of filling() is written

private:
    friend WeightPanels panels_for_product(const Eigen::Ref<const Matrix>& w);
    PackedPanels::Entry* entry_ = nullptr;
    const gemm::PackedWeights* panels_ = nullptr;
    gemm::PackedWeights* filling_ = nullptr;
    std::unique_lock<std::mutex> fill_lock_;
};
WeightPanels panels_for_product(const Eigen::Ref<const Matrix>& w);

}  // namespace hs
