#pragma once
// Which keys each query of an attention block may see: the one definition the scores'
// softmax (kernels::attend), the Pipeline's "+ mask" step, the naive reference and the head
// metrics all read. Query i sees key j unless the mask is causal and j > i (the future),
// j lies `window` or more keys behind i (sliding-window attention: j ≤ i − window), or j is
// a padded key. Scores of unseen keys are −∞ before the softmax, so their
// weights are exactly 0; a row that sees no key at all gets zeros.
#include <vector>

#include "core/tensor.h"

namespace hs {

struct AttentionMask {
    bool causal = false;           // key j > query i is hidden
    int window = 0;                // > 0: key j ≤ i − window is hidden (Mistral's sliding window)
    std::vector<int> key_padding;  // key positions hidden from every query

    // True if query i may attend to key j.
    bool allowed(int i, int j) const;
    // The keys 0 … visible(i, S) − 1 are not in query i's future (S keys in all); the
    // padded keys among them are still hidden.
    int visible(int i, int S) const { return causal ? (i + 1 < S ? i + 1 : S) : S; }
    // The keys before first(i) are behind query i's window (0 without a window).
    int first(int i) const { return window > 0 && i - window + 1 > 0 ? i - window + 1 : 0; }
    // How many keys query i sees: first(i) … visible(i, S) − 1 minus the padded keys there.
    int seen(int i, int S) const;
    // Whether the mask hides any key of a (T, S) block.
    bool hides_any(int T, int S) const;
    // scores: (T, S); sets −∞ wherever query i may not see key j.
    void apply(Eigen::Ref<Matrix> scores) const;
};

}  // namespace hs
