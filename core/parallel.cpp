#include "core/parallel.h"

#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"

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

// Keeps freed blocks in the heap instead of returning them to the kernel: a forward pass
// allocates the same shapes again and again, and first touch of freshly mapped memory
// costs a page fault per 4 KiB (about 10 µs each on these VMs). Blocks up to 32 MiB (a
// 2048 × 2048 float map is 16 MiB) come from the heap and are reused.
void keep_freed_memory() {
    mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, 512 * 1024 * 1024);
}

class Pool {
public:
    Pool() {
        keep_freed_memory();
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

    void run(int n, const std::function<void(int)>& task) {
        if (n <= 0) return;
        if (n == 1 || t_inside_task || workers_.empty() || !busy_.try_lock()) {
            run_serially(n, task);
            return;
        }
        std::lock_guard<std::mutex> busy(busy_, std::adopt_lock);
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
        // The other threads usually finish within microseconds of this one: spin briefly
        // before sleeping (a futex wake-up costs about as much as a 128-token head).
        spin_until([this] { return working_.load(std::memory_order_acquire) == 0; });
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
            // A forward pass calls parallel_for several times per layer: stay awake for a
            // few microseconds before blocking, then wait passively.
            spin_until([&] { return generation_.load(std::memory_order_acquire) != seen; });
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

    // Busy-waits at most ~20 µs (a bounded number of pause instructions) for `ready`.
    template <typename Ready>
    static void spin_until(const Ready& ready) {
        for (int i = 0; i < kSpins && !ready(); ++i) pause();
    }
    static void pause() {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
    static constexpr int kSpins = 2000;

    std::vector<std::thread> workers_;
    std::mutex busy_;  // one parallel_for at a time uses the workers
    std::mutex m_;
    std::condition_variable wake_, done_;
    const std::function<void(int)>* task_ = nullptr;
    int n_ = 0;
    std::atomic<int> next_{0};
    std::atomic<int> working_{0};  // workers that have not finished the current generation
    std::atomic<std::uint64_t> generation_{0};
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

void matmul_nt(const Eigen::Ref<const Matrix>& a, const Eigen::Ref<const Matrix>& b,
               const Vector* bias, Eigen::Ref<Matrix> c, const gemm::PackedWeights* packed) {
    const Eigen::Index M = a.rows(), N = b.rows(), K = a.cols();
    if (b.cols() != K || c.rows() != M || c.cols() != N || (bias && bias->size() != N))
        throw Error("matmul_nt: cannot multiply (" + std::to_string(M) + " × " +
                    std::to_string(K) + ") by the transpose of (" + std::to_string(N) + " × " +
                    std::to_string(b.cols()) + ") into (" + std::to_string(c.rows()) + " × " +
                    std::to_string(c.cols()) + ")" + (bias ? " with a bias" : ""));
    // Below ~1M multiply-adds a wake-up costs more than the second core saves.
    const double macs = double(M) * double(N) * double(K);
    if (packed && packed->n == N && packed->k == K) {
        // Contiguous runs of panels per thread: c[:, 64·p0 : 64·p1] = a · W[p0:p1]ᵀ + b
        const int panels = packed->panels();
        const int parts = macs < 1e6 ? 1 : std::min(thread_count(), panels);
        const auto run = [&](int p) {
            const int p0 = panels * p / parts, p1 = panels * (p + 1) / parts;
            gemm::nn_packed(static_cast<int>(M), a.data(), static_cast<int>(a.outerStride()),
                            *packed, p0, p1 - p0, bias ? bias->data() : nullptr, c.data(),
                            static_cast<int>(c.outerStride()));
        };
        if (parts <= 1)
            run(0);
        else
            parallel_for(parts, run);
        return;
    }
    const int parts = macs < 1e6 ? 1 : std::min<int>(thread_count(), int((N + 15) / 16));
    // Column blocks a multiple of 16 wide (one AVX-512 register of floats).
    const Eigen::Index width = parts <= 1 ? N : ((N + parts - 1) / parts + 15) / 16 * 16;
    const auto block = [&](int p) {
        const Eigen::Index n0 = p * width, n = std::min(N, n0 + width) - n0;
        if (n <= 0) return;
        auto c_p = c.middleCols(n0, n);  // (M, n) = a · b[n0:n0+n]ᵀ
        c_p.noalias() = a * b.middleRows(n0, n).transpose();
        if (bias) c_p.rowwise() += bias->segment(n0, n).transpose();
    };
    if (parts <= 1)
        block(0);
    else
        parallel_for(parts, block);
}

}  // namespace hs
