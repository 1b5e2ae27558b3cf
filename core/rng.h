#pragma once
// A small deterministic PRNG (SplitMix64 seeding + xoshiro256**), so a seed gives the
// same weights on every platform and standard library. Normal samples use Box-Muller
// on our own uniforms, not std::normal_distribution (whose output is unspecified).
// Bulk fills (fill_uniform, fill_normal) serve weight initialisation (core/weights.cpp):
// fill_uniform gives exactly the values of n uniform() calls; fill_normal uses the
// ziggurat method (Marsaglia & Tsang 2000; 128 layers, Doornik's layout): one u64 per
// sample in ~99% of draws and no logarithm or trigonometry there, ~20× faster than the
// double-precision Box-Muller of normal(), whose values it does not reproduce.
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
    // out[0..n) = n successive uniform(lo, hi) (bit-identical to calling it n times).
    void fill_uniform(float* out, std::size_t n, float lo, float hi);
    // out[0..n) = n standard normals N(0, 1) by the ziggurat (see above); deterministic.
    void fill_normal(float* out, std::size_t n);

private:
    std::uint64_t s_[4];
    bool has_spare_ = false;
    float spare_ = 0.0f;
};

}  // namespace hs
