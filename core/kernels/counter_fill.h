#pragma once
// The counter-based bulk fills of core/rng.h (fill_uniform_counter, fill_normal_counter:
// the contracts are there), at the SIMD level in use. Their loops are plain C++ over
// independent elements that the compiler vectorises once per level (64-bit multiplies
// and shifts need AVX-512 or AVX2 to vectorise at all: a portable SSE2 build initialised
// the live-edit model 4.7× slower).
#include <cstddef>
#include <cstdint>

namespace hs::kernels {

void fill_uniform_counter(float* out, std::size_t n, std::uint64_t key, std::uint64_t first, float bound);
void fill_normal_counter(float* out, std::size_t n, std::uint64_t key, std::uint64_t first);

}  // namespace hs::kernels
