// headscope bench MODEL --tokens N [--repeat R]: forward-pass timing.
// Speeds are reported as ratios against a baseline measured in the same run (these
// machines are noisy): the model's achieved GFLOP/s over a plain Eigen GEMM's GFLOP/s.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "cli/commands.h"
#include "cli/common.h"
#include "core/error.h"

namespace hs {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// Multiply-adds ×2 of one forward pass: projections, QKᵀ, A·V, W_o, FFN per layer.
double forward_flops(const ModelConfig& c, int T) {
    const double D = c.d_model, F = c.d_ff, t = T;
    const double attn = 2 * t * D * 3 * D + 2 * t * t * D * 2 + 2 * t * D * D;
    const double ffn = 2 * t * D * F * 2;
    double total = (attn + ffn) * c.layers;
    if (c.arch == Arch::EncoderDecoder) total += (2 * attn + ffn) * c.layers;
    return total;
}

// Baseline: GFLOP/s of one (T, D) × (D, 3D) Eigen GEMM — the fused projection alone.
double gemm_gflops(int T, int D, int repeat) {
    const Matrix a = Matrix::Random(T, D), b = Matrix::Random(D, 3 * D);
    Matrix c(T, 3 * D);
    std::vector<double> times;
    for (int r = 0; r < repeat + 1; ++r) {
        const auto t0 = Clock::now();
        c.noalias() = a * b;
        if (r > 0) times.push_back(ms_since(t0));  // first run is warm-up
    }
    return 2.0 * T * D * 3.0 * D / (median(times) * 1e6);
}

}  // namespace

int cmd_bench(int argc, char** argv) {
    const Args args(argc, argv, 2, {"tokens", "repeat"}, {});
    args.expect_at_most(1);
    const auto source = open_source(args.positional(0, "MODEL"));
    const Model* model = source->model();
    if (!model) throw Error("bench needs a playground model or a model directory");
    const ModelConfig& c = model->config();
    const int T = static_cast<int>(args.integer("tokens", 1, c.max_len).value_or(128));
    const int repeat = static_cast<int>(args.integer("repeat", 1, 10000).value_or(5));

    ForwardInput in;  // deterministic ids spread over the vocabulary
    for (int i = 0; i < T; ++i) in.ids.push_back(1 + (i * 7919 + 13) % (c.vocab - 1));
    if (c.arch == Arch::EncoderDecoder) in.decoder_ids = in.ids;

    std::vector<double> times;
    model->forward(in);  // warm-up
    for (int r = 0; r < repeat; ++r) {
        const auto t0 = Clock::now();
        const Trace trace = model->forward(in);
        times.push_back(ms_since(t0));
    }
    const double med = median(times);
    const double best = *std::min_element(times.begin(), times.end());
    const double gflops = forward_flops(c, T) / (med * 1e6);
    const double base = gemm_gflops(T, c.d_model, std::max(3, repeat));
    std::printf("model:     %s\n", model->name().c_str());
    std::printf("tokens:    %d, repeats: %d (after 1 warm-up)\n", T, repeat);
    std::printf("forward:   median %.2f ms, best %.2f ms, %.0f tokens/s\n", med, best,
                T / (med / 1000.0));
    std::printf("compute:   %.2f GFLOP/s (%.3f GFLOP per forward, incl. trace capture)\n", gflops,
                forward_flops(c, T) / 1e9);
    std::printf("baseline:  %.2f GFLOP/s for one (%d×%d)·(%d×%d) Eigen GEMM in this run\n", base,
                T, c.d_model, c.d_model, 3 * c.d_model);
    std::printf("ratio:     %.2f of the GEMM baseline\n", gflops / base);
    return 0;
}

}  // namespace hs
