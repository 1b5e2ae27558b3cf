#pragma once
// Deterministic random numbers, so a seed gives the same values on every platform and
// standard library: a small PRNG (SplitMix64 seeding + xoshiro256**) whose normal
// samples use Box-Muller on our own uniforms, not std::normal_distribution (whose output
// is unspecified); and counter-based bulk fills for weight initialisation
// (core/weights.cpp), any part of which can be filled on its own.
#include <cstddef>
#include <cstdint>

namespace hs {

// Counter-based uniform samples for bulk weight initialisation: element i of a tensor is
//   bound · (k / 2²³ − 1),  k = the top 24 bits of SplitMix64's output number first + i + 1
//   of the stream seeded with `key` (z = key + (first + i + 1)·γ, then its finaliser),
// so k is uniform in [0, 2²⁴) and the value in [−bound, bound) (one rounding: exact on
// every platform). Any part of a tensor can be filled on its own, in parallel and in
// vector registers, with the same values as the whole. fills out[0..n) with elements
// first .. first + n − 1.
void fill_uniform_counter(float* out, std::size_t n, std::uint64_t key, std::uint64_t first, float bound);

// Counter-based standard normals, the companion of fill_uniform_counter: element i is
// Φ⁻¹(p) with p = (b + ½) / 2⁵², b = the top 52 bits of SplitMix64's output number
// first + i + 1 of the stream seeded with `key` (p is exact and strictly inside (0, 1)).
// Φ⁻¹ is Acklam's rational approximation (relative error < 1.2·10⁻⁹), computed in
// double: the central 95 % of draws vectorise, the tails take a logarithm.
void fill_normal_counter(float* out, std::size_t n, std::uint64_t key, std::uint64_t first);

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
