// The counter-based bulk fills (core/rng.h has their contracts), compiled once per SIMD
// level by Highway (see gemm_kernels.cpp): inside each level's namespace the plain loops
// below are vectorised by the compiler with that level's instructions.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "core/kernels/counter_fill.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include "core/kernels/splitmix.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace hs::kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// SplitMix64's state before its output number `index` (from 1) of the stream seeded with
// `key` is mixed: key + index·γ. The loops below step it by γ per element (an induction
// the compiler vectorises as one add) instead of multiplying: at avx2 a 64-bit multiply is
// three 32-bit ones, and the index multiply was a third of them.
std::uint64_t splitmix_state(std::uint64_t key, std::uint64_t index) { return key + index * kSplitMixGamma; }

// Bits 40…63 of splitmix_mix(z), all a uniform float needs: the mixer's last step
// z ^ (z >> 31) leaves bits 33…63 as they are, so it is skipped.
std::uint32_t splitmix_top24(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return static_cast<std::uint32_t>(z >> 40);
}

// Acklam's approximation of Φ⁻¹: a rational function of r = (p − ½)² in the centre,
// of q = √(−2 ln p) in the lower tail (and by symmetry the upper one).
constexpr double kAcklamLow = 0.02425;
constexpr double kA[6] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                          1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
constexpr double kB[5] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                          6.680131188771972e+01,  -1.328068155288572e+01};
constexpr double kC[6] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                          -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
constexpr double kD[4] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                          3.754408661907416e+00};

double acklam_central(double p) {
    const double q = p - 0.5, r = q * q;
    return (((((kA[0] * r + kA[1]) * r + kA[2]) * r + kA[3]) * r + kA[4]) * r + kA[5]) * q /
           (((((kB[0] * r + kB[1]) * r + kB[2]) * r + kB[3]) * r + kB[4]) * r + 1.0);
}

// ln x for a positive normal double, in plain arithmetic that vectorises (no libm call):
// x = 2^e · m with m in [√½, √2] (√2 as the double 1.4142135623730951),
// ln x = e·ln 2 + 2 atanh(s), s = (m − 1)/(m + 1), |s| ≤ 0.1716, and
// 2 atanh(s) = 2 (s + s³/3 + … + s¹⁹/19) to ~10⁻¹⁴ relative.
double log_positive(double x) {
    // e and m by integer adds alone: with a select on m and an int64 → double conversion
    // GCC 12 left this function scalar at avx2 (it kept the select as a branch, and that
    // conversion has no AVX2 instruction). Adding kCarryAtSqrt2 to x's bits carries into
    // the exponent field exactly when the mantissa is above √2's, and then m comes out
    // halved; both are exact.
    constexpr std::uint64_t kAboveSqrtHalf = 0x3FE6A09E667F3BCEULL;  // √½'s bits + 1
    constexpr std::uint64_t kCarryAtSqrt2 = 0x3FF0000000000000ULL - kAboveSqrtHalf;
    const std::uint64_t u = std::bit_cast<std::uint64_t>(x) + kCarryAtSqrt2;
    // 2⁵² + field is a double whose mantissa is the exponent field: e = field − 1023.
    const double e = std::bit_cast<double>((u >> 52) | 0x4330000000000000ULL) - (4503599627370496.0 + 1023.0);
    const double m = std::bit_cast<double>((u & 0x000FFFFFFFFFFFFFULL) + kAboveSqrtHalf);
    const double s = (m - 1.0) / (m + 1.0), s2 = s * s;
    double series = 1.0 / 19.0;
    for (int k = 17; k >= 1; k -= 2) series = series * s2 + 1.0 / k;
    return e * 0.69314718055994531 + 2.0 * s * series;
}

// Φ⁻¹(p) for p < kAcklamLow.
double acklam_lower_tail(double p) {
    const double q = std::sqrt(-2.0 * log_positive(p));
    return (((((kC[0] * q + kC[1]) * q + kC[2]) * q + kC[3]) * q + kC[4]) * q + kC[5]) /
           ((((kD[0] * q + kD[1]) * q + kD[2]) * q + kD[3]) * q + 1.0);
}

// For each 4-bit mask (bit j: lane j is a tail), its set lanes in ascending order in the
// low bytes, and how many there are.
struct NibbleLanes {
    std::uint8_t lane[16][4];
    std::uint8_t count[16];
};
constexpr NibbleLanes nibble_lanes() {
    NibbleLanes t{};
    for (int b = 0; b < 16; ++b)
        for (int j = 0; j < 4; ++j)
            if (b & (1 << j)) t.lane[b][t.count[b]++] = static_cast<std::uint8_t>(j);
    return t;
}
constexpr NibbleLanes kNibbleLanes = nibble_lanes();

// Writes the indices i < m with min(p[i], 1 − p[i]) < kAcklamLow to `tails` (ascending);
// returns how many. `tails` must have room for m + 3 entries. Vectorised as a compare per
// vector of p whose mask bits (~5 % set) are turned into indices four lanes at a time
// through kNibbleLanes, without a branch: all four slots are written and the count moves
// by the set lanes (walking the bits branched on data, and Highway's CompressStore of
// 64-bit lanes is emulated at avx2).
std::size_t list_tails(const double* p, std::size_t m, std::uint64_t* tails) {
    std::size_t count = 0, i = 0;
#if HWY_TARGET != HWY_SCALAR
    const hn::ScalableTag<double> d;
    const std::size_t N = hn::Lanes(d);  // ≤ 8 doubles: one byte of mask bits
    const auto low = hn::Set(d, kAcklamLow), one = hn::Set(d, 1.0);
    for (; i + N <= m; i += N) {
        const auto v = hn::LoadU(d, p + i);
        std::uint8_t bits[8] = {};
        hn::StoreMaskBits(d, hn::Lt(hn::Min(v, hn::Sub(one, v)), low), bits);
        for (std::size_t base = 0; base < N; base += 4) {
            const unsigned nibble = (bits[0] >> base) & 15u;
            for (int j = 0; j < 4; ++j) tails[count + j] = i + base + kNibbleLanes.lane[nibble][j];
            count += kNibbleLanes.count[nibble];
        }
    }
#endif
    for (; i < m; ++i) {
        tails[count] = i;
        count += std::min(p[i], 1.0 - p[i]) < kAcklamLow;
    }
    return count;
}

// A plain loop over independent elements, which the compiler vectorises (64-bit
// multiplies and shifts, one int → float conversion and one multiply per element).
void FillUniformCounter(float* out, std::size_t n, std::uint64_t key, std::uint64_t first, float bound) {
    const float scale = bound * (1.0f / 8388608.0f);  // bound / 2²³, exact
    std::uint64_t state = splitmix_state(key, first + 1);
    for (std::size_t i = 0; i < n; ++i, state += kSplitMixGamma) {
        const std::int32_t k = static_cast<std::int32_t>(splitmix_top24(state)) - 8388608;  // [−2²³, 2²³)
        out[i] = static_cast<float>(k) * scale;
    }
}

// Blocks of 256: one vectorised pass computes p and the central formula for every
// element; the tail draws (p outside [kAcklamLow, 1 − kAcklamLow], ~5 %) are listed
// without branching and replaced in a second pass (branching on every element cost 3×
// the whole first pass in mispredictions).
void FillNormalCounter(float* out, std::size_t n, std::uint64_t key, std::uint64_t first) {
    constexpr std::size_t kBlock = 256;
    double p[kBlock];
    std::uint64_t tails[kBlock + 4];  // list_tails writes up to 3 past its count
    double tail_p[kBlock], tail_x[kBlock];
    std::uint64_t state = splitmix_state(key, first + 1);
    for (std::size_t b0 = 0; b0 < n; b0 += kBlock) {
        const std::size_t m = std::min(kBlock, n - b0);
        for (std::size_t i = 0; i < m; ++i, state += kSplitMixGamma) {
            const std::uint64_t bits = splitmix_mix(state) >> 12;  // < 2⁵²
            // double(bits) exactly, without a 64-bit integer conversion (AVX2 has none):
            // 2⁵² + bits is a double whose mantissa is bits.
            const double value = std::bit_cast<double>(bits | 0x4330000000000000ULL) - 4503599627370496.0;
            p[i] = (value + 0.5) * (1.0 / 4503599627370496.0);  // exact
            out[b0 + i] = static_cast<float>(acklam_central(p[i]));
        }
        const std::size_t count = list_tails(p, m, tails);
        for (std::size_t t = 0; t < count; ++t) tail_p[t] = std::min(p[tails[t]], 1.0 - p[tails[t]]);
        for (std::size_t t = 0; t < count; ++t) tail_x[t] = acklam_lower_tail(tail_p[t]);  // vectorised
        for (std::size_t t = 0; t < count; ++t) {  // Φ⁻¹(1 − p) = −Φ⁻¹(p)
            // tail_x < 0; p − ½ gives the sign without a branch (a tail draw is in the lower
            // or the upper tail at random, so a branch mispredicted half the time)
            const std::uint64_t i = tails[t];
            out[b0 + i] = static_cast<float>(std::copysign(tail_x[t], p[i] - 0.5));
        }
    }
}

}  // namespace hs::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "core/kernels/counter_fill.h"
#include "core/kernels/dispatch.h"

namespace hs::kernels {


void fill_uniform_counter(float* out, std::size_t n, std::uint64_t key, std::uint64_t first, float bound) {
    HS_KERNEL(FillUniformCounter)(out, n, key, first, bound);
}

void fill_normal_counter(float* out, std::size_t n, std::uint64_t key, std::uint64_t first) {
    HS_KERNEL(FillNormalCounter)(out, n, key, first);
}

}  // namespace hs::kernels
#endif  // HWY_ONCE
