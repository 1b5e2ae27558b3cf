#include "core/rng.h"

#include <algorithm>
#include <cmath>

#include "core/kernels/counter_fill.h"
#include "core/kernels/splitmix.h"

namespace hs {

namespace {

std::uint64_t splitmix64(std::uint64_t& x) { return splitmix_mix(x += kSplitMixGamma); }

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

// The bulk counter fills are speed kernels: core/kernels/counter_fill.cpp.
void fill_uniform_counter(float* out, std::size_t n, std::uint64_t key, std::uint64_t first, float bound) {
    kernels::fill_uniform_counter(out, n, key, first, bound);
}

void fill_normal_counter(float* out, std::size_t n, std::uint64_t key, std::uint64_t first) {
    kernels::fill_normal_counter(out, n, key, first);
}

}  // namespace hs
