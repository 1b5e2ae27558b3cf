#include "app/analysis_actions.h"

#include <algorithm>
#include <cstdio>

#include "app/i18n/i18n.h"
#include "app/i18n/messages.h"
#include "app/panels/widgets.h"
#include "core/corpus/grammar.h"
#include "core/error.h"

namespace hs {

void try_action(std::string& error_line, const std::function<void()>& action) {
    error_line.clear();
    try {
        action();
    } catch (const std::exception& e) {
        error_line = e.what();
    }
}

void request_analysis(const AnalysisContext& ctx) {
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

namespace {

// The shown model when it reads text; hs::Error saying that `what` needs one otherwise.
std::shared_ptr<const TraceSource> text_source(const AnalysisContext& ctx, const std::string& what) {
    if (!ctx.view.source || !ctx.view.source->takes_text())
        throw Error(what + " needs a model that reads text (the default model, a playground or a model file); "
                    "a worked example has a fixed input.");
    return ctx.view.source;
}

}  // namespace

void request_corpus(const AnalysisContext& ctx, std::vector<std::string> sentences, const std::string& name) {
    AnalysisJob job;
    job.source = text_source(ctx, "corpus mode");
    if (sentences.empty()) throw Error("corpus mode needs at least one sentence; " + name + " has none.");
    job.kind = AnalysisJobKind::Corpus;
    job.sentences = std::move(sentences);
    job.corpus_name = name;
    ctx.analysis.error.clear();
    ctx.analysis_worker.submit(std::move(job));
}

std::vector<std::string> sample_sentences(const std::vector<Sample>& samples, bool all_languages) {
    std::vector<std::string> out;
    for (const Sample& s : samples)
        if (all_languages || s.lang == "en") out.push_back(s.text);
    return out;
}

void request_rank_heads(const AnalysisContext& ctx) {
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

namespace {

// The samples of assets/samples.json that carry gold relations, as annotated sentences.
std::vector<corpus::AnnotatedSentence> gold_samples(const std::vector<Sample>& samples) {
    std::vector<corpus::AnnotatedSentence> out;
    for (const Sample& s : samples)
        if (s.gold) out.push_back(*s.gold);
    return out;
}

}  // namespace

const char* relations_corpus_name(RelationsCorpus which) {
    switch (which) {
        case RelationsCorpus::HeldOut: return "held-out structures (600, seed 99)";
        case RelationsCorpus::Grammar: return "grammar sentences (600, seed 99)";
        case RelationsCorpus::Samples: return "samples with gold relations";
    }
    return "";
}

void request_relations(const AnalysisContext& ctx, RelationsCorpus which) {
    AnalysisJob job;
    job.source = text_source(ctx, "relation probes");
    const std::string name = relations_corpus_name(which);
    job.annotated = which == RelationsCorpus::HeldOut   ? corpus::held_out_probe_corpus()
                    : which == RelationsCorpus::Grammar ? corpus::probe_corpus()
                                                         : gold_samples(ctx.samples);
    if (job.annotated.empty()) throw Error("relation probes need sentences with gold relations; " + name + " has none.");
    job.kind = AnalysisJobKind::Relations;
    job.corpus_name = name;
    job.model_arg = ctx.view.model_arg;
    job.showcase_candidates = gold_samples(ctx.samples);
    ctx.analysis.showcase_texts.clear();
    for (const Sample& s : ctx.samples)
        if (s.gold) ctx.analysis.showcase_texts.push_back(s.text);
    ctx.analysis.relations_corpus_choice = static_cast<int>(which);
    ctx.analysis.error.clear();
    ctx.analysis_worker.submit(std::move(job));
}

bool relations_held_out(const AnalysisView& a) { return a.relations_corpus == relations_corpus_name(RelationsCorpus::HeldOut); }

void show_relation_head(const AnalysisContext& ctx, const RelationRun& run, const RelationScore& score) {
    AppState& s = ctx.state;
    if (score.best_head < 0 || run.heads <= 0) return;
    s.layer = score.best_head / run.heads;
    s.head = score.best_head % run.heads;
    s.map = MapKind::Self;
    if (const auto* runs = ctx.analysis.relations.get())  // the Relations tab shows that language
        for (std::size_t i = 0; i < runs->size(); ++i)
            if ((*runs)[i].lang == run.lang) ctx.analysis.relations_lang = static_cast<int>(i);
    // A sample on which the head gets the relation right (the worker found it), else the
    // first sample of the language with an arc of the relation.
    std::string text;
    for (const RelationShowcase& show : ctx.analysis.showcases)
        if (show.lang == run.lang && show.relation == score.relation && show.sentence >= 0 &&
            show.sentence < static_cast<int>(ctx.analysis.showcase_texts.size()))
            text = ctx.analysis.showcase_texts[static_cast<std::size_t>(show.sentence)];
    for (const Sample& sample : ctx.samples) {
        if (!text.empty() || !sample.gold || sample.lang != run.lang) continue;
        const auto& arcs = sample.gold->arcs;
        if (std::any_of(arcs.begin(), arcs.end(), [&](const corpus::Arc& a) { return a.relation == score.relation; }))
            text = sample.text;
    }
    if (!text.empty() && s.text != text) {
        s.text = text;
        s.decoder_text.clear();
        s.dirty = true;
    }
}

std::string baseline_phrase(const RelationScore& r) {
    switch (r.best_baseline()) {
        case Baseline::Offset: return printf_string(tr("offset −%d"), r.offset_baseline);
        case Baseline::Position: return printf_string(tr("position %d"), r.position_baseline);
        case Baseline::Candidate: return tr("nearest candidate");
    }
    return {};
}

std::string relation_caption(const AnalysisView& a, const std::string& model_arg, int layer, int head,
                             const std::string& lang) {
    if (!a.relations_of(model_arg)) return {};
    std::string first, others;
    for (const RelationRun& run : *a.relations)
        for (const RelationScore& r : run.scores) {
            if (!lang.empty() && run.lang != lang) continue;
            if (r.best_head != layer * run.heads + head || !r.claimed()) continue;
            if (first.empty()) {
                first = printf_string(tr("%s head (%s %.2f vs %.2f, %s)"), tr(corpus::relation_name(r.relation)),
                                      run.lang.c_str(), r.best_accuracy, r.best_baseline_accuracy(), baseline_phrase(r).c_str());
                continue;
            }
            if (!others.empty()) others += tr(", ");
            others += tr(corpus::relation_name(r.relation));
        }
    return others.empty() ? first : first + printf_string(tr("; also: %s"), others.c_str());
}

bool default_probe_due(const AnalysisContext& ctx) {
    return ctx.state.source == SourceKind::Default && ctx.view.source && ctx.view.model_arg == "default" &&
           ctx.analysis.relations_requested != "default";
}

void poll_analysis(const AnalysisContext& ctx) {
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
            // Statuses stay English (the state dump's words); the panel shows tr_message(status).
            a.set_status(printf_string("analysed %d heads in %s", a.analysis->layers * a.analysis->heads, ms));
        } else if (r->kind == AnalysisJobKind::Corpus) {
            a.corpus = r->corpus;
            a.corpus_labels = std::move(r->corpus_labels);
            a.corpus_name = r->corpus_name;
            a.corpus_pairs = most_redundant_pairs(a.corpus->mean_jsd, 10);
            a.corpus_mds = mds_layout(a.corpus->mean_jsd);
            a.table_source = MetricsSource::Corpus;
            a.set_status(printf_string("corpus %s: %d of %d sentences%s in %s", a.corpus_name.c_str(),
                                     a.corpus->analysed, a.corpus->total, a.corpus->cancelled ? " (cancelled)" : "", ms));
        } else if (r->kind == AnalysisJobKind::Relations) {
            a.relations = r->relations;
            a.relations_model = r->model_arg;
            a.relations_corpus = r->corpus_name;
            a.relations_skipped = std::move(r->relations_skipped);
            a.showcases = std::move(r->showcases);
            a.relations_lang = std::clamp(a.relations_lang, 0, static_cast<int>(a.relations->size()) - 1);
            // The default model probes on opening: not news once another model is shown.
            a.set_status(printf_string("probed relations on %s in %s", a.relations_corpus.c_str(), ms), r->model_arg);
            if (!a.jump_to_relation.empty() && a.relations_of(ctx.view.model_arg)) {
                // First launch: the learner lands on a claimed head (the wanted relation's when
                // it is claimed), its sample and gold arcs.
                const auto wanted = corpus::parse_relation(a.jump_to_relation);
                for (const RelationRun& run : *a.relations)
                    if (const RelationScore* score = wanted ? relation_to_show(run, *wanted) : nullptr;
                        score && run.lang == "en")
                        show_relation_head(ctx, run, *score);
                a.jump_to_relation.clear();
            }
        } else {
            a.ranking = r->ranking;
            a.ranking_mode = r->mode;
            a.set_status(printf_string("ranked %d heads in %s", static_cast<int>(a.ranking->heads.size()), ms));
        }
    }
    // The default model's heads are probed as soon as it is shown (a second, once per model).
    if (default_probe_due(ctx) && ctx.analysis_worker.idle()) {
        a.relations_requested = "default";
        request_relations(ctx, RelationsCorpus::HeldOut);
    }
    // Follow the trace: a new trace (text edit, ablation) is analysed again.
    const bool long_job = ctx.analysis_worker.busy() && ctx.analysis_worker.running_kind() != AnalysisJobKind::Analyze;
    if (a.follow && a.analysis && ctx.view.trace && ctx.view.generation != a.requested_generation && !long_job)
        request_analysis(ctx);
}

const std::vector<HeadLabels>* shown_labels(const AnalysisView& a) {
    if (a.table_source == MetricsSource::Corpus && a.corpus) return &a.corpus_labels;
    if (a.analysis) return &a.analysis->labels;
    return nullptr;
}

std::vector<HeadMetrics> shown_metrics(const AnalysisView& a) {
    if (a.table_source == MetricsSource::Corpus && a.corpus) {
        std::vector<HeadMetrics> out;
        for (const HeadStats& h : a.corpus->heads) out.push_back(h.means());
        return out;
    }
    if (a.analysis) return a.analysis->metrics;
    return {};
}

int shown_heads(const AnalysisView& a) {
    if (a.table_source == MetricsSource::Corpus && a.corpus) {
        int h = 0;
        for (const HeadStats& s : a.corpus->heads) h = std::max(h, s.head + 1);
        return h;
    }
    return a.analysis ? a.analysis->heads : 0;
}

int shown_layers(const AnalysisView& a) {
    if (a.table_source == MetricsSource::Corpus && a.corpus) {
        int l = 0;
        for (const HeadStats& s : a.corpus->heads) l = std::max(l, s.layer + 1);
        return l;
    }
    return a.analysis ? a.analysis->layers : 0;
}

}  // namespace hs
