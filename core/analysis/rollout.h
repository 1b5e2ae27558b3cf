#pragma once
// Attention rollout (Abnar & Zuidema 2020) over the main stack's self-attention:
//   Â_l = rownorm(mean_h A_l + I)     (T, T): heads averaged, residual added, rows re-normalised
//   R   = Â_L ⋯ Â_2 Â_1               (T, T): R_ij = how much input token j flows into position i
// Every row of R sums to 1 (a product of row-stochastic matrices). A fully masked query row
// of mean_h A_l contributes only its identity entry, so Â_l stays row-stochastic.
#include <vector>

#include "core/tensor.h"
#include "core/model/trace.h"

namespace hs {

struct Rollout {
    Matrix joint;      // R (T, T)
    Vector last_row;   // R's last row (T): what the last position (a decoder LM's next-token
                       // prediction) draws from each input token
    Vector mean_row;   // mean of R's rows (T): average flow from each input token
    Vector bars;       // the per-token bars shown: last_row for causal models, else mean_row
};

// One layer's Â_l from its head maps (all (T, T)). Throws hs::Error on empty or non-square maps.
Matrix rollout_layer(const std::vector<Matrix>& head_maps);

// R over layers [0, up_to] (−1: all layers). Throws hs::Error when the trace has no head weights.
Rollout attention_rollout(const Trace& trace, int up_to = -1);

}  // namespace hs
