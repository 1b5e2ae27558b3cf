#pragma once
// The attention masks a model's config gives each of its blocks (core/kernels/attention_mask.h
// says what a mask hides). Model::forward, the head metrics and the bench read these, so a
// mask option is decided in one place.
#include <vector>

#include "core/kernels/attention_mask.h"
#include "core/model/config.h"

namespace hs {

// The main stack's self-attention in `layer`: causal per config unless it is the encoder of
// an encoder-decoder, the layer's sliding window when causal (ModelConfig::window_of), and
// the key padding.
AttentionMask main_self_mask(const ModelConfig& c, const std::vector<int>& key_padding, int layer);
// An encoder-decoder's decoder self-attention in `layer`: causal per config, with the
// layer's window.
AttentionMask decoder_self_mask(const ModelConfig& c, int layer);
// Cross-attention: every encoder position but the padded ones.
AttentionMask cross_mask(const std::vector<int>& key_padding);

}  // namespace hs
