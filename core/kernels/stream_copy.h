#pragma once
// Copies floats to memory that will not be read again soon (an attention map written once
// for the user to look at later) with non-temporal stores at the SIMD level in use: the
// destination's lines go to memory without being read into the caches first, and the
// caches keep what the next products read. The stores are made visible to other threads
// before it returns (a store fence), so a pool thread's copy is complete when its task is.
namespace hs::kernels {

// dst[0 : count) = src[0 : count); the two must not overlap.
void stream_copy(const float* src, long count, float* dst);

}  // namespace hs::kernels
