#include "core/model/trace_recorder.h"

#include <utility>

namespace hs {

TraceRecorder::TraceRecorder(Trace& trace, const TraceOptions& options, const std::vector<bool>& resident)
    : trace_(trace), options_(options), resident_(resident) {
    const std::size_t main_layers = trace.main.layers.size();
    for (std::size_t i = 0; i < resident_.size(); ++i) {
        if (resident_[i]) continue;
        if (i < main_layers) {
            trace.main.layers[i].self_attn.resident = false;
        } else {
            LayerTrace& lt = trace.decoder->layers[i - main_layers];
            lt.self_attn.resident = false;
            lt.cross_attn->resident = false;
        }
    }
}

StackTrace& TraceRecorder::stack_of(const TapPoint& point) {
    return point.in_decoder() ? *trace_.decoder : trace_.main;
}

bool TraceRecorder::resident(const TapPoint& point) const {
    const std::size_t block = static_cast<std::size_t>(point.layer) + (point.in_decoder() ? trace_.main.layers.size() : 0);
    return block < resident_.size() && resident_[block];
}

bool TraceRecorder::wants(const TapPoint& point) const {
    if (point.layer < 0 || !resident(point)) return false;
    const std::string_view part = point.part();
    return (part == "weights" && options_.head_weights) || (part == "scores" && options_.scores);
}

void TraceRecorder::record(const TapPoint& point, const Eigen::Ref<const Matrix>& value) {
    if (point.layer < 0 && point.name == "embed") stack_of(point).input = value;
    if (point.layer >= 0 && point.name == "out" && options_.hidden_states)
        stack_of(point).layers[static_cast<std::size_t>(point.layer)].output = value;
    if (options_.taps.empty() || is_on_demand(point)) return;
    std::string name = point.full_name();
    for (const std::string& pattern : options_.taps)
        if (tap_matches(pattern, name)) {
            trace_.taps.push_back({std::move(name), Matrix(value)});
            return;
        }
}

// Where the trace keeps the maps at `point`, or null when it does not keep them.
std::vector<Matrix>* TraceRecorder::slot(const TapPoint& point) {
    if (!wants(point)) return nullptr;
    LayerTrace& lt = stack_of(point).layers[static_cast<std::size_t>(point.layer)];
    HeadMaps& block = point.block() == "cross" ? *lt.cross_attn : lt.self_attn;
    return point.part() == "weights" ? &block.weights : &block.scores;
}

void TraceRecorder::record_maps(const TapPoint& point, const std::vector<Matrix>& maps) {
    if (std::vector<Matrix>* kept = slot(point)) *kept = maps;
}

void TraceRecorder::take_maps(const TapPoint& point, std::vector<Matrix>& maps) {
    if (std::vector<Matrix>* kept = slot(point)) *kept = std::move(maps);
}

}  // namespace hs
