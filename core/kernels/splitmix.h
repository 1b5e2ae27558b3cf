#pragma once
// SplitMix64 (Steele, Lea & Flood 2014), shared by the seeded generator (core/rng.cpp) and
// the counter-based bulk fills (core/kernels/counter_fill.cpp).
#include <cstdint>

namespace hs {

inline constexpr std::uint64_t kSplitMixGamma = 0x9E3779B97F4A7C15ULL;  // the increment γ

// SplitMix64's output function (Stafford's variant 13 mixer).
inline std::uint64_t splitmix_mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

}  // namespace hs
