#include "core/model/layer_source.h"

namespace hs {

const EncoderLayerWeights& main_stack_layer(const ModelWeights& resident, const LayerSource* layers, int il,
                                            EncoderLayerWeights& slot) {
    if (!layers) return resident.layers.at(static_cast<std::size_t>(il));
    layers->read_layer(il, slot);
    return slot;
}

}  // namespace hs
