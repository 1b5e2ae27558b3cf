#include "core/io/memory_budget.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/error.h"

namespace hs {

namespace {

constexpr double kInMemoryBytesPerParameter = 8.0;  // f32 weights + packed panels of the linear ones
constexpr double kF32 = 4.0;

long long meminfo_available() {
    std::ifstream meminfo("/proc/meminfo");
    std::string line;
    while (std::getline(meminfo, line)) {
        if (line.rfind("MemAvailable:", 0) != 0) continue;
        std::istringstream fields(line.substr(13));
        long long kib = -1;
        fields >> kib;
        return kib >= 0 ? kib * 1024 : -1;
    }
    return -1;
}

std::string millions(double params) { return std::to_string(static_cast<long long>(params / 1e6)); }

}  // namespace

std::string gib_text(double bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
    return text;
}

std::string memory_text(double bytes) {
    constexpr double kMiB = 1024.0 * 1024.0;
    if (bytes >= 1024.0 * kMiB) return gib_text(bytes);
    char text[32];
    std::snprintf(text, sizeof text, bytes < 10.0 * kMiB ? "%.1f MiB" : "%.0f MiB", bytes / kMiB);
    return text;
}

long long parse_memory_size(const std::string& text) {
    std::size_t digits = 0;
    while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
    if (digits == 0 || digits > 15) return -1;
    const std::string suffix = text.substr(digits);
    long long unit = 1;
    if (suffix == "K" || suffix == "k") unit = 1LL << 10;
    else if (suffix == "M" || suffix == "m") unit = 1LL << 20;
    else if (suffix == "G" || suffix == "g") unit = 1LL << 30;
    else if (!suffix.empty()) return -1;
    const long long value = std::stoll(text.substr(0, digits));
    if (value <= 0 || value > (1LL << 62) / unit) return -1;
    return value * unit;
}

long long available_memory_bytes() {
    return limit_available_memory(meminfo_available(), std::getenv("HEADSCOPE_MEMORY_LIMIT"));
}

long long limit_available_memory(long long system, const char* limit_text) {
    if (!limit_text || !*limit_text) return system;
    const long long limit = parse_memory_size(limit_text);
    if (limit < 0)
        throw Error(std::string("HEADSCOPE_MEMORY_LIMIT '") + limit_text +
                    "' is not a size (a positive number of bytes, or with K, M or G: 8G)");
    return system < 0 ? limit : std::min(system, limit);
}

double in_memory_bytes(const WeightFootprint& f) { return f.params * kInMemoryBytesPerParameter; }

double per_layer_bytes(const WeightFootprint& f) {
    // outside the layers but the embedding and head (left in the file): f32; one layer at a
    // time: its f32 (a layer whose reader cannot leave it stored, GPT-2's transposed Conv1D;
    // otherwise a bound on the Pipeline's attention weights) and its stored bytes (a bound on
    // what the products read into their buffers)
    const double outside = std::max(0.0, f.params - f.stack_params - f.embed_head_params);
    return outside * kF32 + f.layer_params * kF32 + f.layer_stored_bytes;
}

std::optional<WeightResidency> choose_weight_residency(const WeightFootprint& f, long long available,
                                                      bool per_layer_possible) {
    const double memory = static_cast<double>(available);
    if (available < 0 || in_memory_bytes(f) <= memory) return WeightResidency::InMemory;
    if (per_layer_possible && per_layer_bytes(f) <= memory) return WeightResidency::PerLayer;
    return std::nullopt;
}

WeightResidency plan_weight_residency(const WeightFootprint& f, long long available, bool per_layer_possible,
                                      const std::string& what) {
    if (const auto plan = choose_weight_residency(f, available, per_layer_possible)) return *plan;
    throw Error(what + " has " + millions(f.params) + " million parameters: about " + gib_text(in_memory_bytes(f)) +
                " once open (f32 weights and their packed copies)" +
                (per_layer_possible ? ", " + gib_text(per_layer_bytes(f)) + " even read one layer at a time"
                                    : std::string()) +
                ", but this machine has " + gib_text(static_cast<double>(available)) +
                " available; close other programs or open a smaller model");
}

std::string describe_memory_plan(const WeightFootprint& f, long long available, bool per_layer_possible) {
    std::string out = "memory:     " + memory_text(in_memory_bytes(f)) + " once open (f32 weights and their packed copies)";
    if (per_layer_possible) out += ", " + memory_text(per_layer_bytes(f)) + " read one layer at a time";
    out += "\nthis machine: ";
    if (available < 0) return out + "available memory unknown\n";
    out += memory_text(static_cast<double>(available)) + " available: ";
    const auto plan = choose_weight_residency(f, available, per_layer_possible);
    if (!plan) return out + "does not open\n";
    return out + (*plan == WeightResidency::InMemory ? "opens in memory\n" : "opens reading one layer at a time\n");
}

}  // namespace hs
