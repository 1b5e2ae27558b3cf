#pragma once
// Whether a real model's weights fit in this machine's memory before they are read: once
// open, every weight is f32 and the linear ones also have packed panels for the products
// (core/kernels/packed_cache.h), about 8 bytes per parameter. A model that does not fit is
// refused with both numbers instead of being killed by the system half-way through
// reading it (weights stay in their stored precision only in a later version).
#include <string>

namespace hs {

// Bytes the system can still give this process (Linux: MemAvailable of /proc/meminfo);
// -1 when unknown.
long long available_memory_bytes();

// Throws hs::Error naming `what` when `params` parameters (8 bytes each once open) exceed
// `available` bytes (unknown, -1: never throws).
void ensure_weights_fit(double params, long long available, const std::string& what);

}  // namespace hs
