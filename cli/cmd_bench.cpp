// headscope bench MODEL --tokens N [--repeat R] [--attention-only]: forward-pass timing
// (or layer 0's attention block alone). Speed is reported against a limit measured in the
// same run (these machines are noisy): FLOPs / the best large-GEMM GFLOP/s; and against
// the CPU's multiply-add ceiling, which no float kernel can pass. Beside it: the time to
// the first full trace (opening plus the first forward, which also checks each layer read
// from the file) and the process's peak memory (max RSS) after the forwards.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <cstdio>

#include <sys/resource.h>
#include <vector>

#include "cli/commands.h"
#include "cli/common.h"
#include "core/model/attention.h"
#include "core/error.h"
#include "core/kernels/fma_ceiling.h"
#include "core/kernels/packed_cache.h"
#include "core/kernels/parallel.h"
#include "core/kernels/simd.h"
#include "core/model/model_masks.h"
#include "core/model/rope.h"
#include "core/open_source.h"
#include "core/source.h"

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

// Multiply-adds ×2 of one forward pass, per layer: the fused Q/K/V projection (K and V
// Hkv·Dh wide with grouped-query attention), QKᵀ and A·V (full T × S, as computed when the
// maps are captured), W_o, the feed-forward (SwiGLU has three matrices); plus the LM head
// on the last row.
double forward_flops(const ModelConfig& c, int T) {
    const double D = c.d_model, F = c.d_ff, t = T, q = c.inner(),
                 kv = double(c.kv_head_count()) * c.d_h();
    const auto attn = [&](double s) { return 2 * t * D * (q + 2 * kv) + 2 * t * s * q * 2 + 2 * t * q * D; };
    const double ffn = 2 * t * D * F * (is_gated(c.activation) ? 3 : 2);
    double total = (attn(t) + ffn) * c.layers;
    if (c.arch == Arch::EncoderDecoder) total += (2 * attn(t) + ffn) * c.layers;
    if (c.lm_head != LmHead::None) total += 2 * D * c.vocab;
    return total;
}

// Attention block alone: fused projection, QKᵀ, A·V, W_o (full T × T, as computed).
double attention_flops(const ModelConfig& c, int T) {
    const double D = c.d_model, t = T, q = c.inner(), kv = double(c.kv_head_count()) * c.d_h();
    return 2 * t * D * (q + 2 * kv) + 2 * t * t * q * 2 + 2 * t * q * D;
}

// The practical limit, measured on the spot: the best of several square GEMMs
// C (n, n) = A · Bᵀ run through the same thread pool as the model, once through BLAS and
// once through the packed kernel at the SIMD level in use; the faster of the two is the
// peak, so the limit never flatters the kernel the model uses.
struct GemmPeak {
    double blas = 0.0, kernel = 0.0;  // GFLOP/s
    double best() const { return std::max(blas, kernel); }
};

GemmPeak gemm_peak_gflops() {
    const int n = 1024;
    const Matrix a = Matrix::Random(n, n), b = Matrix::Random(n, n);
    Matrix c(n, n);
    const auto best_gflops = [&](const auto& product) {
        double best = 1e300;
        for (int r = 0; r < 6; ++r) {
            const auto t0 = Clock::now();
            product();
            if (r > 0) best = std::min(best, ms_since(t0));  // first run is warm-up
        }
        return 2.0 * n * n * double(n) / (best * 1e6);
    };
    GemmPeak peak;
    peak.blas = best_gflops([&] { matmul_nt_by_eigen(a, b, c); });
    const PackedPanels cached(nullptr, {WeightRows::of(b)});  // matmul_nt runs b's kept panels
    peak.kernel = best_gflops([&] { matmul_nt(a, b, nullptr, c); });
    return peak;
}

// The multiply-add ceiling, measured on the spot: every pool thread runs
// kernels::multiply_add_chains at the SIMD level in use (tasks of 2²⁰ steps, four per
// thread so that a thread woken late leaves its share to the others); the best of five
// rounds. No float kernel can beat it, the GEMM peak included.
double multiply_add_ceiling_gflops() {
    const int tasks = 4 * thread_count();
    const std::int64_t steps = std::int64_t{1} << 20;
    double best = 0.0;
    for (int r = 0; r < 6; ++r) {
        std::vector<kernels::MultiplyAddRun> runs(static_cast<std::size_t>(tasks));
        const auto t0 = Clock::now();
        parallel_for(tasks, [&](int i) { runs[static_cast<std::size_t>(i)] = kernels::multiply_add_chains(steps, 0.999f, 1e-3f); });
        const double ms = ms_since(t0);
        double flops = 0.0;
        for (const kernels::MultiplyAddRun& run : runs) flops += double(run.flops);
        if (r > 0) best = std::max(best, flops / (ms * 1e6));  // first round is warm-up
    }
    return best;
}

// One warm-up run (the first: buffers are sized, a model read from its file checks each
// layer), then `repeat` timed runs, then the process's peak memory, taken before the GEMM
// peak measurement allocates its own.
struct RunTimes {
    double first_ms = 0.0;
    std::vector<double> ms;
    double max_rss_gib = 0.0;
};
RunTimes time_runs(const std::function<float()>& run_once, int repeat) {
    RunTimes out;
    const auto t_first = Clock::now();
    run_once();
    out.first_ms = ms_since(t_first);
    for (int r = 0; r < repeat; ++r) {
        const auto t0 = Clock::now();
        run_once();
        out.ms.push_back(ms_since(t0));
    }
    struct rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    out.max_rss_gib = static_cast<double>(usage.ru_maxrss) / (1 << 20);  // KiB → GiB
    return out;
}

}  // namespace

int cmd_bench(int argc, char** argv) {
    const Args args(argc, argv, 2, {"tokens", "repeat"}, {"attention-only"});
    args.expect_at_most(1);
    const auto t_load = Clock::now();
    const auto source = open_source(args.positional(0, "MODEL"));
    const double load_ms = ms_since(t_load);
    const Model* model = source->model();
    if (!model)
        throw Error("bench needs a model (a playground spec, a model directory or a pretrained "
                    "checkpoint); '" + source->name() + "' is a " + source->kind());
    const bool attention_only = args.flag("attention-only");
    const ModelConfig& config = model->config();
    const int vocab = config.vocab, max_len = config.max_len;
    const int T = static_cast<int>(args.integer("tokens", 1, max_len).value_or(128));
    const int repeat = static_cast<int>(args.integer("repeat", 1, 10000).value_or(5));

    ForwardInput in;  // deterministic ids spread over the vocabulary
    for (int i = 0; i < T; ++i) in.ids.push_back(1 + (i * 7919 + 13) % (vocab - 1));
    if (config.arch == Arch::EncoderDecoder) in.decoder_ids = in.ids;
    // --attention-only: layer 0's self-attention on a fixed input x: (T, D), every head's
    // weights captured (nn.MultiheadAttention with need_weights, per head).
    Matrix x;
    AttentionMask mask;
    if (attention_only) {
        x = Matrix::Random(T, config.d_model);
        mask = main_self_mask(config, {}, 0);
    }
    const StackRotary rotary = stack_rotary(config, T);
    const std::optional<Rotary>& rope = rotary.of_layer(config, 0);  // layer 0's rotation
    const HeadSplit split{config.heads, config.kv_head_count(), rope ? &*rope : nullptr};
    // --attention-only: layer 0, read once (also from a file) and held for every run, its
    // weights registered with the packed-weight cache (a read layer's here, a resident one's
    // by its model), so its products run as a resident model's do (packed from the second run on).
    EncoderLayerWeights layer0_slot;
    const EncoderLayerWeights* layer0 = attention_only ? &model->layer(0, layer0_slot) : nullptr;
    std::optional<PackedPanels> layer0_panels;
    if (layer0 == &layer0_slot) {
        std::vector<WeightRows> weights;
        append_linear_weights(layer0_slot, weights);
        layer0_panels.emplace(nullptr, weights);
    }
    const auto run_once = [&] {
        if (attention_only) {
            MapsKeeper maps;  // the per-head weights captured
            const Matrix out = multi_head_attention(layer0->self_attn, x, x,
                                                    {.split = split, .mask = mask, .score_scale = config.score_scale(),
                                                     .softcap = config.attn_softcap, .recorder = &maps});
            return out(0, 0);
        }
        // One full forward with the default trace capture (per-head weights, hidden states).
        return model->forward(in).main.final_output(0, 0);
    };
    const double flops = attention_only ? attention_flops(config, T) : forward_flops(config, T);

    const RunTimes run_times = time_runs(run_once, repeat);
    const std::vector<double>& times = run_times.ms;
    const double first_ms = run_times.first_ms, max_rss_gib = run_times.max_rss_gib;
    const double med = median(times);
    const double best = *std::min_element(times.begin(), times.end());
    const double gflops = flops / (med * 1e6);
    const GemmPeak peaks = gemm_peak_gflops();
    const double peak = peaks.best();
    const double limit_ms = flops / (peak * 1e6);  // FLOPs at the GEMM peak
    const double ceiling = multiply_add_ceiling_gflops();
    const char* what = attention_only ? "attention" : "forward";
    const char* label = attention_only ? "attention:" : "forward:";
    std::printf("model:     %s\n", source->name().c_str());
    std::printf("load:      %.2f ms (%s)\n", load_ms, source->kind().c_str());
    std::printf("weights:   %s\n", model->stored_dtype().c_str());
    std::printf("tokens:    %d, repeats: %d (after 1 warm-up), threads: %d\n", T, repeat,
                thread_count());
    std::printf("simd:      %s (kernels chosen at run time; HEADSCOPE_SIMD=avx512|avx2|generic forces one)\n",
                kernels::simd_name(kernels::simd_level()));
    std::printf("%-10s median %.2f ms, best %.2f ms, %.0f tokens/s\n", label, med, best,
                T / (med / 1000.0));
    std::printf("first:     %.2f ms to the first full trace (load %.2f + the first %s %.2f)\n", load_ms + first_ms,
                load_ms, what, first_ms);
    std::printf("memory:    max RSS %.2f GiB after the %ss\n", max_rss_gib, what);
    std::printf("compute:   %.2f GFLOP/s (%.3f GFLOP per %s, incl. trace capture)\n", gflops,
                flops / 1e9, what);
    std::printf("peak:      %.2f GFLOP/s (best 1024×1024×1024 GEMM in this run, same threads: "
                "BLAS %.2f, packed %s kernel %.2f)\n",
                peak, peaks.blas, kernels::simd_name(kernels::simd_level()), peaks.kernel);
    std::printf("ceiling:   %.2f GFLOP/s (multiply-adds alone at %s, same threads); the packed kernel "
                "reaches %.0f %% of it\n",
                ceiling, kernels::simd_name(kernels::simd_level()), 100.0 * peaks.kernel / ceiling);
    std::printf("limit:     %.2f ms = FLOPs / peak; median is %.2f× the limit (%.0f %% of the ceiling)\n",
                limit_ms, med / limit_ms, 100.0 * gflops / ceiling);
    std::printf("result:    ms=%.4f best_ms=%.4f flops=%.0f peak_gflops=%.3f limit_ms=%.4f "
                "blas_gflops=%.3f kernel_gflops=%.3f ceiling_gflops=%.3f simd=%s load_ms=%.4f first_ms=%.4f "
                "max_rss_gib=%.3f\n",
                med, best, flops, peak, limit_ms, peaks.blas, peaks.kernel, ceiling,
                kernels::simd_name(kernels::simd_level()), load_ms, first_ms, max_rss_gib);
    return 0;
}

}  // namespace hs
