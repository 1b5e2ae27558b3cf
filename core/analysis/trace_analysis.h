#pragma once
// Everything the "Analyze" action shows for one input, in one bundle: per-head metrics,
// role labels, the JSD similarity matrix with its most redundant pairs and MDS layout,
// and the attention rollout. The CLI `analyze` command and the app panels both use it.
#include <string>
#include <vector>

#include "core/analysis/head_labels.h"
#include "core/analysis/head_metrics.h"
#include "core/analysis/head_similarity.h"
#include "core/analysis/induction.h"
#include "core/analysis/rollout.h"
#include "core/source.h"

namespace hs {

struct TraceAnalysis {
    int layers = 0, heads = 0;            // L, H (head index n = layer·H + head)
    std::vector<HeadMetrics> metrics;     // N
    std::vector<HeadLabels> labels;       // N
    Eigen::MatrixXd jsd;                  // (N, N)
    std::vector<HeadPair> redundant;      // the most similar pairs, most similar first
    Eigen::MatrixXd mds;                  // (N, 2)
    Rollout rollout;
    bool has_induction = false;           // Metric::Induction filled in
};

struct AnalysisOptions {
    int redundant_pairs = 10;
    bool induction = true;                // needs a source that reads token ids
    InductionOptions induction_options;
    LabelThresholds thresholds;
};

// Analyses `trace`; when `source` is given (and reads token ids) also runs the induction
// input through it. Throws hs::Error when the trace has no per-head weights, and
// hs::InputError for a text of fewer than 2 tokens.
TraceAnalysis analyze_trace(const Trace& trace, const TraceSource* source = nullptr,
                            const AnalysisOptions& options = {});

// True when make_induction_input can build an input for this source.
bool supports_induction(const TraceSource& source);

}  // namespace hs
