#include "core/model/model_masks.h"

namespace hs {

AttentionMask main_self_mask(const ModelConfig& c, const std::vector<int>& key_padding, int layer) {
    AttentionMask m;
    m.causal = c.arch != Arch::EncoderDecoder && c.mask == MaskKind::Causal;
    if (m.causal) m.window = c.window_of(layer);
    m.key_padding = key_padding;
    return m;
}

AttentionMask decoder_self_mask(const ModelConfig& c, int layer) {
    AttentionMask m;
    m.causal = c.mask == MaskKind::Causal;
    if (m.causal) m.window = c.window_of(layer);
    return m;
}

AttentionMask cross_mask(const std::vector<int>& key_padding) {
    AttentionMask m;
    m.key_padding = key_padding;
    return m;
}

}  // namespace hs
