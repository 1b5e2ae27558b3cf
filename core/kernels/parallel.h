#pragma once
// One small thread pool for all of core (docs/PERFORMANCE.md). Between parallel_for calls
// its threads spin up to 5 ms, then wait passively (condition variable): the calls of
// one forward pass follow each other within a millisecond, and on these VMs a blocked
// thread's virtual CPU halts and costs ~0.1 ms to wake. Whoever finishes a job (the
// app's workers) calls park_threads(), so that the UI thread and the software
// rasteriser never fight a spinning pool. Matrix products inside a task run
// single-threaded (OpenBLAS is pinned to 1 thread), so there is exactly one pool.
#include <functional>

#include "core/kernels/gemm.h"
#include "core/tensor.h"

namespace hs {

// Threads that take part in parallel_for: hardware threads, or HEADSCOPE_THREADS if set
// (1 disables the pool).
int thread_count();

// Runs task(i) for every i in [0, n), spread over the pool; the calling thread takes
// part, and the call returns when every task is done. Tasks are claimed one at a time
// in order, so uneven tasks balance out. A call made from inside a task, or while
// another thread is using the pool, runs its tasks serially on the calling thread.
// The first exception thrown by a task is rethrown here after all tasks finish.
void parallel_for(int n, const std::function<void(int)>& task);

// No parallel work follows soon (a job is done): spinning pool threads block now instead
// of after their spin. The next parallel_for wakes them as usual.
void park_threads();

// c: (M, N) = a · bᵀ (+ bias on every row when bias is non-null), a: (M, K), b: (N, K) —
// the y = x·Wᵀ + b of every linear layer. Large products are split into column blocks
// of c (row blocks of b) run in parallel; each block is one single-threaded GEMM. They are
// whole 64-column panels run by the packed kernel at the SIMD level in use when b is a
// weight the packed-weight cache holds (core/kernels/packed_cache.h: the first product
// reads the weight as it is, the second packs each panel just before use and keeps them:
// gemm::nn_packing), and when kernels::matmul would transpose b before its product (no
// BLAS at this level, more than gemm::kDotRows rows: nn_packing keeping nothing);
// otherwise each block is kernels::matmul (matmul.h), the product training's backward uses too.
void matmul_nt(const Eigen::Ref<const Matrix>& a, const Eigen::Ref<const Matrix>& b,
               const Vector* bias, Eigen::Ref<Matrix> c);

// The same with b a weight left as its file stores it: whole 64-column panels of c per
// thread, each converted just before its product (gemm::nn_stored).
void matmul_nt(const Eigen::Ref<const Matrix>& a, const StoredMatrix& b, const Vector* bias, Eigen::Ref<Matrix> c);

// y = x · Wᵀ (+ bias) with W as the layer holds it: f32 `w`, or as stored when `stored` is
// non-null (a layer read for its products only, core/model/layer_source.h).
inline void linear(const Eigen::Ref<const Matrix>& x, const Matrix& w, const StoredMatrix* stored, const Vector* bias,
                   Eigen::Ref<Matrix> y) {
    if (stored)
        matmul_nt(x, *stored, bias, y);
    else
        matmul_nt(x, w, bias, y);
}

// c (M, N) = a (M, K) · bᵀ, b (N, K), by Eigen's product (OpenBLAS behind it when HeadScope
// links it), in column blocks over the pool: the BLAS side of the benchmarks' GEMM peak.
void matmul_nt_by_eigen(const Matrix& a, const Matrix& b, Matrix& c);

}  // namespace hs
