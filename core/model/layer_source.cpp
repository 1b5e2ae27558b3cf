#include "core/model/layer_source.h"

namespace hs {

const EncoderLayerWeights& main_stack_layer(const ModelWeights& resident, const LayerSource* layers, int il,
                                            ProductsLayer& slot) {
    if (!layers) return resident.layers.at(static_cast<std::size_t>(il));
    return layers->read_layer_for_products(il, slot);
}

}  // namespace hs
