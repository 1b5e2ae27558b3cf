#include "core/image/matrix_summary.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/image/box_mean.h"
#include "core/image/heatmap_draw.h"
#include "core/kernels/parallel.h"

namespace hs {

MatrixSummary summarize_matrix(const Matrix& m) {
    MatrixSummary s;
    float lo = std::numeric_limits<float>::infinity(), hi = -lo;
    detail::finite_min_max(m, lo, hi);
    if (lo <= hi) {
        s.lo = lo;
        s.hi = hi;
    }
    if (std::max(m.rows(), m.cols()) > kMipLevelsAbove) s.mip_levels = mip_chain(m);
    for (const Matrix& level : s.mip_levels) {
        double max_abs = 0.0, squares = 0.0;
        long long finite = 0;
        for (const float v : level.reshaped())
            if (std::isfinite(v)) {
                max_abs = std::max(max_abs, std::fabs(double(v)));
                squares += double(v) * double(v);
                ++finite;
            }
        const double rms = finite ? std::sqrt(squares / double(finite)) : 0.0;
        s.mip_bound.push_back(static_cast<float>(std::min(max_abs, 2.5 * rms)));
    }
    return s;
}

namespace {

// The matrices to summarise, listed first so that their summaries can be made in parallel.
void add(std::vector<const Matrix*>& out, const Matrix& m) {
    if (m.size() > 0) out.push_back(&m);
}

void add_all(std::vector<const Matrix*>& out, const std::vector<Matrix>& ms) {
    for (const Matrix& m : ms) add(out, m);
}

void add_stack(std::vector<const Matrix*>& out, const StackTrace& stack) {
    add(out, stack.input);
    for (const LayerTrace& layer : stack.layers) add(out, layer.output);
}

}  // namespace

MatrixSummaries summarize_shown_matrices(const Trace& trace) {
    std::vector<const Matrix*> shown;
    if (trace.steps) {
        const AttentionSteps& st = *trace.steps;
        for (const Matrix* m : {&st.x_query, &st.x_memory, &st.w_in, &st.qkv, &st.kv_memory, &st.q, &st.k, &st.v, &st.concat,
                                &st.w_out, &st.w_o, &st.output})
            add(shown, *m);
        for (const std::vector<Matrix>* ms : {&st.w_q_heads, &st.w_k_heads, &st.w_v_heads, &st.q_heads, &st.k_heads,
                                              &st.v_heads, &st.raw_scores,
                                              &st.scaled_scores, &st.masked_scores, &st.weights, &st.head_outputs})
            add_all(shown, *ms);
    }
    add_stack(shown, trace.main);
    if (trace.decoder) add_stack(shown, *trace.decoder);
    // One job per matrix (W_in and its mip chain at d_model 512 is the largest).
    std::vector<MatrixSummary> summaries(shown.size());
    parallel_for(static_cast<int>(shown.size()),
                 [&](int i) { summaries[static_cast<std::size_t>(i)] = summarize_matrix(*shown[static_cast<std::size_t>(i)]); });
    MatrixSummaries out;
    for (std::size_t i = 0; i < shown.size(); ++i) out.emplace(shown[i], std::move(summaries[i]));
    return out;
}

}  // namespace hs
