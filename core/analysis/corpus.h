#pragma once
// Corpus mode: run many sentences through a TraceSource and aggregate every head metric
// (mean ± sample standard deviation over the sentences where the metric is defined) and
// the head-similarity matrix (mean JSD over sentences). The induction score does not
// depend on the sentences: it is computed once on its own input (induction.h).
#include <array>
#include <limits>
#include <string>
#include <vector>

#include "core/analysis/head_metrics.h"
#include "core/analysis/induction.h"
#include "core/source.h"

namespace hs {

struct MetricStats {
    double mean = std::numeric_limits<double>::quiet_NaN();
    double std = std::numeric_limits<double>::quiet_NaN();  // √(Σ(x − mean)² / (n − 1)); 0 for n = 1
    int count = 0;                                          // sentences where it was defined
};

struct HeadStats {
    int layer = 0;
    int head = 0;
    std::array<MetricStats, kMetricCount> stats{};
    const MetricStats& operator[](Metric m) const { return stats[static_cast<int>(m)]; }
    // The means as a HeadMetrics (what labels are computed from).
    HeadMetrics means() const;
};

struct CorpusOptions {
    bool induction = true;         // also compute the induction score (skipped for worked examples)
    InductionOptions induction_options;
};

struct CorpusResult {
    std::vector<HeadStats> heads;      // layer-major, index = layer·H + head
    Eigen::MatrixXd mean_jsd;          // (N, N) mean over analysed sentences
    int analysed = 0;                  // sentences that ran
    int total = 0;                     // sentences given
    bool cancelled = false;
    std::vector<std::string> skipped;  // "sentence 4: <error message>" for sentences that failed
};

// Progress is reported as (sentences done, total) after each sentence and during each
// forward pass; returning false cancels (the result then holds what was done so far).
// Sentences the source rejects (too long, empty) are listed in `skipped`; if none runs,
// throws hs::Error with the first reason.
CorpusResult analyze_corpus(const TraceSource& source, const std::vector<std::string>& sentences,
                            const CorpusOptions& options = {}, const ProgressFn& progress = nullptr);

// Non-empty lines of a text (trailing '\r' and surrounding spaces removed).
std::vector<std::string> split_lines(const std::string& text);
// The "text" of each entry of assets/samples.json ([{"title","lang","text",…}]) whose
// "lang" equals `lang` ("" takes all). Throws hs::Error naming the file when unreadable.
std::vector<std::string> load_sample_texts(const std::string& path, const std::string& lang = "");

}  // namespace hs
