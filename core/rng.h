#pragma once
// A small deterministic PRNG (SplitMix64 seeding + xoshiro256**), so a seed gives the
// same weights on every platform and standard library. Normal samples use Box-Muller
// on our own uniforms, not std::normal_distribution (whose output is unspecified).
#include <cstdint>

namespace hs {

class Rng {
public:
    explicit Rng(std::uint64_t seed);
    std::uint64_t next_u64();
    // Uniform in [0, 1) with 24 random bits (exactly representable as float).
    float uniform01();
    // Uniform in [lo, hi).
    float uniform(float lo, float hi);
    // Standard normal N(0, 1).
    float normal();

private:
    std::uint64_t s_[4];
    bool has_spare_ = false;
    float spare_ = 0.0f;
};

}  // namespace hs
