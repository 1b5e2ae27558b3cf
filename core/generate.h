#pragma once
// Greedy continuation of decoder language models (temperature 0, no sampling).
#include <vector>

#include "core/model/model.h"
#include "core/tokenize/tokenizer.h"

namespace hs {

// Appends argmax_i logits_i up to `n` times and returns only the new ids. An empty
// prompt starts from the tokenizer's BOS. Stops early at BOS / EOS (not returned; llama2.c
// treats BOS as the sequence delimiter) or when the model's max_len is reached.
// Throws hs::Error for a model without a language-model head or n < 0.
std::vector<int> generate(const Model& model, const Tokenizer& tokenizer,
                          std::vector<int> prompt_ids, int n);

}  // namespace hs
