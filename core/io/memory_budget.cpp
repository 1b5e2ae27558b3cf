#include "core/io/memory_budget.h"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "core/error.h"

namespace hs {

namespace {

std::string gib(double bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
    return text;
}

}  // namespace

long long available_memory_bytes() {
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

void ensure_weights_fit(double params, long long available, const std::string& what) {
    constexpr double kBytesPerParameter = 8.0;  // f32 weights + packed panels of the linear ones
    const double needed = params * kBytesPerParameter;
    if (available < 0 || needed <= static_cast<double>(available)) return;
    throw Error(what + " has " + std::to_string(static_cast<long long>(params / 1e6)) +
                " million parameters: about " + gib(needed) + " once open (f32 weights and their packed copies), " +
                "but this machine has " + gib(static_cast<double>(available)) +
                " available; close other programs or open a smaller model");
}

}  // namespace hs
