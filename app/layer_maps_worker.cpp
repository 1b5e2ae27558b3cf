#include "app/layer_maps_worker.h"

#include <chrono>
#include <exception>
#include <stdexcept>

#include "core/kernels/parallel.h"

namespace hs {

LayerMapsWorker::LayerMapsWorker() : thread_([this] { loop(); }) {}

LayerMapsWorker::~LayerMapsWorker() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

void LayerMapsWorker::submit(LayerMapsRequest request) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        pending_ = std::move(request);
    }
    wake_.notify_all();
}

std::optional<LayerMapsResult> LayerMapsWorker::take_result() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::optional<LayerMapsResult> out = std::move(finished_);
    finished_.reset();
    return out;
}

bool LayerMapsWorker::busy() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return running_ || pending_.has_value();
}

void LayerMapsWorker::loop() {
    for (;;) {
        LayerMapsRequest job;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            wake_.wait(lock, [this] { return stop_ || pending_.has_value(); });
            if (stop_) return;
            job = std::move(*pending_);
            pending_.reset();
            running_ = true;
        }
        LayerMapsResult result;
        result.trace = job.trace;
        result.block = job.block;
        const auto t0 = std::chrono::steady_clock::now();
        try {
            if (!job.source) throw std::runtime_error("the model this trace came from is gone");
            // Scores too: the hover readout shows them beside the weights.
            result.maps = std::make_shared<const HeadMaps>(
                job.source->layer_maps(*job.trace, job.block, true));
        } catch (const std::exception& e) {
            result.error = e.what();
        }
        park_threads();  // the pool stops spinning (core/kernels/parallel.h)
        result.milliseconds =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        std::lock_guard<std::mutex> lock(mutex_);
        running_ = false;
        if (!pending_) finished_ = std::move(result);  // a newer request makes this stale
    }
}

}  // namespace hs
