#pragma once
// Measured runs of the window (--bench-frames, --bench-pan, --bench-busy, --bench-edits):
// percentile lines that scripts parse, the pan/zoom path of the single-map view, and the
// live-edit sequence. No GL, no ImGui calls: the frame loop (app/app.cpp) drives these.
#include <chrono>
#include <string>
#include <vector>

#include "core/model/config.h"

namespace hs {

struct Percentiles {
    std::size_t count = 0;
    double p50 = 0.0, p95 = 0.0, max = 0.0;
};

// Nearest-rank percentiles of `ms` (index round(p · (n − 1)) of the sorted values).
Percentiles percentiles(std::vector<double> ms);

// One machine-readable line, e.g. "frames 300  p50 4.10 ms  p95 6.20 ms  max 9.00 ms"
// ("<what> 0" when there is nothing to report).
std::string bench_line(const std::string& what, const std::vector<double>& ms);
// Prints bench_line(what, ms) to stdout and flushes it.
void print_bench(const std::vector<double>& ms, const char* what);
// Milliseconds from a to b.
double ms_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b);

// The visible part of the map in frame `frame` of a pan benchmark, as texture coordinates
// (u0, v0, u1, v1): zoomed in to 1/4 of each axis, the window slides diagonally across
// the map and back (triangle wave, period 240 frames), so every frame shows new cells
// and every frame's uv differs from the previous one's.
struct PanUv {
    float u0, v0, u1, v1;
};
PanUv pan_uv(int frame);

// Live edits: config `i` (0-based) of an alternating sequence between the starting
// config and the same config with `key` halved ("heads": H ↔ H/2, "d_model": D ↔ D/2,
// keeping d_model % heads == 0). Throws hs::Error for another key or when halving gives
// an invalid config.
ModelConfig edited_config(const ModelConfig& start, const std::string& key, int i);

}  // namespace hs
