#pragma once
// A map's automatic colour range — its finite min and max, the robust top, a single value
// widened — shared by the trace's map ranges (the app) and the exported figures
// (core/image/).
#include "core/tensor.h"

namespace hs {

// The top of an automatic colour range: the value that 99.9 % of m's finite values do
// not exceed, read from a 4096-bin histogram over [lo, hi] (the upper edge of the bin
// holding that rank; lo, hi = m's finite min and max). A few outliers — the 1.0 of a
// token attending only to itself in a 2000-token map — then no longer darken every
// other cell. Maps of fewer than kRobustMinValues finite values keep their max (hi).
constexpr long long kRobustMinValues = 1000;
float robust_high(const Matrix& m, float lo, float hi);

// An automatic range of a single value c (a one-token map's weight 1, a map of equal
// scores) has no colours to spread: it becomes [min(c, 0), max(c, 0)], or [0, 1] for
// c = 0, so that c draws at an end of the colour bar and the bar's two ends differ. A
// range of two or more values is left as it is.
void widen_single_value_range(float& lo, float& hi);

namespace detail {
// lo = min(lo, the finite minimum of m), hi = max(hi, its finite maximum).
void finite_min_max(const Matrix& m, float& lo, float& hi);
}  // namespace detail

}  // namespace hs
