#pragma once
// One layer's linear weights as its file stores them, for a layer read for its products
// only (LayerSource::read_layer_for_products): the StoredMatrix of each (core/kernels/
// stored_matrix.h), whose rows the products read from the file a panel at a time. A reader
// declares each weight by the f32 matrix of EncoderLayerWeights it stands for, adds its
// rows (a fused [W_Q; W_K; W_V] from three tensors), then attach() points the layer at them.
#include <memory>
#include <vector>

#include "core/model/weights.h"

namespace hs {

// `layer`'s linear weights pointed at no stored matrix (its f32 matrices hold them).
void forget_stored_weights(EncoderLayerWeights& layer);

class StoredLayer {
public:
    StoredLayer() = default;
    StoredLayer(const StoredLayer&) = delete;  // a layer's pointers name this object's matrices
    StoredLayer& operator=(const StoredLayer&) = delete;
    // Forgets the previous layer's weights (the pages the products mapped of them let go:
    // max RSS holds one layer's), and points `layer`'s weights at none of them.
    void clear(EncoderLayerWeights& layer);
    // `of` (left empty) stands for a (rows, cols) weight whose rows are added next.
    void declare(const Matrix& of, int rows, int cols);
    // The declared shape of `of`, or nullptr when it was not declared.
    const StoredMatrix* declared(const Matrix& of) const;
    // Rows [rows.first_row, rows.first_row + rows.rows) of `of` (declared).
    void add_rows(const Matrix& of, const StoredRows& rows);
    // Each linear weight of `layer` that was declared gets its StoredMatrix (valid until
    // the next clear); throws hs::Error when a declared weight is missing rows or is not
    // one of the layer's linear weights.
    void attach(EncoderLayerWeights& layer);
    // The same for the weights outside the layers: the embedding and the LM head.
    void attach(ModelWeights& weights);

private:
    // Throws hs::Error unless every declared weight's rows were each added once.
    void require_rows_each_once();
    // Points each of `targets` at its declared StoredMatrix (or null); throws hs::Error
    // when a declared weight is not one of them.
    void point(std::initializer_list<std::pair<const Matrix*, const StoredMatrix**>> targets);
    struct Weight {
        const Matrix* of = nullptr;
        StoredMatrix matrix;
    };
    Weight* find(const Matrix& of);
    std::vector<Weight> weights_;
};

// The weights outside the layers, read into `weights` by read(reader, weights). Read layer
// by layer (`per_layer`), the embedding and the LM head stay in the file (checked finite,
// not converted): they are declared in the returned StoredLayer, attached to `weights`, which
// the model's layer source keeps (null otherwise). `reader` (GgufTensorReader,
// HfTensorReader) reads f32 again afterwards.
template <typename Reader, typename ReadOutside>
std::unique_ptr<StoredLayer> read_outside_layers(bool per_layer, Reader& reader, ModelWeights& weights,
                                                 const ReadOutside& read) {
    std::unique_ptr<StoredLayer> outside = per_layer ? std::make_unique<StoredLayer>() : nullptr;
    reader.leave_stored(outside.get(), true);
    read(reader, weights);
    if (outside) outside->attach(weights);
    reader.leave_stored(nullptr, true);
    return outside;
}

}  // namespace hs
