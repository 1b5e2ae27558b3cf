#pragma once
// Background recompute of one attention block's maps that the forward dropped to stay
// within TraceOptions::map_budget_bytes (issue 6, "Memory"): the UI asks for the block
// the user selected, a thread runs TraceSource::layer_maps from the trace's stored hidden
// states, and the UI takes the result when it is ready, never waiting on the thread.
// The newest request wins; one block takes ~0.1–0.2 s at 2048 tokens (d_model 768).
#include <memory>
#include <optional>
#include <string>

#include "app/latest_wins.h"
#include "core/source.h"
#include "core/model/trace.h"

namespace hs {

struct LayerMapsRequest {
    std::shared_ptr<const TraceSource> source;
    std::shared_ptr<const Trace> trace;
    HeadRef block;  // head ignored
};

struct LayerMapsResult {
    std::shared_ptr<const Trace> trace;       // the trace the maps belong to
    HeadRef block;
    std::shared_ptr<const HeadMaps> maps;     // weights and scores; null on error
    std::string error;
    double milliseconds = 0.0;
};

class LayerMapsWorker {
public:
    LayerMapsWorker();

    // Queues the request, replacing any queued one (a running one finishes first; its
    // result is then dropped as superseded).
    void submit(LayerMapsRequest request) { jobs_.submit(std::move(request)); }
    // The newest finished result not yet taken.
    std::optional<LayerMapsResult> take_result() { return jobs_.take_result(); }
    // Queued or running.
    bool busy() const { return jobs_.busy(); }

private:
    LatestWins<LayerMapsRequest, LayerMapsResult> jobs_;
};

}  // namespace hs
