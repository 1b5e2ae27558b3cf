#pragma once
// A model's architecture as `headscope inspect` prints it, one "key:  value" line each.
#include <string>

#include "core/model/config.h"

namespace hs {

// Lines arch, d_model, heads, layers, d_ff, vocab (with the tokenizer's size when
// tokenizer_vocab ≥ 0), max_len, norm, positions, mlp and lm head, each ending in '\n'.
std::string describe_architecture(const ModelConfig& c, int tokenizer_vocab = -1);

}  // namespace hs
