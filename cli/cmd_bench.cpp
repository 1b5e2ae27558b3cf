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
#include "core/pretrained/pretrained_source.h"

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

// Same for a pretrained transformer: Q/K/V/O projections (GQA: K, V are Hkv·Dh wide),
// QKᵀ and A·V, the MLP (SwiGLU has three matrices), and the LM head on the last row.
double forward_flops(const TransformerConfig& c, int T) {
    const double D = c.d_model, F = c.d_ff, t = T, q = double(c.heads) * c.head_dim,
                 kv = double(c.kv_heads) * c.head_dim;
    const double attn = 2 * t * D * (q + 2 * kv) + 2 * t * t * q * 2 + 2 * t * q * D;
    const double mlp = 2 * t * D * F * (c.mlp == MlpKind::SwiGLU ? 3 : 2);
    return (attn + mlp) * c.layers + (c.has_lm_head ? 2 * D * c.vocab : 0);
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
    const auto t_load = Clock::now();
    const auto source = open_source(args.positional(0, "MODEL"));
    const double load_ms = ms_since(t_load);
    const Model* model = source->model();
    const auto* pretrained = dynamic_cast<const PretrainedSource*>(source.get());
    if (!model && !pretrained)
        throw Error("bench needs a playground model, a model directory or a pretrained model");
    const int vocab = model ? model->config().vocab : pretrained->transformer().config().vocab;
    const int max_len = model ? model->config().max_len : pretrained->transformer().config().max_len;
    const int d_model = source->config().d_model;
    const int T = static_cast<int>(args.integer("tokens", 1, max_len).value_or(128));
    const int repeat = static_cast<int>(args.integer("repeat", 1, 10000).value_or(5));

    ForwardInput in;  // deterministic ids spread over the vocabulary
    for (int i = 0; i < T; ++i) in.ids.push_back(1 + (i * 7919 + 13) % (vocab - 1));
    if (model && model->config().arch == Arch::EncoderDecoder) in.decoder_ids = in.ids;
    // One full forward with the default trace capture (per-head weights, hidden states).
    const auto forward = [&] {
        return model ? model->forward(in) : pretrained->transformer().forward(in.ids, {});
    };
    const double flops = model ? forward_flops(model->config(), T)
                               : forward_flops(pretrained->transformer().config(), T);

    std::vector<double> times;
    forward();  // warm-up
    for (int r = 0; r < repeat; ++r) {
        const auto t0 = Clock::now();
        const Trace trace = forward();
        times.push_back(ms_since(t0));
    }
    const double med = median(times);
    const double best = *std::min_element(times.begin(), times.end());
    const double gflops = flops / (med * 1e6);
    const double base = gemm_gflops(T, d_model, std::max(3, repeat));
    std::printf("model:     %s\n", source->name().c_str());
    std::printf("load:      %.2f ms (%s)\n", load_ms, source->kind().c_str());
    std::printf("tokens:    %d, repeats: %d (after 1 warm-up)\n", T, repeat);
    std::printf("forward:   median %.2f ms, best %.2f ms, %.0f tokens/s\n", med, best,
                T / (med / 1000.0));
    std::printf("compute:   %.2f GFLOP/s (%.3f GFLOP per forward, incl. trace capture)\n", gflops,
                flops / 1e9);
    std::printf("baseline:  %.2f GFLOP/s for one (%d×%d)·(%d×%d) Eigen GEMM in this run\n", base,
                T, d_model, d_model, 3 * d_model);
    std::printf("ratio:     %.2f of the GEMM baseline\n", gflops / base);
    return 0;
}

}  // namespace hs
