#include "core/image/matrix_summary.h"

#include <algorithm>
#include <limits>

#include "core/image/box_mean.h"
#include "core/image/heatmap_draw.h"

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
    return s;
}

namespace {

void add(MatrixSummaries& out, const Matrix& m) {
    if (m.size() > 0) out.emplace(&m, summarize_matrix(m));
}

void add_all(MatrixSummaries& out, const std::vector<Matrix>& ms) {
    for (const Matrix& m : ms) add(out, m);
}

void add_stack(MatrixSummaries& out, const StackTrace& stack) {
    add(out, stack.input);
    for (const LayerTrace& layer : stack.layers) add(out, layer.output);
}

}  // namespace

MatrixSummaries summarize_shown_matrices(const Trace& trace) {
    MatrixSummaries out;
    if (trace.steps) {
        const AttentionSteps& st = *trace.steps;
        for (const Matrix* m : {&st.x_query, &st.x_memory, &st.w_in, &st.qkv, &st.q, &st.k, &st.v, &st.concat,
                                &st.w_out, &st.w_o, &st.output})
            add(out, *m);
        for (const std::vector<Matrix>* ms : {&st.w_q_heads, &st.w_k_heads, &st.w_v_heads, &st.q_heads, &st.k_heads,
                                              &st.v_heads, &st.raw_scores,
                                              &st.scaled_scores, &st.masked_scores, &st.weights, &st.head_outputs})
            add_all(out, *ms);
    }
    add_stack(out, trace.main);
    if (trace.decoder) add_stack(out, *trace.decoder);
    return out;
}

}  // namespace hs
