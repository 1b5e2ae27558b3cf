// Google Benchmark suite for the attention core (docs/PERFORMANCE.md).
//   build-*/tests/headscope_bench --benchmark_min_time=0.2
// Shapes: T tokens, D d_model, H heads. Every attention benchmark captures all H maps
// (T, T), as the explorer does. GFLOP counters (shown per second) use the FLOP counts written beside
// each benchmark; BM_GemmPeak is the limit to compare them with in the same run.
#include <benchmark/benchmark.h>

#include <array>
#include <chrono>
#include <string>
#include <optional>
#include <thread>
#include <vector>

#include "core/model/attention.h"
#include "core/model/config.h"
#include "core/kernels/gemm.h"
#include "core/kernels/stored_matrix.h"
#include "core/kernels/matmul.h"
#include "core/kernels/packed_cache.h"
#include "core/model/model.h"
#include "core/model/recorder.h"
#include "core/kernels/parallel.h"
#include "core/kernels/memory_policy.h"
#include "core/model/weights.h"
#include "core/rng.h"
#include "tests/stored_bytes.h"

namespace hs {
namespace {

void set_flops(benchmark::State& state, double flops_per_iteration) {
    state.counters["GFLOP"] = benchmark::Counter(
        flops_per_iteration * 1e-9 * double(state.iterations()), benchmark::Counter::kIsRate);
}

// Layer 0's self-attention of a playground model (PyTorch in_proj / out_proj layout).
// FLOPs: [Q|K|V] 2·T·D·3D + QKᵀ 2·T²·D + A·V 2·T²·D + W_o 2·T·D·D.
void BM_Attention(benchmark::State& state) {
    const int D = int(state.range(0)), H = int(state.range(1)), T = int(state.range(2));
    const Model model = Model::random(parse_playground_spec(
        "random:d_model=" + std::to_string(D) + ",heads=" + std::to_string(H) +
        ",layers=1,d_ff=" + std::to_string(4 * D) + ",max_len=" + std::to_string(T) +
        ",seed=3"));
    const Matrix x = Matrix::Random(T, D);
    const AttentionWeights& w = model.weights().layers[0].self_attn;
    for (auto _ : state) {
        MapsKeeper maps;
        const Matrix out = multi_head_attention(w, x, x, {.recorder = &maps});
        benchmark::DoNotOptimize(maps.weights.back().data());
        benchmark::DoNotOptimize(out.data());
    }
    const double t = T, d = D;
    set_flops(state, 2 * t * d * 3 * d + 4 * t * t * d + 2 * t * d * d);
}
BENCHMARK(BM_Attention)
    ->Args({768, 12, 128})
    ->Args({768, 12, 512})
    ->Args({1024, 16, 1024})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// GPT-2-small-shaped forward: 12 pre-LN causal layers, D 768, 12 heads, d_ff 3072, GELU,
// learned positions, 128 tokens, all 144 maps and hidden states captured.
// FLOPs per layer: attention as above + FFN 2·T·D·F·2.
void BM_Gpt2SmallForward(benchmark::State& state) {
    const int T = int(state.range(0));
    const Model model = Model::random(parse_playground_spec(
        "random:d_model=768,heads=12,layers=12,d_ff=3072,act=gelu,mask=causal,pe=learned,"
        "norm=pre-ln,vocab=1000,max_len=1024,seed=1"));
    ForwardInput in;
    for (int i = 0; i < T; ++i) in.ids.push_back(1 + (i * 7919 + 13) % 999);
    for (auto _ : state) {
        Trace trace = model.forward(in);
        benchmark::DoNotOptimize(trace.main.final_output.data());
    }
    const double t = T, d = 768, f = 3072;
    set_flops(state, 12 * (2 * t * d * 3 * d + 4 * t * t * d + 2 * t * d * d + 4 * t * d * f));
}
BENCHMARK(BM_Gpt2SmallForward)->Arg(128)->Unit(benchmark::kMillisecond)->UseRealTime();

// Row softmax of one (T, T) map with causal −∞ above the diagonal.
void BM_SoftmaxRows(benchmark::State& state) {
    const int T = int(state.range(0));
    const Matrix scores = Matrix::Random(T, T);
    Matrix m(T, T);
    AttentionMask mask;
    mask.causal = state.range(1) != 0;
    for (auto _ : state) {
        m = scores;
        mask.apply(m);
        softmax_rows(m);
        benchmark::DoNotOptimize(m.data());
    }
    state.SetItemsProcessed(state.iterations() * int64_t(T) * T);
}
BENCHMARK(BM_SoftmaxRows)->Args({512, 0})->Args({1024, 0})->Args({1024, 1});

// The limit: C (n, n) = A · Bᵀ through the same pool as the model, via BLAS (arg 1 = 0) or
// the packed kernel at the SIMD level in use (arg 1 = 1); `headscope bench` takes the faster as its peak.
void BM_GemmPeak(benchmark::State& state) {
    const int n = int(state.range(0));
    const Matrix a = Matrix::Random(n, n), b = Matrix::Random(n, n);
    std::optional<PackedPanels> cached;  // b in the packed-weight cache: the kernel runs it
    if (state.range(1) != 0) cached.emplace(nullptr, std::vector<WeightRows>{WeightRows::of(b)});
    Matrix c(n, n);
    for (auto _ : state) {
        if (cached) matmul_nt(a, b, nullptr, c);
        else matmul_nt_by_eigen(a, b, c);
        benchmark::DoNotOptimize(c.data());
    }
    state.counters["threads"] = thread_count();
    set_flops(state, 2.0 * n * n * double(n));
}
BENCHMARK(BM_GemmPeak)->Args({1024, 0})->Args({1024, 1})->Args({2048, 0})->Args({2048, 1})
    ->Unit(benchmark::kMillisecond)->UseRealTime();

// One thread, y (M, N) = x (M, K) · Wᵀ: the packed kernel at the SIMD level in use (arg 3 = 1;
// 2: packing W on every call; 3: a weight's first product, gemm::nn_packing without kept
// panels, with W in cache; 4: the generic kernels::matmul on Wᵀ, transposed per call)
// against BLAS through Eigen (arg 3 = 0) on the projection and FFN shapes of the attention
// and model benchmarks and a trainer's (40 rows).
void BM_LinearKernel(benchmark::State& state) {
    const int M = int(state.range(0)), N = int(state.range(1)), K = int(state.range(2));
    const bool kernel = state.range(3) != 0;
    (void)thread_count();  // starts the pool, which makes OpenBLAS single-threaded as well
    const Matrix x = Matrix::Random(M, K), w = Matrix::Random(N, K);
    const gemm::PackedWeights packed = gemm::pack(w.data(), N, K, K);
    Matrix y(M, N);
    for (auto _ : state) {
        if (state.range(3) == 4) {  // the generic product
            kernels::matmul(x, kernels::Op::Plain, w, kernels::Op::Transposed, y);
        } else if (state.range(3) == 3) {  // the first product's path
            gemm::nn_packing(M, x.data(), K, w.data(), N, K, K, 0, packed.panels(), nullptr, y.data(), N);
        } else if (state.range(3) == 2) {  // packed on every call
            const gemm::PackedWeights fresh = gemm::pack(w.data(), N, K, K);
            gemm::nn_packed(M, x.data(), K, fresh, 0, fresh.panels(), nullptr, y.data(), N);
        } else if (kernel)
            gemm::nn_packed(M, x.data(), K, packed, 0, packed.panels(), nullptr, y.data(), N);
        else
            y.noalias() = x * w.transpose();
        benchmark::DoNotOptimize(y.data());
    }
    set_flops(state, 2.0 * M * N * double(K));
}
BENCHMARK(BM_LinearKernel)
    ->Apply([](benchmark::internal::Benchmark* b) {
        // (M, N, K): attention projections at 128 and 512 tokens, then GPT-2's FFN and the
        // live-edit model's FFN, each through BLAS, the cached panels, panels packed per
        // call, the first product's path and the generic product; a trainer's shapes and
        // row counts that are not whole 64-row tiles, through the last two.
        for (const auto& [m, n, k] : {std::array{128, 2304, 768}, std::array{512, 2304, 768}})
            for (int mode : {0, 1, 3}) b->Args({m, n, k, mode});
        for (const auto& [m, n, k] :
             {std::array{128, 3072, 768}, std::array{128, 768, 3072}, std::array{64, 2048, 512}})
            for (int mode : {0, 1, 2, 3, 4}) b->Args({m, n, k, mode});
        for (const auto& [m, n, k] : {std::array{40, 384, 128}, std::array{40, 512, 512}, std::array{512, 3072, 768}})
            for (int mode : {0, 3, 4}) b->Args({m, n, k, mode});
        for (int m : {100, 200})
            for (const auto& [n, k] : {std::array{768, 768}, std::array{3072, 768}, std::array{768, 3072}})
                for (int mode : {3, 4}) b->Args({m, n, k, mode});
        for (int mode : {3, 4}) b->Args({128, 768, 768, mode});
    })
    ->Unit(benchmark::kMicrosecond);

// One thread, y (M, N) = x (M, K) · Wᵀ with W read from its "file" a panel at a time,
// converted and laid out (gemm::nn_stored), against the packed f32 product of the same
// shape (gemm::nn_packed): arg 3 = 0 packed f32, 1 BF16, 2 Q8_0, 3 Q4_0, read by copying
// (pread), 4 BF16, 5 Q8_0, 6 Q4_0 read where they lie in memory, and 7 BF16, 8 Q8_0, 9 Q4_0
// where they lie in a "file"'s map (each panel's conversion under the SIGBUS guard, its
// rows requested ahead, as a model file's are). The stored rows' cost over the packed one
// is what a model read layer by layer pays per product.
void BM_StoredKernel(benchmark::State& state) {
    const int M = int(state.range(0)), N = int(state.range(1)), K = int(state.range(2));
    const int mode = int(state.range(3));
    (void)thread_count();
    const Matrix x = Matrix::Random(M, K), w = Matrix::Random(N, K);
    const gemm::PackedWeights packed = gemm::pack(w.data(), N, K, K);
    constexpr std::array kTypes{StoredType::F32, StoredType::BF16, StoredType::Q8_0, StoredType::Q4_0};
    const StoredType type = kTypes[static_cast<std::size_t>(mode > 6 ? mode - 6 : mode > 3 ? mode - 3 : mode)];
    Rng rng(12345);
    test::BytesFile file;  // W as stored (BF16 for the packed f32 mode, unused)
    file.bytes = test::random_rows(type == StoredType::F32 ? StoredType::BF16 : type, N, K, rng);
    file.map = mode > 6;
    const std::string tensor = "w";
    StoredMatrix stored{N, K, {}};
    stored.parts.push_back(StoredRows{0, N, type, static_cast<std::int64_t>(file.bytes.size() / N),
                                      mode == 4 || mode == 5 || mode == 6 ? file.bytes.data() : nullptr, &file, 0,
                                      &tensor});
    Matrix y(M, N);
    for (auto _ : state) {
        if (mode == 0)
            gemm::nn_packed(M, x.data(), K, packed, 0, packed.panels(), nullptr, y.data(), N);
        else
            gemm::nn_stored(M, x.data(), K, stored, 0, packed.panels(), nullptr, y.data(), N);
        benchmark::DoNotOptimize(y.data());
    }
    set_flops(state, 2.0 * M * N * double(K));
}
BENCHMARK(BM_StoredKernel)
    ->Apply([](benchmark::internal::Benchmark* b) {
        // (M, N, K): Llama-768's feed-forward up and down at 128 tokens, and a 4096-wide
        // layer's Q projection (the 8B shape), each packed f32, then BF16, Q8_0, Q4_0 copied,
        // in memory and in a map.
        for (const auto& [m, n, k] :
             {std::array{128, 2048, 768}, std::array{128, 768, 2048}, std::array{128, 4096, 4096}})
            for (int mode = 0; mode <= 9; ++mode) b->Args({m, n, k, mode});
    })
    ->Unit(benchmark::kMicrosecond);

// One thread, scores (T, T) = Q_h · K_hᵀ with Dh = 64: the kernel on K_hᵀ (arg 1 = 1,
// transpose included) against BLAS (arg 1 = 0).
void BM_ScoresKernel(benchmark::State& state) {
    const int T = int(state.range(0)), Dh = 64;
    const bool kernel = state.range(1) != 0;
    const Matrix q = Matrix::Random(T, Dh), k = Matrix::Random(T, Dh);
    Matrix kt(Dh, T), s(T, T);
    for (auto _ : state) {
        if (kernel) {
            gemm::transpose(T, Dh, k.data(), Dh, kt.data(), T);
            gemm::nn(T, T, Dh, 0.125f, q.data(), Dh, kt.data(), T, nullptr, s.data(), T);
        } else {
            s.noalias() = 0.125f * (q * k.transpose());
        }
        benchmark::DoNotOptimize(s.data());
    }
    set_flops(state, 2.0 * T * T * double(Dh));
}
BENCHMARK(BM_ScoresKernel)->Args({128, 0})->Args({128, 1})->Args({512, 0})->Args({512, 1})
    ->Unit(benchmark::kMicrosecond);

// Model::random for the live-edit spec (issue 6): initialisation of every tensor (the
// packed-weight cache only registers the linear layers: their products pack them).
void BM_ModelRandom(benchmark::State& state) {
    const ModelConfig c = parse_playground_spec("random:d_model=512,heads=8,layers=6");
    for (auto _ : state) {
        Model m = Model::random(c);
        benchmark::DoNotOptimize(m.weights().embed.data());
    }
}
BENCHMARK(BM_ModelRandom)->Unit(benchmark::kMillisecond)->UseRealTime();

// The forward of a live edit as the app asks for it (issue 6): 64 tokens, every map and
// score captured, every intermediate of layer 0 for the Pipeline tab, thumbnails made
// from each block's maps (here: each map read once). Arg 0: plain capture, 1: as the app.
// Reads each block's maps once as the forward makes them (the app's thumbnails).
struct ReadEveryMap final : Recorder {
    bool wants(const TapPoint& point) const override { return point.layer >= 0 && point.part() == "weights"; }
    void record_maps(const TapPoint&, const std::vector<Matrix>& maps) override {
        float sum = 0.0f;
        for (const Matrix& w : maps) sum += w.sum();
        benchmark::DoNotOptimize(sum);
    }
};

void BM_LiveEditForward(benchmark::State& state) {
    ReadEveryMap thumbnails;
    const Model m = Model::random(parse_playground_spec("random:d_model=512,heads=8,layers=6"));
    ForwardInput in;
    for (int i = 0; i < 64; ++i) in.ids.push_back(1 + i);
    TraceOptions options;
    if (state.range(0) == 1) {
        options.scores = true;
        options.detail_layer = 0;
        options.recorder = &thumbnails;
    }
    for (auto _ : state) {
        if (state.range(1) > 0) {  // idle between forwards, as between edits in the app
            state.PauseTiming();
            std::this_thread::sleep_for(std::chrono::milliseconds(state.range(1)));
            state.ResumeTiming();
        }
        Trace t = m.forward(in, options);
        benchmark::DoNotOptimize(t.main.layers.back().self_attn.weights.back().data());
    }
}
BENCHMARK(BM_LiveEditForward)->Args({0, 0})->Args({1, 0})->Args({1, 30})->Unit(benchmark::kMillisecond)->UseRealTime();

// A d_model edit's job: a fresh model and its first forward (as BM_LiveEditForward {1, 0}),
// whose products pack each weight's panels on the fly. Arg 1 times that forward alone
// (the model built outside the timing); arg 3 the model's second forward, which keeps the
// panels it packs (the next edit of a model: a heads edit, a new text); arg 2 a forward
// on kept panels (the model's third).
void BM_LiveEditJob(benchmark::State& state) {
    const ModelConfig c = parse_playground_spec("random:d_model=512,heads=8,layers=6");
    ForwardInput in;
    for (int i = 0; i < 64; ++i) in.ids.push_back(1 + i);
    TraceOptions options;
    options.scores = true;
    options.detail_layer = 0;
    for (auto _ : state) {
        if (state.range(0) > 0) state.PauseTiming();
        std::optional<Model> m(Model::random(c));
        const int before = state.range(0) == 3 ? 1 : state.range(0) == 2 ? 2 : 0;  // forwards outside the timing
        for (int run = 0; run < before; ++run) (void)m->forward(in, options);
        if (state.range(0) > 0) state.ResumeTiming();
        const Trace t = m->forward(in, options);
        benchmark::DoNotOptimize(t.main.layers.back().output.data());
        if (state.range(0) > 0) state.PauseTiming();
        m.reset();
        if (state.range(0) > 0) state.ResumeTiming();
    }
}
BENCHMARK(BM_LiveEditJob)->Arg(0)->Arg(1)->Arg(3)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// The part of BM_ModelRandom that initialises, and a heads edit
// (Model::with_heads: the weights shared, nothing copied).
void BM_InitWeights(benchmark::State& state) {
    const ModelConfig c = parse_playground_spec("random:d_model=512,heads=8,layers=6");
    for (auto _ : state) {
        ModelWeights w = init_weights(c);
        benchmark::DoNotOptimize(w.embed.data());
    }
}
BENCHMARK(BM_InitWeights)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ModelWithHeads(benchmark::State& state) {
    const Model m = Model::random(parse_playground_spec("random:d_model=512,heads=8,layers=6"));
    for (auto _ : state) {
        Model edited = m.with_heads(4);
        benchmark::DoNotOptimize(edited.weights().embed.data());
    }
}
BENCHMARK(BM_ModelWithHeads)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace hs

// The process's memory policy is set explicitly, as headscope's main does.
int main(int argc, char** argv) {
    hs::keep_freed_memory();
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
