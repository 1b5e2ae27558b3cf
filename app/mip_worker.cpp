#include "app/mip_worker.h"

#include "core/image/box_mean.h"

namespace hs {

MipWorker::MipWorker()
    : jobs_([](const MipRequest& r, const JobControl&) -> std::optional<MipResult> {
          return MipResult{r.texture_version, mip_chain(*r.map)};
      }) {}

}  // namespace hs
