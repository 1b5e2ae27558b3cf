#pragma once
// What a window needs to show a matrix as a colour texture, computed off its UI thread:
// the finite value range (colour scale) and, for a large matrix, its mipmap levels
// (a zoomed-out view averages cells instead of skipping them). The app's trace worker
// summarises every matrix of a trace that the window draws (summarize_shown_matrices).
#include <unordered_map>
#include <vector>

#include "core/model/trace.h"
#include "core/tensor.h"

namespace hs {

// Matrices larger than this on a side get mip levels.
constexpr int kMipLevelsAbove = 1024;

struct MatrixSummary {
    float lo = 0.0f, hi = 0.0f;       // finite min and max (both 0 when no value is finite)
    std::vector<Matrix> mip_levels;   // mip_chain(m) when max(rows, cols) > kMipLevelsAbove
    // The ± colour bound of each mip level: min(max |v|, 2.5 · RMS) over its finite values.
    // Averages of signed values shrink level by level (level 0's bound left a zoomed-out
    // weight matrix white), and a deep level's averages are near-Gaussian: their max is an
    // outlier, 2.5 RMS keeps the typical cell visible (~1 % saturate).
    std::vector<float> mip_bound;
};

MatrixSummary summarize_matrix(const Matrix& m);

// Keyed by the matrix's address inside an immutable Trace (shared_ptr<const Trace>).
using MatrixSummaries = std::unordered_map<const Matrix*, MatrixSummary>;

// Every matrix of `trace` the window draws as a texture: the recorded attention steps
// (inputs, W_in, QKV, Q/K/V and their head blocks, scores at each step, weights, head
// outputs, concat, W_o, output) and the hidden states of each stack (input, each layer's
// output).
MatrixSummaries summarize_shown_matrices(const Trace& trace);

}  // namespace hs
