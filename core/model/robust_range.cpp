#include "core/model/robust_range.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace hs {

float robust_high(const Matrix& m, float lo, float hi) {
    constexpr int kBins = 4096;
    // In double: a span of 1e-38 would make the float scale infinite (and the cast UB).
    const double span = static_cast<double>(hi) - static_cast<double>(lo);
    const double to_bin = span > 0.0 ? kBins / span : 0.0;
    if (!(span > 0.0) || !std::isfinite(span) || !std::isfinite(to_bin)) return hi;
    std::vector<long long> counts(kBins, 0);
    long long n = 0;
    for (Eigen::Index i = 0; i < m.size(); ++i) {
        const float v = m.data()[i];
        if (!std::isfinite(v)) continue;
        const double bin = std::clamp((static_cast<double>(v) - lo) * to_bin, 0.0, kBins - 1.0);
        ++counts[static_cast<std::size_t>(bin)];
        ++n;
    }
    if (n < kRobustMinValues) return hi;
    // rank = ⌈0.999·n⌉: the smallest bin whose cumulative count reaches it.
    const long long rank = (n * 999 + 999) / 1000;
    long long seen = 0;
    for (int b = 0; b < kBins; ++b) {
        seen += counts[static_cast<std::size_t>(b)];
        if (seen >= rank) return b == kBins - 1 ? hi : lo + (hi - lo) * static_cast<float>(b + 1) / kBins;
    }
    return hi;
}

void widen_single_value_range(float& lo, float& hi) {
    if (lo != hi) return;
    if (lo == 0.0f) {
        hi = 1.0f;
        return;
    }
    lo = std::min(lo, 0.0f);
    hi = std::max(hi, 0.0f);
}

namespace detail {

void finite_min_max(const Matrix& m, float& lo, float& hi) {
    if (m.size() == 0) return;
    // Vectorised reductions first; only a NaN or ±inf among the values takes the loop.
    const float min = m.minCoeff(), max = m.maxCoeff();
    if (std::isfinite(min) && std::isfinite(max)) {
        lo = std::min(lo, min);
        hi = std::max(hi, max);
        return;
    }
    for (Eigen::Index i = 0; i < m.size(); ++i) {
        const float v = m.data()[i];
        if (!std::isfinite(v)) continue;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
}

}  // namespace detail

}  // namespace hs
