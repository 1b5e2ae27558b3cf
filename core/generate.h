#pragma once
// Continuation of decoder language models: greedy (temperature 0, the default) or sampled
// with temperature, top-k and top-p from a seeded generator (the same tokens for a seed
// on every machine).
#include <cstdint>
#include <vector>

#include "core/model/model.h"
#include "core/rng.h"
#include "core/tokenize/tokenizer.h"

namespace hs {

struct Sampling {
    float temperature = 0.0f;  // 0: greedy (argmax); else p ∝ exp(logit / temperature)
    int top_k = 0;             // keep the k most likely tokens (0: all)
    float top_p = 1.0f;        // keep the fewest most likely tokens whose probability sums to ≥ top_p
    std::uint64_t seed = 0;
    bool greedy() const { return temperature <= 0.0f; }
};

// Throws hs::Error naming the first value out of range: temperature < 0 or not finite,
// top_k < 0, top_p outside (0, 1].
void check_sampling(const Sampling& s);

// The next token from next-token logits (V). Greedy: the first index of the largest logit.
// Sampled: softmax(logits / temperature) in double; the tokens outside top_k, then outside
// the top_p nucleus (ties by lower id), dropped and the rest renormalised; one uniform
// draw u ∈ [0, 1) from `rng` picks the token where the cumulative probability (in
// descending order) first exceeds u.
int pick_next_token(const Vector& logits, const Sampling& s, Rng& rng);

// Appends up to `n` tokens and returns only the new ids. An empty prompt starts from the
// tokenizer's BOS. Stops early at BOS / EOS (not returned; llama2.c treats BOS as the
// sequence delimiter) or when the model's max_len is reached. `rng` carries the draws
// from one call to the next (continue_text calls once per token).
// Throws hs::Error for a model without a language-model head or n < 0.
std::vector<int> generate(const Model& model, const Tokenizer& tokenizer, std::vector<int> prompt_ids, int n,
                          const Sampling& sampling, Rng& rng);
// Greedy.
std::vector<int> generate(const Model& model, const Tokenizer& tokenizer, std::vector<int> prompt_ids, int n);

}  // namespace hs
