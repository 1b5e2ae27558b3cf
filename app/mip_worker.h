#pragma once
// The mip levels of the selected attention map when it is larger than kMipLevelsAbove
// (a 2048-token map: 4 M cells), averaged on a thread (core's mip_chain) instead of the
// UI thread: the heatmap shows level 0 at once and gains its zoomed-out levels when they
// arrive (TraceView::sync_textures). The newest selection wins.
#include <cstdint>
#include <memory>
#include <vector>

#include "app/latest_wins.h"
#include "core/tensor.h"

namespace hs {

struct MipRequest {
    std::shared_ptr<const Matrix> map;  // aliases the trace (or recomputed block) holding it
    std::uint64_t texture_version = 0;  // of the texture level 0 went into
};

struct MipResult {
    std::uint64_t texture_version = 0;
    std::vector<Matrix> levels;  // mip_chain(*map)
};

class MipWorker {
public:
    MipWorker();
    void submit(MipRequest request) { jobs_.submit(std::move(request)); }
    std::optional<MipResult> take_result() { return jobs_.take_result(); }
    // Nothing queued, running or waiting to be taken.
    bool idle() const { return jobs_.idle(); }

private:
    LatestWins<MipRequest, MipResult> jobs_;
};

}  // namespace hs
