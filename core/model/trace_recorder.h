#pragma once
// The Trace's own recorder (recorder.h): what the forward shows, kept as TraceOptions ask —
// each stack's input, every layer's output (hidden states), the per-head maps of the
// blocks the map budget keeps, and the named values TraceOptions::taps match.
#include <vector>

#include "core/model/recorder.h"
#include "core/model/trace.h"

namespace hs {

class TraceRecorder final : public Recorder {
public:
    // `trace` has its stacks' layers in place (a LayerTrace per layer, with cross_attn in
    // the decoder stack). resident: per attention block (main layers, then decoder layers)
    // whether its maps are kept; a block that is not gets HeadMaps::resident = false here.
    TraceRecorder(Trace& trace, const TraceOptions& options, const std::vector<bool>& resident);
    bool wants(const TapPoint& point) const override;
    void record(const TapPoint& point, const Eigen::Ref<const Matrix>& value) override;
    void record_maps(const TapPoint& point, const std::vector<Matrix>& maps) override;
    void take_maps(const TapPoint& point, std::vector<Matrix>& maps) override;

private:
    StackTrace& stack_of(const TapPoint& point);
    bool resident(const TapPoint& point) const;
    std::vector<Matrix>* slot(const TapPoint& point);

    Trace& trace_;
    const TraceOptions& options_;
    std::vector<bool> resident_;
};

}  // namespace hs
