#include "app/bench.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/error.h"

namespace hs {

Percentiles percentiles(std::vector<double> ms) {
    Percentiles p;
    p.count = ms.size();
    if (ms.empty()) return p;
    std::sort(ms.begin(), ms.end());
    auto at = [&](double q) {
        const auto i = static_cast<std::size_t>(std::lround(q * static_cast<double>(ms.size() - 1)));
        return ms[std::min(ms.size() - 1, i)];
    };
    p.p50 = at(0.5);
    p.p95 = at(0.95);
    p.max = ms.back();
    return p;
}

std::string bench_line(const std::string& what, const std::vector<double>& ms) {
    if (ms.empty()) return what + " 0";
    const Percentiles p = percentiles(ms);
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s %zu  p50 %.2f ms  p95 %.2f ms  max %.2f ms", what.c_str(), p.count, p.p50,
                  p.p95, p.max);
    return buf;
}

PanUv pan_uv(int frame) {
    // Window: 1/4 of each axis. Position s in [0, 1] of the free range [0, 3/4]:
    // triangle wave over `period` frames, the vertical phase a quarter period behind.
    constexpr int period = 240;
    constexpr float width = 0.25f;
    auto triangle = [](int f) {
        const int m = ((f % period) + period) % period;
        const float x = static_cast<float>(m) / (period / 2);  // 0 .. 2
        return x <= 1.0f ? x : 2.0f - x;
    };
    const float u0 = triangle(frame) * (1.0f - width);
    const float v0 = triangle(frame + period / 4) * (1.0f - width);
    return {u0, v0, u0 + width, v0 + width};
}

ModelConfig edited_config(const ModelConfig& start, const std::string& key, int i) {
    ModelConfig c = start;
    if (key != "heads" && key != "d_model")
        throw Error("the live-edit benchmark edits heads or d_model, got '" + key + "'.");
    if (i % 2 == 1) {
        if (key == "heads") c.heads = start.heads / 2;
        else c.d_model = start.d_model / 2;
        if (!validate(c).empty())
            throw Error("the live-edit benchmark halves " + key + " of d_model " + std::to_string(start.d_model) +
                        ", heads " + std::to_string(start.heads) + ", which gives an invalid model: " +
                        validate(c).front());
    }
    return c;
}

void print_bench(const std::vector<double>& ms, const char* what) {
    std::printf("%s\n", bench_line(what, ms).c_str());
    std::fflush(stdout);
}

double ms_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}

}  // namespace hs
