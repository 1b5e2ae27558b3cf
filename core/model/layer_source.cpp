#include "core/model/layer_source.h"

#include "core/model/model.h"

namespace hs {

StackLayer main_stack_layer(const ModelWeights& resident, const LayerSource* layers, int il, EncoderLayerWeights& slot) {
    if (!layers) return StackLayer(resident.layers.at(static_cast<std::size_t>(il)));
    layers->read_layer(il, slot);
    std::vector<WeightRows> weights;
    append_linear_weights(slot, weights);
    return StackLayer(slot, std::make_unique<const PackedPanels>(nullptr, weights));
}

}  // namespace hs
