#include "core/kernels/attention_mask.h"

#include <algorithm>
#include <limits>

namespace hs {

bool AttentionMask::allowed(int i, int j) const {
    if (causal && j > i) return false;
    if (j < first(i)) return false;
    return std::find(key_padding.begin(), key_padding.end(), j) == key_padding.end();
}

int AttentionMask::seen(int i, int S) const {
    const int v = visible(i, S), f = std::min(first(i), v);
    int padded = 0;
    for (int p : key_padding)
        if (p >= f && p < v) ++padded;
    return v - f - padded;
}

bool AttentionMask::hides_any(int T, int S) const {
    if (causal && S > 1 && T > 0) return true;
    if (window > 0 && S > 0 && T > window) return true;  // query T − 1 misses key 0
    return std::any_of(key_padding.begin(), key_padding.end(), [&](int p) { return p >= 0 && p < S; });
}

void AttentionMask::apply(Eigen::Ref<Matrix> scores) const {
    constexpr float kNegInf = -std::numeric_limits<float>::infinity();
    // causal: −∞ strictly above the diagonal (key j > query i)
    if (causal) scores.triangularView<Eigen::StrictlyUpper>().setConstant(kNegInf);
    const auto S = scores.cols();
    // window: −∞ for key j ≤ i − window, the keys behind query i's window
    for (Eigen::Index i = 0; i < scores.rows(); ++i)
        scores.row(i).head(std::min<Eigen::Index>(first(int(i)), S)).setConstant(kNegInf);
    for (int j : key_padding)
        if (j >= 0 && j < S) scores.col(j).setConstant(kNegInf);
}

}  // namespace hs
