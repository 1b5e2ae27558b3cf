#include "core/analysis/trace_analysis.h"

#include "core/error.h"
#include "core/source.h"

namespace hs {

bool supports_induction(const TraceSource& source) {
    return source.model() != nullptr;
}

TraceAnalysis analyze_trace(const Trace& trace, const TraceSource* source, const AnalysisOptions& options) {
    // One token attends to itself alone: every head would read "self 1.00" and every pair
    // as redundant, confidently and meaninglessly (an empty text runs as BOS alone).
    if (trace.main.tokens.size() < 2)
        throw InputError("head metrics need a text of at least 2 tokens; this one has " +
                         std::to_string(trace.main.tokens.size()) + " (" +
                         (trace.main.tokens.empty() ? std::string("none") : trace.main.tokens.front()) +
                         "): type a sentence");
    TraceAnalysis a;
    a.metrics = compute_trace_metrics(trace);
    a.layers = trace.n_layers();
    a.heads = a.layers > 0 ? static_cast<int>(trace.main.layers.front().self_attn.weights.size()) : 0;
    if (options.induction && source && supports_induction(*source)) {
        add_induction_scores(*source, a.metrics, options.induction_options);
        a.has_induction = true;
    }
    a.labels = label_heads(a.metrics, options.thresholds);
    a.jsd = jsd_matrix(trace);
    a.redundant = most_redundant_pairs(a.jsd, options.redundant_pairs);
    a.mds = mds_layout(a.jsd);
    a.rollout = attention_rollout(trace);
    return a;
}

}  // namespace hs
