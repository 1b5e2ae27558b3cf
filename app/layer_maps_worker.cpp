#include "app/layer_maps_worker.h"

#include <chrono>
#include <exception>
#include <stdexcept>

namespace hs {

namespace {

// Runs TraceSource::layer_maps for the request's block (weights and scores: the hover
// readout shows them beside the weights).
std::optional<LayerMapsResult> recompute(const LayerMapsRequest& job, const JobControl&) {
    LayerMapsResult result;
    result.trace = job.trace;
    result.block = job.block;
    const auto t0 = std::chrono::steady_clock::now();
    try {
        if (!job.source) throw std::runtime_error("the model this trace came from is gone");
        HeadMaps maps = job.source->layer_maps(*job.trace, job.block, true);
        fill_map_ranges(maps);
        result.maps = std::make_shared<const HeadMaps>(std::move(maps));
    } catch (const std::exception& e) {
        result.error = e.what();
    }
    result.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return result;
}

}  // namespace

LayerMapsWorker::LayerMapsWorker() : jobs_(recompute) {}

}  // namespace hs
