#include "app/analysis_actions.h"

#include <algorithm>
#include <cstdio>

#include "core/error.h"

namespace hs {

void try_action(AppContext& ctx, const std::function<void()>& action) {
    try {
        action();
    } catch (const std::exception& e) {
        ctx.analysis.error = e.what();
    }
}

void request_analysis(AppContext& ctx) {
    if (!ctx.view.trace) throw Error("there is no trace to analyze yet: wait for the forward pass to finish.");
    AnalysisJob job;
    job.kind = AnalysisJobKind::Analyze;
    job.trace = ctx.view.trace;
    job.trace_generation = ctx.view.generation;
    job.source = ctx.view.source;
    ctx.analysis.requested_generation = ctx.view.generation;
    ctx.analysis.error.clear();
    ctx.analysis_worker.submit(std::move(job));
}

void request_corpus(AppContext& ctx, std::vector<std::string> sentences, const std::string& name) {
    if (!ctx.view.source || !ctx.view.source->takes_text())
        throw Error("corpus mode needs a model that reads text (a playground or a model file); "
                    "a worked example has a fixed input.");
    if (sentences.empty()) throw Error("corpus mode needs at least one sentence; " + name + " has none.");
    AnalysisJob job;
    job.kind = AnalysisJobKind::Corpus;
    job.source = ctx.view.source;
    job.sentences = std::move(sentences);
    job.corpus_name = name;
    ctx.analysis.error.clear();
    ctx.analysis_worker.submit(std::move(job));
}

std::vector<std::string> sample_sentences(const AppContext& ctx, bool all_languages) {
    std::vector<std::string> out;
    for (const Sample& s : ctx.samples)
        if (all_languages || s.lang == "en") out.push_back(s.text);
    return out;
}

void request_rank_heads(AppContext& ctx) {
    if (!ctx.view.source || !ctx.view.source->takes_text())
        throw Error("ranking heads needs a model (a playground or a model file); a worked example "
                    "has fixed weights.");
    AnalysisJob job;
    job.kind = AnalysisJobKind::RankHeads;
    job.source = ctx.view.source;
    job.input = ctx.view.input;
    job.mode = ctx.state.ablate_mode;
    ctx.analysis.ranking_text = ctx.view.input.text;
    ctx.analysis.error.clear();
    ctx.analysis_worker.submit(std::move(job));
}

void poll_analysis(AppContext& ctx) {
    AnalysisView& a = ctx.analysis;
    if (auto r = ctx.analysis_worker.take_result()) {
        char ms[32];
        std::snprintf(ms, sizeof ms, "%.0f ms", r->milliseconds);
        if (!r->error.empty()) {
            a.error = r->error;
        } else if (r->kind == AnalysisJobKind::Analyze) {
            a.analysis = r->analysis;
            a.analysed_trace = r->trace;
            a.analysed_generation = r->trace_generation;
            a.status = "analysed " + std::to_string(a.analysis->layers * a.analysis->heads) + " heads in " + ms;
        } else if (r->kind == AnalysisJobKind::Corpus) {
            a.corpus = r->corpus;
            a.corpus_labels = std::move(r->corpus_labels);
            a.corpus_name = r->corpus_name;
            a.corpus_pairs = most_redundant_pairs(a.corpus->mean_jsd, 10);
            a.corpus_mds = mds_layout(a.corpus->mean_jsd);
            a.table_source = MetricsSource::Corpus;
            a.status = "corpus " + a.corpus_name + ": " + std::to_string(a.corpus->analysed) + " of " +
                       std::to_string(a.corpus->total) + " sentences" +
                       (a.corpus->cancelled ? " (cancelled)" : "") + " in " + ms;
        } else {
            a.ranking = r->ranking;
            a.ranking_mode = r->mode;
            a.status = "ranked " + std::to_string(a.ranking->heads.size()) + " heads in " + ms;
        }
    }
    // Follow the trace: a new trace (text edit, ablation) is analysed again.
    const bool long_job = ctx.analysis_worker.busy() && ctx.analysis_worker.running_kind() != AnalysisJobKind::Analyze;
    if (a.follow && a.analysis && ctx.view.trace && ctx.view.generation != a.requested_generation && !long_job)
        request_analysis(ctx);
}

const std::vector<HeadLabels>* shown_labels(const AppContext& ctx) {
    const AnalysisView& a = ctx.analysis;
    if (a.table_source == MetricsSource::Corpus && a.corpus) return &a.corpus_labels;
    if (a.analysis) return &a.analysis->labels;
    return nullptr;
}

std::vector<HeadMetrics> shown_metrics(const AppContext& ctx) {
    const AnalysisView& a = ctx.analysis;
    if (a.table_source == MetricsSource::Corpus && a.corpus) {
        std::vector<HeadMetrics> out;
        for (const HeadStats& h : a.corpus->heads) out.push_back(h.means());
        return out;
    }
    if (a.analysis) return a.analysis->metrics;
    return {};
}

int shown_heads(const AppContext& ctx) {
    const AnalysisView& a = ctx.analysis;
    if (a.table_source == MetricsSource::Corpus && a.corpus) {
        int h = 0;
        for (const HeadStats& s : a.corpus->heads) h = std::max(h, s.head + 1);
        return h;
    }
    return a.analysis ? a.analysis->heads : 0;
}

int shown_layers(const AppContext& ctx) {
    const AnalysisView& a = ctx.analysis;
    if (a.table_source == MetricsSource::Corpus && a.corpus) {
        int l = 0;
        for (const HeadStats& s : a.corpus->heads) l = std::max(l, s.layer + 1);
        return l;
    }
    return a.analysis ? a.analysis->layers : 0;
}

}  // namespace hs
