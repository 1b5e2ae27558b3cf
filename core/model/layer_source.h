#pragma once
// Where a model too large to hold as f32 keeps its layers: in its file, as stored (bf16,
// Q8_0, Q4_K, …). The forward asks for each layer just before it runs it and drops it
// after, so at most one layer is f32 at a time, and none when the reader leaves the linear
// weights for the products to read (core/io/memory_budget.h decides when a model is read
// this way). A reader of a file format makes a FileLayerSource (GGUF: formats/
// gguf_layer_source.h; Hugging Face safetensors: load_hf_model in formats/hf_loader.cpp).
#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "core/model/stored_layer.h"
#include "core/model/weight_footprint.h"
#include "core/model/weights.h"

namespace hs {

// Where a layer read for the forward's products lives: its vectors and any f32 matrices in
// `layer`, its linear weights left as stored in `stored`.
struct ProductsLayer {
    EncoderLayerWeights layer;
    StoredLayer stored;
};

class LayerSource {
public:
    virtual ~LayerSource() = default;
    // Layer il (0 ≤ il < layers) of the main stack, read from the file and converted to
    // f32 into `layer`: the weights a resident model would hold in ModelWeights::layers[il].
    // A GGUF reader overwrites matrices already of the right shape (the previous layer's)
    // in place; a safetensors one reads each into a new matrix. Throws hs::Error naming the file and
    // tensor when the file no longer holds what it held at open (it was truncated or
    // rewritten) or a weight is not finite. Safe to call from several threads (each with
    // its own `layer`).
    virtual void read_layer(int il, EncoderLayerWeights& layer) const = 0;
    // Layer il for the forward's products only (no Pipeline steps read its weights): as
    // read_layer, but a reader may leave the linear weights as stored in slot.stored,
    // converted by the products a panel at a time (gemm::nn_stored), their f32 matrices
    // then empty.
    virtual const EncoderLayerWeights& read_layer_for_products(int il, ProductsLayer& slot) const = 0;
    virtual int layers() const = 0;
    // The memory plan's sizes: the stack's parameters together, the largest layer's.
    virtual const WeightFootprint& footprint() const = 0;
};

// Reads layer il of a file into `layer`: as f32 when `stored` is null; else its linear
// weights left in the file, declared in `stored` (StoredLayer), and checked finite only
// when `check_stored`. Its vectors are read as f32 and checked either way.
using ReadFileLayerFn = std::function<void(int il, EncoderLayerWeights& layer, StoredLayer* stored, bool check_stored)>;

// The LayerSource of a model file whose reader reads one layer (`read`, which holds the
// open file). Each layer's stored weights are checked finite the first time it is read for
// the products; read_layer checks every time.
class FileLayerSource final : public LayerSource {
public:
    // `where`: the file, for messages ("GGUF file 'x.gguf'"); `first_checked`: layer 0 was
    // read and checked when the model was opened; `outside`: the weights outside the layers
    // left in the file (the embedding, the head), which the model's ModelWeights point at.
    FileLayerSource(std::string where, int layers, ReadFileLayerFn read, WeightFootprint footprint,
                    bool first_checked, std::unique_ptr<StoredLayer> outside = nullptr);
    void read_layer(int il, EncoderLayerWeights& layer) const override;
    const EncoderLayerWeights& read_layer_for_products(int il, ProductsLayer& slot) const override;
    int layers() const override { return layers_; }
    const WeightFootprint& footprint() const override { return footprint_; }

private:
    void require_layer(int il) const;
    std::string where_;
    int layers_;
    ReadFileLayerFn read_;
    WeightFootprint footprint_;
    std::unique_ptr<std::atomic<bool>[]> checked_;  // layers whose stored weights were checked
    std::unique_ptr<StoredLayer> outside_;
};

// Main-stack layer il for the forward's products: resident.layers[il] when `layers` is
// null, else read from `layers` into `slot` (over the layer it held, so one layer is read
// at a time).
const EncoderLayerWeights& main_stack_layer(const ModelWeights& resident, const LayerSource* layers, int il,
                                            ProductsLayer& slot);

}  // namespace hs
