#pragma once
// The CPU's multiply-add ceiling at the SIMD level in use: the most FLOP/s any float
// kernel can reach there, since a GEMM, the attention products and the norms are all
// multiply-adds at best. `headscope bench` times it beside the GEMM peak, so a forward's
// time can be read against both: the GEMM peak is what a blocked product reaches, the
// ceiling what the arithmetic units allow (docs/PERFORMANCE.md, "How close to the metal").
#include <cstdint>

namespace hs::kernels {

// What one call of multiply_add_chains computed.
struct MultiplyAddRun {
    double sum = 0.0;        // Σ over chains and lanes of the final values (so nothing is dead code)
    std::int64_t flops = 0;  // 2 per lane per multiply-add: chains · lanes · steps · 2
    int lanes = 0;           // floats per register at the level that ran
};

// kChains independent chains of `steps` vector multiply-adds each, a ← a·b + c, chain j
// starting at a = j in every lane: enough chains in flight to cover the multiply-add
// latency on every x86-64 core, each a whole register of the level in use (16 floats at
// avx512, 8 at avx2; at generic 1 where Highway compiles a scalar level (1.0), 4 where its
// generic level is the SSE2 baseline (1.2 and later)). Nothing else runs in the loop, so steps / time is the
// level's multiply-add throughput on one thread.
inline constexpr int kChains = 12;
MultiplyAddRun multiply_add_chains(std::int64_t steps, float b, float c);

}  // namespace hs::kernels
