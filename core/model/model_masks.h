#pragma once
// The attention masks a model's config gives each of its blocks (core/kernels/attention_mask.h
// says what a mask hides). Model::forward, the head metrics and the bench read these, so a
// mask option is decided in one place.
#include <vector>

#include "core/kernels/attention_mask.h"
#include "core/model/config.h"

namespace hs {

// The main stack's self-attention: causal per config unless it is the encoder of an
// encoder-decoder, the config's sliding window when causal, and the key padding.
AttentionMask main_self_mask(const ModelConfig& c, const std::vector<int>& key_padding);
// An encoder-decoder's decoder self-attention: causal per config, with its window.
AttentionMask decoder_self_mask(const ModelConfig& c);
// Cross-attention: every encoder position but the padded ones.
AttentionMask cross_mask(const std::vector<int>& key_padding);

}  // namespace hs
