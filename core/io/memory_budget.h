#pragma once
// Whether a real model's weights fit in this machine's memory, and how, decided before
// they are read:
//   InMemory — every weight f32, the linear ones also as packed panels for the products
//              (core/kernels/packed_cache.h): about 8 bytes per parameter.
//   PerLayer — the weights outside the layers (embeddings, final norm, head) f32; the
//              layers stay in the file, their products reading each weight as stored a
//              panel at a time (core/model/layer_source.h): 4 bytes per outside parameter
//              plus one layer's f32 and stored bytes (the Pipeline's layer, read whole, is
//              f32). The file stays in the system's page cache, which the system may drop;
//              the products read it through a map, whose pages count in this process's
//              RSS while they stay mapped (core/io/read_only_file.h).
// A model that fits neither way is refused with the sizes named instead of being killed
// by the system half-way through reading it.
#include <optional>
#include <string>

#include "core/model/weight_footprint.h"

namespace hs {

// Bytes the system can still give this process: MemAvailable of /proc/meminfo, or
// HEADSCOPE_MEMORY_LIMIT when that is set and smaller (bytes, or with a K, M or G suffix:
// "8G"; to try what a smaller machine would do); -1 when neither is known. Throws hs::Error
// naming the variable when HEADSCOPE_MEMORY_LIMIT is not such a size.
long long available_memory_bytes();
// The rule above for a given MemAvailable (`system`, -1 when unknown) and variable text
// (`limit_text`, null or empty when unset).
long long limit_available_memory(long long system, const char* limit_text);
// "8G", "512M", "1024" → bytes; -1 for anything else (zero, negative, other suffixes).
long long parse_memory_size(const std::string& text);

enum class WeightResidency { InMemory, PerLayer };

// InMemory when 8 bytes per parameter fit in `available` (unknown, -1: always); else
// PerLayer when 4 bytes per parameter outside the layers plus one layer's f32 and stored
// bytes fit and `per_layer_possible` (the reader can read layers on demand); else nothing.
std::optional<WeightResidency> choose_weight_residency(const WeightFootprint& f, long long available,
                                                      bool per_layer_possible);
// choose_weight_residency, or hs::Error naming `what`, both sizes and the memory available.
WeightResidency plan_weight_residency(const WeightFootprint& f, long long available, bool per_layer_possible,
                                      const std::string& what);
// The bytes each way needs.
double in_memory_bytes(const WeightFootprint& f);
double per_layer_bytes(const WeightFootprint& f);

// "3.2 GiB"
std::string gib_text(double bytes);
// "7.0 MiB", "612 MiB", "14.9 GiB"
std::string memory_text(double bytes);

// What `inspect` says of the plan, two lines:
//   memory:     59.6 GiB once open (f32 weights and their packed copies), 4.1 GiB read one layer at a time
//   this machine: 22.3 GiB available: opens reading one layer at a time
std::string describe_memory_plan(const WeightFootprint& f, long long available, bool per_layer_possible);

}  // namespace hs
