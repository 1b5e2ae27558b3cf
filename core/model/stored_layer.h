#pragma once
// One layer's linear weights as its file stores them, for a layer read for its products
// only (LayerSource::read_layer_for_products): the stored bytes of each weight, and the
// StoredMatrix (core/kernels/stored_matrix.h) the products convert panel by panel. A
// reader declares each weight by the f32 matrix of EncoderLayerWeights it stands for, adds
// its rows (a fused [W_Q; W_K; W_V] from three tensors), then attach() points the layer at
// them. Reused layer after layer: the bytes' storage is kept.
#include <cstdint>
#include <vector>

#include "core/model/weights.h"

namespace hs {

class StoredLayer {
public:
    // Forgets the previous layer's weights (keeps the storage).
    void clear();
    // `of` (left empty) stands for a (rows, cols) weight whose rows are added next.
    void declare(const Matrix& of, int rows, int cols);
    // The declared shape of `of`, or nullptr when it was not declared.
    const StoredMatrix* declared(const Matrix& of) const;
    // Where to write rows [first_row, first_row + rows) of `of` (declared), each row_bytes
    // long in `type`: valid until the next add_rows.
    std::uint8_t* add_rows(const Matrix& of, int first_row, int rows, StoredType type, std::int64_t row_bytes);
    // Each linear weight of `layer` that was declared gets its StoredMatrix (valid until
    // the next clear); throws hs::Error when a declared weight is missing rows.
    void attach(EncoderLayerWeights& layer);

private:
    struct Weight {
        const Matrix* of = nullptr;
        StoredMatrix matrix;                // parts' bytes resolved by attach
        std::vector<std::int64_t> offsets;  // of each part in bytes_
    };
    Weight* find(const Matrix& of);
    std::vector<std::uint8_t> bytes_;  // [0, used_) this layer's
    std::size_t used_ = 0;
    std::vector<Weight> weights_;
};

}  // namespace hs
