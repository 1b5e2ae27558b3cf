#include "core/model/layer_source.h"

#include <algorithm>

#include "core/error.h"

namespace hs {

FileLayerSource::FileLayerSource(std::string where, int layers, ReadFileLayerFn read, WeightFootprint footprint,
                                 bool first_checked, std::unique_ptr<StoredLayer> outside)
    : where_(std::move(where)),
      layers_(layers),
      read_(std::move(read)),
      footprint_(footprint),
      checked_(std::make_unique<std::atomic<bool>[]>(static_cast<std::size_t>(std::max(layers, 0)))),
      outside_(std::move(outside)) {
    if (layers_ > 0) checked_[0] = first_checked;
}

void FileLayerSource::require_layer(int il) const {
    if (il < 0 || il >= layers_)
        throw Error(where_ + " has no layer " + std::to_string(il) + " (it has " + std::to_string(layers_) + ")");
}

void FileLayerSource::read_layer(int il, EncoderLayerWeights& layer) const {
    require_layer(il);
    forget_stored_weights(layer);  // the f32 matrices read are the weights
    read_(il, layer, nullptr, true);
}

const EncoderLayerWeights& FileLayerSource::read_layer_for_products(int il, ProductsLayer& slot) const {
    require_layer(il);
    slot.stored.clear(slot.layer);  // no pointer outlives the matrices it named, even if this read fails
    std::atomic<bool>& checked = checked_[static_cast<std::size_t>(il)];
    read_(il, slot.layer, &slot.stored, !checked.load());
    slot.stored.attach(slot.layer);
    checked.store(true);
    return slot.layer;
}

const EncoderLayerWeights& main_stack_layer(const ModelWeights& resident, const LayerSource* layers, int il,
                                            ProductsLayer& slot) {
    if (!layers) return resident.layers.at(static_cast<std::size_t>(il));
    return layers->read_layer_for_products(il, slot);
}

}  // namespace hs
