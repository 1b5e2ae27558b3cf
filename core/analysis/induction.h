#pragma once
// Induction score (Olsson et al. 2022): the model reads P + r + r, where P is the start
// token(s) (BOS for decoder LMs and the models HeadScope trained, [CLS] for BERT, nothing
// for playground models) and r is m random distinct tokens. An induction head at a query in the second copy looks at the
// key right after the previous occurrence of the current token:
//   positions: P = 0..p−1, first copy p..p+m−1, second copy p+m..p+2m−1
//   score = mean over i in [p+m, p+2m−1] of A[i, i−m+1]
// (for p = 1: A[i, i−m+1] over i = m+1..2m, as written in the issue).
#include <cstdint>
#include <string>
#include <vector>

#include "core/analysis/head_metrics.h"
#include "core/source.h"
#include "core/model/trace.h"

namespace hs {

struct InductionInput {
    std::vector<int> ids;             // p + 2m (+ trailing specials such as BERT's [SEP])
    std::vector<std::string> tokens;  // display strings
    int prefix = 0;                   // p
    int m = 0;                        // length of the random block r
};

struct InductionOptions {
    int m = 24;              // shortened to fit max_len and the usable vocabulary
    std::uint64_t seed = 1;  // which random tokens (deterministic, hs::Rng)
};

// Builds P + r + r for a source: playground models (ids drawn from [1, vocab), shown as
// "#id"), pretrained and trained models (ids drawn from the tokenizer's ordinary tokens,
// the task's for a trained model: not BOS/EOS/special, not "<…>" byte, control or
// <sep> / <unk> pieces, not empty). Throws hs::Error for
// sources that take no token ids (worked examples) or when fewer than 2 tokens fit.
InductionInput make_induction_input(const TraceSource& source, const InductionOptions& options = {});

// Runs the source's model on the ids (head weights only).
Trace run_induction_input(const TraceSource& source, const InductionInput& input,
                          const ProgressFn& progress = nullptr);

// The score of one map A (T, T) for that input.
double induction_score(const Matrix& A, const InductionInput& input);

// Score of every head of the main stack, layer-major (index = layer·H + head).
std::vector<double> induction_scores(const Trace& trace, const InductionInput& input);

// Builds, runs and scores: fills Metric::Induction of each entry of `metrics` (layer-major
// as compute_trace_metrics returns them).
void add_induction_scores(const TraceSource& source, std::vector<HeadMetrics>& metrics,
                          const InductionOptions& options = {}, const ProgressFn& progress = nullptr);

}  // namespace hs
