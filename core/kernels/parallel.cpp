#include "core/kernels/parallel.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/kernels/matmul.h"
#include "core/kernels/packed_cache.h"

#ifdef HEADSCOPE_HAVE_OPENBLAS
extern "C" void openblas_set_num_threads(int num_threads);
#endif

namespace hs {

namespace {

thread_local bool t_inside_task = false;  // nested parallel_for runs serially

int configured_threads() {
    if (const char* env = std::getenv("HEADSCOPE_THREADS")) {
        const int n = std::atoi(env);
        if (n >= 1) return std::min(n, 256);
    }
    return std::max(1u, std::thread::hardware_concurrency());
}

class Pool {
public:
    Pool() {
#ifdef HEADSCOPE_HAVE_OPENBLAS
        openblas_set_num_threads(1);  // one pool only: GEMMs inside tasks stay serial
#endif
        const int n = configured_threads();
        for (int i = 1; i < n; ++i) workers_.emplace_back([this] { work(); });
    }
    ~Pool() {
        {
            std::lock_guard<std::mutex> lock(m_);
            stop_ = true;
        }
        wake_.notify_all();
        for (std::thread& t : workers_) t.join();
    }
    int size() const { return static_cast<int>(workers_.size()) + 1; }
    void park() { parked_.store(true, std::memory_order_relaxed); }

    void run(int n, const std::function<void(int)>& task) {
        if (n <= 0) return;
        if (n == 1 || t_inside_task || workers_.empty() || !busy_.try_lock()) {
            run_serially(n, task);
            return;
        }
        std::lock_guard<std::mutex> busy(busy_, std::adopt_lock);
        parked_.store(false, std::memory_order_relaxed);
        {
            std::lock_guard<std::mutex> lock(m_);
            task_ = &task;
            n_ = n;
            next_.store(0);
            working_.store(static_cast<int>(workers_.size()));
            error_ = nullptr;
            generation_.fetch_add(1, std::memory_order_release);
        }
        wake_.notify_all();
        claim_tasks();
        // The other threads usually finish their last task soon after this one: spin up to
        // kJoinSpin before sleeping (waking this thread from a halted vCPU costs more than
        // a task), but not kSpin: a preempted worker may need this core to finish. With
        // 50 µs a d_model edit's model build (≈ 100 short tasks) had p95 18–23 ms, with
        // 2 ms 13 ms.
        spin_until([this] { return working_.load(std::memory_order_acquire) == 0; }, kJoinSpin);
        std::unique_lock<std::mutex> lock(m_);
        done_.wait(lock, [this] { return working_.load() == 0; });
        task_ = nullptr;
        if (error_) std::rethrow_exception(error_);
    }

private:
    static void run_serially(int n, const std::function<void(int)>& task) {
        for (int i = 0; i < n; ++i) task(i);
    }

    // Claims tasks one at a time until none are left.
    void claim_tasks() {
        t_inside_task = true;
        for (int i = next_.fetch_add(1); i < n_; i = next_.fetch_add(1)) {
            try {
                (*task_)(i);
            } catch (...) {
                std::lock_guard<std::mutex> lock(error_m_);
                if (!error_) error_ = std::current_exception();
            }
        }
        t_inside_task = false;
    }

    void work() {
        std::uint64_t seen = 0;
        for (;;) {
            // A forward pass calls parallel_for several times per layer: stay awake up to
            // kSpin before blocking, then wait passively.
            spin_until(
                [&] {
                    return generation_.load(std::memory_order_acquire) != seen ||
                           parked_.load(std::memory_order_relaxed);
                },
                kSpin);
            {
                std::unique_lock<std::mutex> lock(m_);
                wake_.wait(lock, [&] { return stop_ || generation_.load() != seen; });
                if (stop_) return;
                seen = generation_.load();
            }
            claim_tasks();
            std::lock_guard<std::mutex> lock(m_);
            if (working_.fetch_sub(1) == 1) done_.notify_one();
        }
    }

    // Busy-waits up to `limit` for `ready`, checking the clock every 32 pauses. Workers
    // spin kSpin between calls: on these VMs a blocked thread lets its virtual CPU halt,
    // and waking it after an idle spell costs ~0.1 ms per call (docs/PERFORMANCE.md, Core).
    template <typename Ready>
    static void spin_until(const Ready& ready, std::chrono::microseconds limit) {
        const auto until = std::chrono::steady_clock::now() + limit;
        while (!ready()) {
            for (int i = 0; i < 32; ++i) pause();
            if (ready() || std::chrono::steady_clock::now() >= until) return;
        }
    }
    static void pause() {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
    static constexpr std::chrono::microseconds kSpin{5000};     // workers, between calls
    static constexpr std::chrono::microseconds kJoinSpin{2000};  // the caller, for the others to finish

    std::vector<std::thread> workers_;
    std::mutex busy_;  // one parallel_for at a time uses the workers
    std::mutex m_;
    std::condition_variable wake_, done_;
    const std::function<void(int)>* task_ = nullptr;
    int n_ = 0;
    std::atomic<int> next_{0};
    std::atomic<int> working_{0};  // workers that have not finished the current generation
    std::atomic<std::uint64_t> generation_{0};
    std::atomic<bool> parked_{false};  // park_threads(): stop spinning until the next run
    bool stop_ = false;
    std::mutex error_m_;
    std::exception_ptr error_;
};

Pool& pool() {
    static Pool p;
    return p;
}

}  // namespace

int thread_count() { return pool().size(); }

void parallel_for(int n, const std::function<void(int)>& task) { pool().run(n, task); }

void park_threads() { pool().park(); }

namespace {

// c (M, N) = a (M, K) · W (N, Kw)ᵀ + bias needs Kw = K and a bias of N; `stored`: W is a
// StoredMatrix, for the message.
void require_nt_shapes(const Eigen::Ref<const Matrix>& a, Eigen::Index N, Eigen::Index Kw, const Vector* bias,
                       const Eigen::Ref<Matrix>& c, bool stored) {
    const Eigen::Index M = a.rows(), K = a.cols();
    if (Kw != K || c.rows() != M || c.cols() != N || (bias && bias->size() != N))
        throw Error("matmul_nt: cannot multiply (" + std::to_string(M) + " × " + std::to_string(K) +
                    ") by the transpose of " + (stored ? "a stored " : "") + "(" + std::to_string(N) + " × " +
                    std::to_string(Kw) + ") into (" + std::to_string(c.rows()) + " × " + std::to_string(c.cols()) +
                    ")" + (bias ? " with a bias" : ""));
}

// The N columns of c as 64-column panels, in `parts` contiguous runs, one per thread:
// product(p0, count) writes c[:, 64·p0 : 64·(p0 + count)].
void over_panel_runs(Eigen::Index N, int parts, const std::function<void(int, int)>& product) {
    const int panels = static_cast<int>((N + gemm::kPanel - 1) / gemm::kPanel);
    parts = std::max(1, std::min(parts, panels));
    const auto run = [&](int p) {
        const int p0 = panels * p / parts, p1 = panels * (p + 1) / parts;
        product(p0, p1 - p0);
    };
    if (parts <= 1)
        run(0);
    else
        parallel_for(parts, run);
}

}  // namespace

void matmul_nt(const Eigen::Ref<const Matrix>& a, const Eigen::Ref<const Matrix>& b,
               const Vector* bias, Eigen::Ref<Matrix> c) {
    const Eigen::Index M = a.rows(), N = b.rows(), K = a.cols();
    require_nt_shapes(a, N, b.cols(), bias, c, false);
    // Below ~1M multiply-adds a wake-up costs more than the second core saves.
    const double macs = double(M) * double(N) * double(K);
    // A weight the cache holds, or one it does not whenever kernels::matmul would transpose
    // it first (the packed kernel's first product is 1.1-1.8x as fast, every shape of
    // BM_LinearKernel at AVX-512; at AVX2 OpenBLAS is 1.02-1.1x faster than it).
    WeightPanels weight = panels_for_product(b);
    if (weight.registered() || (M > gemm::kDotRows && K > 0 && !kernels::hands_products_to_blas())) {
        // Contiguous runs of 64-column panels per thread: c[:, 64·p0 : 64·p1] = a · W[p0:p1]ᵀ + b,
        // from the kept panels, or through gemm::nn_packing (packing into the cache on
        // the weight's second product; on its first, or for a weight the cache does not
        // hold, packing panels into a per-thread buffer or reading W as it is).
        const float* bias_data = bias ? bias->data() : nullptr;
        const int m = static_cast<int>(M), lda = static_cast<int>(a.outerStride()), ldc = static_cast<int>(c.outerStride());
        over_panel_runs(N, macs < 1e6 ? 1 : thread_count(), [&](int p0, int count) {
            if (weight.panels())
                gemm::nn_packed(m, a.data(), lda, *weight.panels(), p0, count, bias_data, c.data(), ldc);
            else
                gemm::nn_packing(m, a.data(), lda, b.data(), static_cast<int>(N), static_cast<int>(K),
                                 static_cast<int>(b.outerStride()), p0, count, bias_data, c.data(), ldc,
                                 weight.filling());
        });
        weight.publish();  // a filling product wrote every panel
        return;
    }
    const int parts = macs < 1e6 ? 1 : std::min<int>(thread_count(), int((N + 15) / 16));
    // Column blocks a multiple of 16 wide (one AVX-512 register of floats).
    const Eigen::Index width = parts <= 1 ? N : ((N + parts - 1) / parts + 15) / 16 * 16;
    const auto block = [&](int p) {
        const Eigen::Index n0 = p * width, n = std::min(N, n0 + width) - n0;
        if (n <= 0) return;
        auto c_p = c.middleCols(n0, n);  // (M, n) = a · b[n0:n0+n]ᵀ, by the fastest code of the level
        kernels::matmul(a, kernels::Op::Plain, b.middleRows(n0, n), kernels::Op::Transposed, c_p);
        if (bias) c_p.rowwise() += bias->segment(n0, n).transpose();
    };
    if (parts <= 1)
        block(0);
    else
        parallel_for(parts, block);
}

void matmul_nt(const Eigen::Ref<const Matrix>& a, const StoredMatrix& b, const Vector* bias, Eigen::Ref<Matrix> c) {
    const Eigen::Index M = a.rows(), N = b.rows, K = a.cols();
    require_nt_shapes(a, N, b.cols, bias, c, true);
    if (M == 0 || N == 0) return;
    if (K == 0) {  // a product of no inputs: the bias alone
        if (bias) c.rowwise() = bias->transpose();
        else c.setZero();
        return;
    }
    // Converting W costs about as much as 4 rows of products: one row is worth two threads.
    const double macs = double(std::max<Eigen::Index>(M, 4)) * double(N) * double(K);
    const int lda = static_cast<int>(a.outerStride()), ldc = static_cast<int>(c.outerStride());
    const float* bias_data = bias ? bias->data() : nullptr;
    // Up to kDotRows rows (the LM head's last position): W's rows dotted as they lie, no
    // panel laid out (at Llama-768's 32000-row head, the layout was most of the product).
    over_panel_runs(N, macs < 1e6 ? 1 : thread_count(), [&](int p0, int count) {
        if (M <= gemm::kDotRows)
            gemm::nt_stored(static_cast<int>(M), a.data(), lda, b, p0, count, bias_data, c.data(), ldc);
        else
            gemm::nn_stored(static_cast<int>(M), a.data(), lda, b, p0, count, bias_data, c.data(), ldc);
    });
    // Rows read from a file's map: a file cut short under the map within a page reads as
    // zeros there, not a SIGBUS; if the file now ends before W's rows, that is an error.
    b.require_still_in_file();
}

void matmul_nt_by_eigen(const Matrix& a, const Matrix& b, Matrix& c) {
    const int parts = thread_count();
    const Eigen::Index width = (b.rows() + parts - 1) / parts;
    parallel_for(parts, [&](int p) {
        const Eigen::Index n0 = p * width, n = std::min(b.rows(), n0 + width) - n0;
        if (n > 0) c.middleCols(n0, n).noalias() = a * b.middleRows(n0, n).transpose();
    });
}

}  // namespace hs
