#include "app/analysis_worker.h"

#include <chrono>
#include <exception>

#include "core/error.h"
#include "core/kernels/parallel.h"

namespace hs {

const char* to_string(AnalysisJobKind kind) {
    switch (kind) {
        case AnalysisJobKind::Analyze: return "analyzing heads";
        case AnalysisJobKind::Corpus: return "corpus";
        case AnalysisJobKind::RankHeads: return "ranking heads";
    }
    return "?";
}

AnalysisWorker::AnalysisWorker() { thread_ = std::thread([this] { loop(); }); }

AnalysisWorker::~AnalysisWorker() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    cancel_ = true;
    latest_.fetch_add(1);
    wake_.notify_all();
    thread_.join();
}

std::uint64_t AnalysisWorker::submit(AnalysisJob job) {
    std::uint64_t id = 0;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        id = latest_.fetch_add(1) + 1;
        pending_ = std::move(job);
    }
    wake_.notify_all();
    return id;
}

std::optional<AnalysisResult> AnalysisWorker::take_result() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::optional<AnalysisResult> out;
    out.swap(finished_);
    return out;
}

void AnalysisWorker::cancel() {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_.reset();
    cancel_ = true;
}

bool AnalysisWorker::idle() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return !busy_.load() && !pending_.has_value() && !finished_.has_value();
}

void AnalysisWorker::loop() {
    for (;;) {
        AnalysisJob job;
        std::uint64_t id = 0;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            wake_.wait(lock, [this] { return stop_ || pending_.has_value(); });
            if (stop_) return;
            job = std::move(*pending_);
            pending_.reset();
            id = latest_.load();
            cancel_ = false;
            running_kind_ = static_cast<int>(job.kind);
            done_ = 0;
            total_ = 0;
            busy_ = true;
        }
        AnalysisResult result = run(job, id);
        park_threads();  // the pool stops spinning (core/kernels/parallel.h)
        std::lock_guard<std::mutex> lock(mutex_);
        busy_ = pending_.has_value();
        // A superseded job leaves nothing; a cancelled one only what run() kept (id ≠ 0).
        if (result.id != 0 && id == latest_.load()) finished_ = std::move(result);
    }
}

AnalysisResult AnalysisWorker::run(const AnalysisJob& job, std::uint64_t id) {
    AnalysisResult result;
    result.kind = job.kind;
    result.id = id;
    result.trace_generation = job.trace_generation;
    const auto t0 = std::chrono::steady_clock::now();
    // Keeps going while this job is the newest and nobody pressed cancel.
    const ProgressFn progress = [this, id](int done, int total) {
        done_ = done;
        total_ = total;
        return latest_.load() == id && !cancel_.load();
    };
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
