#pragma once
// Where a model too large to hold as f32 keeps its layers: in its file, as stored (bf16,
// Q8_0, Q4_K, …). The forward asks for each layer just before it runs it and drops it
// after, so only one layer is f32 at a time (core/io/memory_budget.h decides when a model
// is read this way). A reader of a file format implements it (GGUF: formats/gguf_model.cpp).
#include <memory>

#include "core/kernels/packed_cache.h"
#include "core/model/weights.h"

namespace hs {

class LayerSource {
public:
    virtual ~LayerSource() = default;
    // Layer il (0 ≤ il < layers) of the main stack, read from the file and converted to
    // f32 into `layer`: the weights a resident model would hold in ModelWeights::layers[il].
    // Matrices already of the right shape (the previous layer's) are overwritten in place,
    // so reading layer after layer allocates nothing. Throws hs::Error naming the file and
    // tensor when the file no longer holds what it held at open (it was truncated or
    // rewritten) or a weight is not finite. Safe to call from several threads.
    virtual void read_layer(int il, EncoderLayerWeights& layer) const = 0;
    virtual int layers() const = 0;
    virtual long long layer_parameters() const = 0;          // of all layers together
    virtual long long largest_layer_parameters() const = 0;  // of the largest one
};

// One main-stack layer for one use. Read from the file into a slot, its linear weights are
// registered with the packed-weight cache (core/kernels/packed_cache.h) while this object
// lives, so each product runs the packed kernel's first-product path (the weight read once
// as it lies) instead of the generic product, which transposes the weight first. The slot
// must not be read again while this object lives.
class StackLayer {
public:
    explicit StackLayer(const EncoderLayerWeights& resident) : layer_(&resident) {}
    StackLayer(const EncoderLayerWeights& read, std::unique_ptr<const PackedPanels> panels)
        : layer_(&read), panels_(std::move(panels)) {}
    const EncoderLayerWeights& operator*() const { return *layer_; }

private:
    const EncoderLayerWeights* layer_;
    std::unique_ptr<const PackedPanels> panels_;  // registration of a read layer's weights
};

// Main-stack layer il: resident.layers[il] when `layers` is null, else read from `layers`
// into `slot` (over the layer it held, so one layer is f32 at a time).
StackLayer main_stack_layer(const ModelWeights& resident, const LayerSource* layers, int il, EncoderLayerWeights& slot);

}  // namespace hs
