#include "core/rng.h"

#include <algorithm>
#include <cmath>

namespace hs {

namespace {

std::uint64_t splitmix64(std::uint64_t& x) {
    std::uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

Rng::Rng(std::uint64_t seed) {
    std::uint64_t x = seed;
    for (auto& s : s_) s = splitmix64(x);
}

// xoshiro256** (Blackman & Vigna): state update and output scrambler.
std::uint64_t Rng::next_u64() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
}

float Rng::uniform01() { return static_cast<float>(next_u64() >> 40) * (1.0f / 16777216.0f); }

float Rng::uniform(float lo, float hi) { return lo + (hi - lo) * uniform01(); }

// Box-Muller: two uniforms -> two independent normals (the second kept for the next call).
// Computed in double so results do not depend on float libm differences.
float Rng::normal() {
    if (has_spare_) {
        has_spare_ = false;
        return spare_;
    }
    double u1 = 0.0;
    do {
        u1 = static_cast<double>(next_u64() >> 11) * (1.0 / 9007199254740992.0);
    } while (u1 <= 0.0);
    const double u2 = static_cast<double>(next_u64() >> 11) * (1.0 / 9007199254740992.0);
    const double r = std::sqrt(-2.0 * std::log(u1));
    const double theta = 6.283185307179586 * u2;
    spare_ = static_cast<float>(r * std::sin(theta));
    has_spare_ = true;
    return static_cast<float>(r * std::cos(theta));
}

void Rng::fill_uniform(float* out, std::size_t n, float lo, float hi) {
    const float width = hi - lo;
    for (std::size_t i = 0; i < n; ++i)
        out[i] = lo + width * (static_cast<float>(next_u64() >> 40) * (1.0f / 16777216.0f));
}

namespace {

// SplitMix64's output number `index` (from 1) of the stream seeded with `key`.
std::uint64_t splitmix_at(std::uint64_t key, std::uint64_t index) {
    std::uint64_t z = key + index * 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
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

// Φ⁻¹(p) for p < kAcklamLow.
double acklam_lower_tail(double p) {
    const double q = std::sqrt(-2.0 * std::log(p));
    return (((((kC[0] * q + kC[1]) * q + kC[2]) * q + kC[3]) * q + kC[4]) * q + kC[5]) /
           ((((kD[0] * q + kD[1]) * q + kD[2]) * q + kD[3]) * q + 1.0);
}

}  // namespace

// A plain loop over independent elements, which the compiler vectorises (64-bit
// multiplies and shifts, one int → float conversion and one multiply per element).
void fill_uniform_counter(float* out, std::size_t n, std::uint64_t key, std::uint64_t first, float bound) {
    const float scale = bound * (1.0f / 8388608.0f);  // bound / 2²³, exact
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t z = splitmix_at(key, first + i + 1);
        const std::int32_t k = static_cast<std::int32_t>(z >> 40) - 8388608;  // [−2²³, 2²³)
        out[i] = static_cast<float>(k) * scale;
    }
}

// Blocks of 256: one vectorised pass computes p and the central formula for every
// element, a second pass replaces the tail draws (p outside [kAcklamLow, 1 − kAcklamLow]).
void fill_normal_counter(float* out, std::size_t n, std::uint64_t key, std::uint64_t first) {
    constexpr std::size_t kBlock = 256;
    double p[kBlock];
    for (std::size_t b0 = 0; b0 < n; b0 += kBlock) {
        const std::size_t m = std::min(kBlock, n - b0);
        for (std::size_t i = 0; i < m; ++i) {
            const std::uint64_t bits = splitmix_at(key, first + b0 + i + 1) >> 11;
            p[i] = (static_cast<double>(bits) + 0.5) * (1.0 / 9007199254740992.0);
            out[b0 + i] = static_cast<float>(acklam_central(p[i]));
        }
        for (std::size_t i = 0; i < m; ++i) {
            if (p[i] < kAcklamLow) out[b0 + i] = static_cast<float>(acklam_lower_tail(p[i]));
            else if (p[i] > 1.0 - kAcklamLow) out[b0 + i] = static_cast<float>(-acklam_lower_tail(1.0 - p[i]));
        }
    }
}

}  // namespace hs
