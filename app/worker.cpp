#include "app/worker.h"

#include <algorithm>
#include <exception>

#include "core/error.h"

namespace hs {

Matrix downsample_map(const Matrix& m, int max_side) {
    const int rows = static_cast<int>(m.rows()), cols = static_cast<int>(m.cols());
    if (rows <= max_side && cols <= max_side) return m;
    const int out_r = std::min(rows, max_side), out_c = std::min(cols, max_side);
    // out(i, j) = mean of m over rows [i·R/out_r, (i+1)·R/out_r) × the same for columns.
    Matrix out = Matrix::Zero(out_r, out_c);
    for (int i = 0; i < out_r; ++i) {
        const int r0 = static_cast<int>(static_cast<long long>(i) * rows / out_r);
        const int r1 = static_cast<int>(static_cast<long long>(i + 1) * rows / out_r);
        for (int j = 0; j < out_c; ++j) {
            const int c0 = static_cast<int>(static_cast<long long>(j) * cols / out_c);
            const int c1 = static_cast<int>(static_cast<long long>(j + 1) * cols / out_c);
            out(i, j) = m.block(r0, c0, r1 - r0, c1 - c0).mean();
        }
    }
    return out;
}

namespace {

std::vector<std::vector<Matrix>> thumbs_of(const std::vector<LayerTrace>& layers, bool cross,
                                           float& lo, float& hi) {
    std::vector<std::vector<Matrix>> out;
    bool any = false;
    for (const LayerTrace& layer : layers) {
        const HeadMaps* maps = cross ? (layer.cross_attn ? &*layer.cross_attn : nullptr)
                                     : &layer.self_attn;
        std::vector<Matrix> heads;
        if (maps)
            for (const Matrix& w : maps->weights) {
                heads.push_back(downsample_map(w, TraceThumbnails::kThumbMax));
                if (w.size() == 0) continue;
                lo = any ? std::min(lo, w.minCoeff()) : w.minCoeff();
                hi = any ? std::max(hi, w.maxCoeff()) : w.maxCoeff();
                any = true;
            }
        out.push_back(std::move(heads));
    }
    return out;
}

}  // namespace

Worker::Worker() { thread_ = std::thread([this] { loop(); }); }

Worker::~Worker() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    latest_.fetch_add(1);  // cancels the running job at its next progress call
    wake_.notify_all();
    thread_.join();
}

std::uint64_t Worker::submit(ComputeRequest request) {
    std::uint64_t generation = 0;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        generation = latest_.fetch_add(1) + 1;
        pending_ = std::move(request);
    }
    wake_.notify_all();
    return generation;
}

std::optional<ComputeResult> Worker::take_result() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::optional<ComputeResult> out;
    out.swap(finished_);
    if (out && out->generation != latest_.load()) out.reset();  // superseded meanwhile
    return out;
}

bool Worker::idle() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return !busy_.load() && !pending_.has_value() && !finished_.has_value();
}

double Worker::busy_seconds() const {
    if (!busy_.load()) return 0.0;
    std::lock_guard<std::mutex> lock(mutex_);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

void Worker::loop() {
    for (;;) {
        ComputeRequest request;
        std::uint64_t generation = 0;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            wake_.wait(lock, [this] { return stop_ || pending_.has_value(); });
            if (stop_) return;
            request = std::move(*pending_);
            pending_.reset();
            generation = latest_.load();
            started_ = std::chrono::steady_clock::now();
            busy_ = true;
        }
        done_ = 0;
        total_ = 0;
        ComputeResult result = compute(request, generation);
        std::lock_guard<std::mutex> lock(mutex_);
        busy_ = pending_.has_value();
        // Cancelled or superseded jobs leave no result.
        if (result.generation != 0 && generation == latest_.load()) finished_ = std::move(result);
    }
}

ComputeResult Worker::compute(const ComputeRequest& request, std::uint64_t generation) {
    ComputeResult result;
    result.generation = generation;
    const auto t0 = std::chrono::steady_clock::now();
    const ProgressFn progress = [this, generation](int done, int total) {
        done_ = done;
        total_ = total;
        return latest_.load() == generation;
    };
    try {
        Trace trace;
        if (request.example) {
            trace = request.example->run();
            result.source_kind = "worked example";
        } else {
            if (!cached_source_ || cached_arg_ != request.model_arg) {
                cached_source_.reset();
                cached_arg_.clear();
                cached_source_ = open_source(request.model_arg);
                cached_arg_ = request.model_arg;
            }
            if (latest_.load() != generation) return ComputeResult{};
            trace = cached_source_->run(request.input, request.options, progress);
            result.source_kind = cached_source_->kind();
            result.parameter_count = cached_source_->parameter_count();
        }
        auto thumbs = std::make_shared<TraceThumbnails>();
        thumbs->self = thumbs_of(trace.main.layers, false, thumbs->lo[0], thumbs->hi[0]);
        if (trace.decoder) {
            thumbs->decoder_self = thumbs_of(trace.decoder->layers, false, thumbs->lo[1], thumbs->hi[1]);
            thumbs->decoder_cross = thumbs_of(trace.decoder->layers, true, thumbs->lo[2], thumbs->hi[2]);
        }
        result.trace = std::make_shared<const Trace>(std::move(trace));
        result.thumbnails = std::move(thumbs);
    } catch (const Cancelled&) {
        return ComputeResult{};
    } catch (const std::exception& e) {
        result.error = e.what();
    }
    result.milliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return result;
}

}  // namespace hs
