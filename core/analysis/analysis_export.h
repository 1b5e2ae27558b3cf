#pragma once
// The metrics table as CSV and the analysis as JSON (CLI `analyze`, the app's export).
// CSV: one row per (layer, head), columns
//   layer,head,label,labels,<every metric>[,<metric>_std … ,sentences]
// where `label` is the primary role, `labels` every role that fired ("a; b"), undefined
// values are empty fields, and the _std columns appear for corpus results only.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/analysis/corpus.h"
#include "core/analysis/trace_analysis.h"

namespace hs {

std::string metrics_csv(const std::vector<HeadMetrics>& metrics, const std::vector<HeadLabels>& labels);
std::string corpus_csv(const CorpusResult& corpus, const std::vector<HeadLabels>& labels);

// {"model", "tokens", "layers", "heads", "metric_names", "heads_table": [{"layer","head",
//  "label","labels":[{"role","reason","evidence":{…}}],"metrics":{…}}], "jsd": [[…]],
//  "redundant_pairs": [{"a":"L.H","b":"L.H","jsd"}], "mds": [[x,y]…],
//  "rollout": {"joint": [[…]], "bars": […], "bars_from": "last_row"|"mean_row"}}
nlohmann::json analysis_to_json(const Trace& trace, const TraceAnalysis& analysis);
// {"model", "sentences": {"analysed","total","skipped":[…]}, "cancelled", "heads_table":
//  [{"layer","head","label","labels","metrics":{name: {"mean","std","count"}}}],
//  "jsd": [[…]] (mean over sentences), "redundant_pairs", "mds"}
nlohmann::json corpus_to_json(const std::string& model, const CorpusResult& corpus,
                              const std::vector<HeadLabels>& labels, int redundant_pairs = 10);

// "L1.H2" for head index n with H heads per layer (as the window names heads everywhere).
std::string head_name(int n, int heads_per_layer);

}  // namespace hs
