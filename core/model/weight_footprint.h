#pragma once
// What a model's weights take, in parameters and in bytes as stored: the memory plan's
// input (core/io/memory_budget.h) and what a model read layer by layer counts its
// parameters from (core/model/layer_source.h).

namespace hs {

struct WeightFootprint {
    double params = 0;             // all of them
    double stack_params = 0;       // of the layers read layer by layer, together
    double layer_params = 0;       // the largest layer's
    double layer_stored_bytes = 0; // the largest layer's, as stored in the file
};

}  // namespace hs
