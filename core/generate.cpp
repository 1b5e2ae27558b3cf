#include "core/generate.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.h"

namespace hs {

void check_sampling(const Sampling& s) {
    if (!(s.temperature >= 0.0f) || !std::isfinite(s.temperature))
        throw Error("temperature " + std::to_string(s.temperature) + " must be 0 (greedy) or positive");
    if (s.top_k < 0) throw Error("top-k " + std::to_string(s.top_k) + " must be 0 (all tokens) or positive");
    if (!(s.top_p > 0.0f && s.top_p <= 1.0f))
        throw Error("top-p " + std::to_string(s.top_p) + " must be in (0, 1]");
}

int pick_next_token(const Vector& logits, const Sampling& s, Rng& rng) {
    Eigen::Index best = 0;
    logits.maxCoeff(&best);
    if (s.greedy()) return static_cast<int>(best);
    // p_i = exp((l_i − l_max) / T) / Σ, in double; ids in descending probability.
    const std::size_t V = static_cast<std::size_t>(logits.size());
    std::vector<double> p(V);
    const double top = logits[best];
    for (std::size_t i = 0; i < V; ++i) p[i] = std::exp((logits[static_cast<Eigen::Index>(i)] - top) / s.temperature);
    std::vector<int> order(V);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return p[static_cast<std::size_t>(a)] > p[static_cast<std::size_t>(b)]; });
    std::size_t keep = s.top_k > 0 ? std::min<std::size_t>(V, static_cast<std::size_t>(s.top_k)) : V;
    double total = 0.0;
    for (std::size_t i = 0; i < keep; ++i) total += p[static_cast<std::size_t>(order[i])];
    if (s.top_p < 1.0f) {  // the nucleus: the fewest tokens whose share of `total` reaches top_p
        double sum = 0.0;
        for (std::size_t i = 0; i < keep; ++i) {
            sum += p[static_cast<std::size_t>(order[i])];
            if (sum >= s.top_p * total) {
                keep = i + 1;
                total = sum;
                break;
            }
        }
    }
    // 53 random bits: u uniform in [0, 1), scaled to the kept mass.
    const double u = static_cast<double>(rng.next_u64() >> 11) * 0x1.0p-53 * total;
    double sum = 0.0;
    for (std::size_t i = 0; i < keep; ++i) {
        sum += p[static_cast<std::size_t>(order[i])];
        if (u < sum) return order[i];
    }
    return order[keep - 1];  // u within rounding of the total
}

std::vector<int> generate(const Model& model, const Tokenizer& tokenizer, std::vector<int> prompt_ids, int n,
                          const Sampling& sampling, Rng& rng) {
    if (n < 0) throw Error("cannot generate a negative number of tokens (" + std::to_string(n) + ")");
    check_sampling(sampling);
    if (prompt_ids.empty()) {
        if (tokenizer.bos_id() < 0)
            throw Error("the prompt is empty and this tokenizer has no BOS token to start from");
        prompt_ids.push_back(tokenizer.bos_id());
    }
    std::vector<int> ids = std::move(prompt_ids), generated;
    // Without a KV cache each step reruns the whole sequence: O(n·T²) attention, fine for
    // the few tokens a continuation preview needs.
    while (static_cast<int>(generated.size()) < n && static_cast<int>(ids.size()) < model.config().max_len) {
        ForwardInput in;
        in.ids = ids;
        const int id = pick_next_token(model.next_token_logits(in), sampling, rng);  // logits (V)
        if (id == tokenizer.bos_id() || id == tokenizer.eos_id()) break;
        ids.push_back(id);
        generated.push_back(id);
    }
    return generated;
}

std::vector<int> generate(const Model& model, const Tokenizer& tokenizer, std::vector<int> prompt_ids, int n) {
    Rng unused(0);
    return generate(model, tokenizer, std::move(prompt_ids), n, Sampling{}, unused);
}

}  // namespace hs
