#include "core/generate.h"

#include "core/error.h"

namespace hs {

std::vector<int> generate(const Model& model, const Tokenizer& tokenizer,
                          std::vector<int> prompt_ids, int n) {
    if (n < 0) throw Error("cannot generate a negative number of tokens (" + std::to_string(n) + ")");
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
        const Vector logits = model.next_token_logits(in);  // (V)
        Eigen::Index next = 0;
        logits.maxCoeff(&next);  // greedy: first index of the largest logit
        const int id = static_cast<int>(next);
        if (id == tokenizer.bos_id() || id == tokenizer.eos_id()) break;
        ids.push_back(id);
        generated.push_back(id);
    }
    return generated;
}

}  // namespace hs
