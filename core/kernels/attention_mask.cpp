#include "core/kernels/attention_mask.h"

#include <algorithm>
#include <limits>

namespace hs {

bool AttentionMask::allowed(int i, int j) const {
    if (causal && j > i) return false;
    return std::find(key_padding.begin(), key_padding.end(), j) == key_padding.end();
}

int AttentionMask::seen(int i, int S) const {
    const int v = visible(i, S);
    int padded = 0;
    for (int p : key_padding)
        if (p >= 0 && p < v) ++padded;
    return v - padded;
}

bool AttentionMask::hides_any(int T, int S) const {
    if (causal && S > 1 && T > 0) return true;
    return std::any_of(key_padding.begin(), key_padding.end(), [&](int p) { return p >= 0 && p < S; });
}

void AttentionMask::apply(Eigen::Ref<Matrix> scores) const {
    constexpr float kNegInf = -std::numeric_limits<float>::infinity();
    // causal: −∞ strictly above the diagonal (key j > query i)
    if (causal) scores.triangularView<Eigen::StrictlyUpper>().setConstant(kNegInf);
    const auto S = scores.cols();
    for (int j : key_padding)
        if (j >= 0 && j < S) scores.col(j).setConstant(kNegInf);
}

}  // namespace hs
