#pragma once
// The analysis worker: one background thread for the head-analysis jobs of issue 5, apart
// from the trace worker so that editing the text never cancels a corpus run.
//   Analyze    analyze_trace(trace, source): metrics, labels, JSD, MDS, rollout, induction
//   Corpus     analyze_corpus(source, sentences): mean ± std per head, labels of the means
//   RankHeads  rank_heads(source, input, mode): 1 + L·H forward passes, effect descending
//   Relations  probe_relations_by_language(source, annotated): each head's accuracy at
//              pointing from a dependent to its gold partner, per relation and language
// A newer submit supersedes the running job (its result is dropped); cancel() stops the
// running job at its next progress call (a cancelled corpus keeps what it finished).
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/latest_wins.h"
#include "core/analysis/ablation.h"
#include "core/analysis/corpus.h"
#include "core/analysis/head_labels.h"
#include "core/analysis/relation_probe.h"
#include "core/analysis/trace_analysis.h"
#include "core/source.h"

namespace hs {

enum class AnalysisJobKind { Analyze, Corpus, RankHeads, Relations };
const char* to_string(AnalysisJobKind kind);

struct AnalysisJob {
    AnalysisJobKind kind = AnalysisJobKind::Analyze;
    std::shared_ptr<const TraceSource> source;  // null: no induction, no corpus, no ranking
    std::shared_ptr<const Trace> trace;         // Analyze
    std::uint64_t trace_generation = 0;         // Analyze: which trace (UI bookkeeping)
    std::vector<std::string> sentences;         // Corpus
    std::string corpus_name;                    // Corpus, Relations: "samples (en)", a file name
    std::vector<corpus::AnnotatedSentence> annotated;  // Relations
    std::vector<corpus::AnnotatedSentence> showcase_candidates;  // Relations: the samples with gold
    std::string model_arg;                      // Relations: the model probed (UI bookkeeping)
    SourceInput input;                          // RankHeads
    AblationMode mode = AblationMode::Zero;     // RankHeads
};

struct AnalysisResult {
    AnalysisJobKind kind = AnalysisJobKind::Analyze;
    std::uint64_t id = 0;
    std::string error;                                  // hs::Error message, empty on success
    double milliseconds = 0.0;
    std::uint64_t trace_generation = 0;
    std::shared_ptr<const Trace> trace;                 // Analyze: the trace analysed
    std::shared_ptr<const TraceAnalysis> analysis;      // Analyze
    std::shared_ptr<const CorpusResult> corpus;         // Corpus
    std::vector<HeadLabels> corpus_labels;              // Corpus: labels of the means
    std::string corpus_name;
    std::shared_ptr<const HeadRanking> ranking;         // RankHeads
    std::shared_ptr<const std::vector<RelationRun>> relations;  // Relations: one run per language
    std::vector<std::string> relations_skipped;         // Relations: sentences the model could not read
    std::vector<RelationShowcase> showcases;            // Relations: a sample per relation its head gets right
    std::string model_arg;                              // Relations
    AblationMode mode = AblationMode::Zero;             // RankHeads
};

class AnalysisWorker {
public:
    AnalysisWorker();

    // Queues the job, replacing a queued one and superseding the running one.
    std::uint64_t submit(AnalysisJob job);
    // The newest finished result not yet taken.
    std::optional<AnalysisResult> take_result() { return jobs_.take_result(); }
    // Stops the running job (a corpus keeps what it finished) and drops the queued one.
    void cancel() { jobs_.cancel(); }

    bool busy() const { return jobs_.busy(); }
    bool idle() const { return jobs_.idle(); }
    // What runs now (valid while busy) and its progress (done, total; 0/0 when unknown).
    AnalysisJobKind running_kind() const { return static_cast<AnalysisJobKind>(running_kind_.load()); }
    int progress_done() const { return jobs_.progress_done(); }
    int progress_total() const { return jobs_.progress_total(); }

private:
    AnalysisResult run(const AnalysisJob& job, const JobControl& control);

    std::atomic<int> running_kind_{0};
    LatestWins<AnalysisJob, AnalysisResult> jobs_;  // last: its thread starts after the members above
};

}  // namespace hs
