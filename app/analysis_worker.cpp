#include "app/analysis_worker.h"

#include <chrono>
#include <exception>

#include "core/error.h"

namespace hs {

const char* to_string(AnalysisJobKind kind) {
    switch (kind) {
        case AnalysisJobKind::Analyze: return "analyzing heads";
        case AnalysisJobKind::Corpus: return "corpus";
        case AnalysisJobKind::RankHeads: return "ranking heads";
        case AnalysisJobKind::Relations: return "probing relations";
    }
    return "?";
}

AnalysisWorker::AnalysisWorker()
    : jobs_([this](const AnalysisJob& job, const JobControl& control) -> std::optional<AnalysisResult> {
          running_kind_ = static_cast<int>(job.kind);
          AnalysisResult result = run(job, control);
          // A superseded job leaves nothing; a cancelled one only what run() kept (id ≠ 0).
          if (result.id == 0) return std::nullopt;
          return result;
      }) {}

std::uint64_t AnalysisWorker::submit(AnalysisJob job) { return jobs_.submit(std::move(job)); }

AnalysisResult AnalysisWorker::run(const AnalysisJob& job, const JobControl& control) {
    AnalysisResult result;
    result.kind = job.kind;
    result.id = control.generation();
    result.trace_generation = job.trace_generation;
    const auto t0 = std::chrono::steady_clock::now();
    // Keeps going while this job is the newest and nobody pressed cancel.
    const ProgressFn progress = [&control](int done, int total) { return control.report(done, total); };
    try {
        switch (job.kind) {
            case AnalysisJobKind::Analyze: {
                if (!job.trace) throw Error("there is no trace to analyze yet.");
                if (!all_maps_resident(*job.trace))  // issue 6: maps over the budget were dropped
                    throw Error("head analysis needs every layer's attention maps at once, but this input is so long that only some layers' maps were kept (over the app's 512 MiB map budget); analyze a shorter text.");
                AnalysisOptions options;
                options.induction = job.source && supports_induction(*job.source);
                result.trace = job.trace;
                result.analysis = std::make_shared<const TraceAnalysis>(
                    analyze_trace(*job.trace, options.induction ? job.source.get() : nullptr, options));
                break;
            }
            case AnalysisJobKind::Corpus: {
                if (!job.source || !job.source->takes_text())
                    throw Error("corpus mode needs a model that reads text; a worked example has a fixed input.");
                CorpusOptions options;
                options.induction = supports_induction(*job.source);
                auto corpus = std::make_shared<CorpusResult>(
                    analyze_corpus(*job.source, job.sentences, options, progress));
                if (corpus->cancelled && corpus->analysed == 0) return AnalysisResult{};
                std::vector<HeadMetrics> means;
                for (const HeadStats& h : corpus->heads) means.push_back(h.means());
                result.corpus_labels = label_heads(means);
                result.corpus = std::move(corpus);
                result.corpus_name = job.corpus_name;
                break;
            }
            case AnalysisJobKind::RankHeads: {
                if (!job.source) throw Error("ranking heads needs a model; a worked example has fixed weights.");
                result.ranking = std::make_shared<const HeadRanking>(
                    rank_heads(*job.source, job.input, job.mode, progress));
                result.mode = job.mode;
                break;
            }
            case AnalysisJobKind::Relations: {
                if (!job.source || !job.source->takes_text())
                    throw Error("relation probes need a model that reads text; a worked example has a fixed input.");
                result.relations = std::make_shared<const std::vector<RelationRun>>(
                    probe_relations_by_language(*job.source, job.annotated, result.relations_skipped, progress));
                result.showcases = find_showcases(*job.source, *result.relations, job.showcase_candidates);
                result.corpus_name = job.corpus_name;
                result.model_arg = job.model_arg;
                break;
            }
        }
    } catch (const Cancelled&) {
        return AnalysisResult{};
    } catch (const std::exception& e) {
        result.error = e.what();
    }
    result.milliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return result;
}

}  // namespace hs
