#include "app/state_dump.h"

#include <cmath>


#include "app/analysis_actions.h"
#include "app/fonts.h"
#include "app/i18n/i18n.h"
#include "app/i18n/messages.h"
#include "app/panels/window_extents.h"
#include "app/trace_view.h"
#include "core/analysis/analysis_export.h"
#include "core/image/utf8.h"

namespace hs {

namespace {

nlohmann::json number_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

nlohmann::json labels_json(const HeadLabels& l) {
    nlohmann::json roles = nlohmann::json::array();
    for (const HeadLabel& x : l.all) roles.push_back({{"role", role_name(x.role)}, {"reason", x.reason}});
    return {{"layer", l.layer}, {"head", l.head}, {"label", role_name(l.primary.role)}, {"labels", roles}};
}

// The Analysis window's results: per-head labels and metrics, redundant pairs, rollout
// bars, the ablation effect, the head ranking and the corpus summary.
nlohmann::json analysis_json(const AppContext& ctx) {
    const AnalysisView& a = ctx.analysis;
    nlohmann::json j;
    j["view"] = ctx.state.view_mode == ViewMode::Analysis ? "analysis"
                : ctx.state.view_mode == ViewMode::Train  ? "train"
                                                          : "attention";
    j["error"] = a.error;
    j["status"] = a.status;
    nlohmann::json ablated = nlohmann::json::array();
    for (const HeadRef& h : ctx.state.ablated) ablated.push_back(to_string(h));
    j["ablated"] = ablated;
    j["ablate_mode"] = to_string(ctx.state.ablate_mode);
    j["open_tab"] = ctx.state.open_analysis_tab;
    if (a.analysis && a.analysed_trace) {
        const TraceAnalysis& t = *a.analysis;
        nlohmann::json heads = nlohmann::json::array();
        for (std::size_t n = 0; n < t.metrics.size(); ++n) {
            nlohmann::json h = labels_json(t.labels[n]);
            nlohmann::json m;
            for (Metric k : all_metrics()) m[metric_name(k)] = number_or_null(t.metrics[n][k]);
            h["metrics"] = m;
            heads.push_back(h);
        }
        nlohmann::json pairs = nlohmann::json::array();
        for (const HeadPair& p : t.redundant)
            pairs.push_back({{"a", head_name(p.a, t.heads)}, {"b", head_name(p.b, t.heads)}, {"jsd", p.jsd}});
        j["analysis"] = {{"text_tokens", a.analysed_trace->main.tokens},
                         {"layers", t.layers},
                         {"heads", t.heads},
                         {"has_induction", t.has_induction},
                         {"heads_table", heads},
                         {"redundant_pairs", pairs},
                         {"rollout_bars", std::vector<float>(t.rollout.bars.data(), t.rollout.bars.data() + t.rollout.bars.size())}};
    }
    if (const AblationEffect* e = ctx.view.effect.get()) {
        nlohmann::json top = nlohmann::json::array();
        for (const TokenChange& c : e->top_tokens)
            top.push_back({{"id", c.id}, {"text", c.text}, {"p_base", c.p_base}, {"p_ablated", c.p_ablated}});
        nlohmann::json heads = nlohmann::json::array();
        for (const HeadRef& h : e->heads) heads.push_back(to_string(h));
        j["effect"] = {{"heads", heads},
                       {"mode", to_string(e->mode)},
                       {"hidden_change", e->hidden_change},
                       {"map_change", e->map_change},
                       {"last_layer_change", e->last_layer_change},
                       {"has_next_token", e->has_next_token},
                       {"kl", e->kl},
                       {"top_tokens", top}};
    }
    if (a.ranking) {
        nlohmann::json ranked = nlohmann::json::array();
        for (const RankedHead& h : a.ranking->heads) ranked.push_back({{"head", to_string(h.head)}, {"effect", h.effect}});
        j["ranking"] = {{"measure", a.ranking->measure}, {"mode", to_string(a.ranking_mode)}, {"text", a.ranking_text},
                        {"heads", ranked}};
    }
    if (a.relations) {
        nlohmann::json runs = nlohmann::json::array();
        for (const RelationRun& run : *a.relations) {
            nlohmann::json scores = nlohmann::json::array();
            for (const RelationScore& r : run.scores)
                scores.push_back({{"relation", corpus::relation_name(r.relation)}, {"arcs", r.arcs},
                                  {"best_head", r.best_head}, {"accuracy", r.best_accuracy},
                                  {"offset_baseline", r.offset_baseline}, {"offset_accuracy", r.offset_accuracy},
                                  {"position_baseline", r.position_baseline}, {"position_accuracy", r.position_accuracy},
                                  {"candidate_accuracy", r.has_candidate_baseline ? nlohmann::json(r.candidate_accuracy) : nlohmann::json()},
                                  {"margin", r.margin()}, {"claimed", r.claimed()}});
            runs.push_back({{"lang", run.lang}, {"analysed", run.analysed}, {"scores", scores}});
        }
        j["relations"] = {{"model", a.relations_model}, {"corpus", a.relations_corpus}, {"runs", runs},
                          {"shown", a.relations_of(ctx.view.model_arg)}};
    }
    if (a.corpus) {
        nlohmann::json labels = nlohmann::json::array();
        for (const HeadLabels& l : a.corpus_labels) labels.push_back(labels_json(l));
        j["corpus"] = {{"name", a.corpus_name},
                       {"analysed", a.corpus->analysed},
                       {"total", a.corpus->total},
                       {"cancelled", a.corpus->cancelled},
                       {"labels", labels}};
    }
    return j;
}

// The Train view's run: progress, every step's loss, each snapshot's held-out loss and
// per-head induction scores and roles (the GUI test compares them with core's run).
nlohmann::json train_json(const AppContext& ctx) {
    const TrainProgress p = ctx.train_worker.progress();
    nlohmann::json j = {{"error", p.error}, {"notice", p.notice}, {"replace_dir", p.replace_dir}, {"steps_taken", p.steps_taken},
                        {"total_steps", p.total_steps}, {"timeline", ctx.train.timeline},
                        {"train_error", ctx.train.train_error}, {"experiment_error", ctx.train.experiment_error}};
    if (!p.history) return j;
    j["spec"] = to_playground_spec(p.config);
    std::vector<double> loss;
    for (const train::StepPoint& s : p.history->points) loss.push_back(s.loss);
    j["loss"] = loss;
    nlohmann::json snaps = nlohmann::json::array();
    for (const auto& s : p.history->snapshots) {
        std::vector<double> induction;
        for (const HeadMetrics& m : s->metrics) induction.push_back(m[Metric::Induction]);
        std::vector<std::string> roles, probe_roles;  // the chips: held-out examples, the probe
        for (const HeadLabels& l : s->labels) roles.push_back(role_name(l.primary.role));
        for (const HeadLabels& l : s->probe_labels) probe_roles.push_back(role_name(l.primary.role));
        snaps.push_back({{"step", s->step}, {"held_out_loss", s->held_out_loss}, {"induction", induction},
                         {"roles", roles}, {"probe_roles", probe_roles}});
    }
    j["snapshots"] = snaps;
    return j;
}

// The Experiment tab's finished runs.
nlohmann::json experiment_json(const AppContext& ctx) {
    const ExperimentProgress e = ctx.experiment_worker.progress();
    nlohmann::json runs = nlohmann::json::array();
    for (const train::ExperimentRun& r : e.runs)
        runs.push_back({{"value", r.value}, {"d_k", r.d_k}, {"final_loss", r.final_loss}, {"held_out_loss", r.held_out_loss},
                        {"best_induction", r.best_induction}, {"first_induction_step", r.first_induction_step},
                        {"roles", r.roles}});
    return {{"key", e.key}, {"values", e.values}, {"error", e.error}, {"runs", runs}};
}

}  // namespace

namespace {

// Every top-level and child window as the panels laid it out last frame
// (app/panels/window_extents.h): its rectangle, the width its content needs and the width it
// has. A window whose content is wider than its inner width without a horizontal scrollbar
// clips widgets ("clipped": true).
nlohmann::json window_extents() {
    nlohmann::json out = nlohmann::json::array();
    for (const WindowExtent& w : last_window_extents())
        out.push_back({{"name", w.name},
                       {"child", w.child},
                       {"rect", {w.min.x, w.min.y, w.max.x, w.max.y}},
                       {"content_w", w.content_w},
                       {"inner_w", w.inner_w},
                       {"clipped", w.clipped}});
    return out;
}

// The Pipeline strip as last drawn: each card's screen rectangle and, for tables of
// numbers, a column's width beside its widest value (a sliver would be narrower).
nlohmann::json pipeline_json(const AppContext& ctx) {
    nlohmann::json cards = nlohmann::json::array();
    for (const PipelineCardRect& c : ctx.pipeline.cards)
        cards.push_back({{"title", c.title},
                         {"rect", {c.x0, c.y0, c.x1, c.y1}},
                         {"numbers", c.numbers},
                         {"column_w", c.column_w},
                         {"widest_text_w", c.widest_text_w},
                         {"scale", {c.scale_lo, c.scale_hi}},
                         {"map", {c.map_x0, c.map_y0, c.map_x1, c.map_y1}}});
    return {{"textbook", ctx.pipeline.textbook},
            {"open_card", {{"title", ctx.pipeline.open_card}, {"rows", ctx.pipeline.open_rows}, {"cols", ctx.pipeline.open_cols}}},
            {"textbook_shown", ctx.pipeline.textbook_shown},
            {"visible", {ctx.pipeline.visible_x0, ctx.pipeline.visible_x1}},
            {"cards", cards}};
}

// Characters of the interface's Chinese strings the font atlas lacks (they would draw as
// "?"): none when the language is Chinese and the CJK font was found.
std::string missing_glyphs() {
    std::string missing;
    if (ui_lang() == UiLang::Chinese && ImGui::GetCurrentContext())
        for (const auto* table : {&zh_cn_table(), &zh_cn_message_templates()})
            for (const auto& [english, chinese] : *table)
                for (char32_t cp : utf8_to_codepoints(chinese))
                    if (cp >= 0x80 && cp <= 0xFFFF && !FontManager::has_glyph(static_cast<ImWchar>(cp)) &&
                        missing.find(codepoints_to_utf8(std::u32string(1, cp))) == std::string::npos)
                        missing += codepoints_to_utf8(std::u32string(1, cp));
    return missing;
}

// The selected head's map as the heatmap shows it (a kept block, up to 64 × 64), or null.
nlohmann::json shown_map_json(const Trace& trace, const AppState& s) {
    const Trace* t = &trace;
    const HeadRef block = block_of(s.map, s.layer);
    const HeadMaps& maps = maps_of(*t, block);
    if (maps.resident && s.head < static_cast<int>(maps.weights.size())) {
        const Matrix& m = maps.weights[static_cast<std::size_t>(s.head)];
        if (m.rows() <= 64 && m.cols() <= 64) {
            nlohmann::json rows = nlohmann::json::array();
            for (Eigen::Index r = 0; r < m.rows(); ++r) {
                nlohmann::json row = nlohmann::json::array();
                for (Eigen::Index c = 0; c < m.cols(); ++c) row.push_back(m(r, c));
                rows.push_back(row);
            }
            return rows;
        }
    }
    return nullptr;
}

}  // namespace

nlohmann::json dump_state(const AppContext& ctx) {
    const AppState& s = ctx.state;
    nlohmann::json j;
    j["model_arg"] = s.model_arg();
    j["text"] = s.text;
    j["layer"] = s.layer;
    j["head"] = s.head;
    j["recent_models"] = s.recent_models;
    j["error"] = ctx.view.error;
    j["config_errors"] = s.config_errors;  // an invalid edit: the Model panel's red lines (last valid trace shown)
    j["open_error"] = s.open_error;  // a model that did not open (the one shown stays chosen)
    j["help"] = {{"welcome", ctx.help.welcome}, {"about", ctx.help.about}};
    j["windows"] = window_extents();
    if (ctx.heatmap.area_frame >= ImGui::GetFrameCount() - 1)  // the Heatmap panel is shown
        j["heatmap"] = {{"area", {ctx.heatmap.area_w, ctx.heatmap.area_h}},
                        {"scale_controls", ctx.heatmap.scale_behind_button ? "button" : "toolbar"},
                        {"label_step", ctx.heatmap.label_step},
                        {"stale", ctx.heatmap.stale},
                        {"axis_titles", {ctx.heatmap.axis_titles.first, ctx.heatmap.axis_titles.second}},
                        {"row_labels", ctx.heatmap.row_labels},
                        {"col_labels", ctx.heatmap.col_labels}};
    j["pipeline"] = pipeline_json(ctx);
    j["ui_lang"] = to_string(ui_lang());
    j["missing_glyphs"] = missing_glyphs();
    nlohmann::json undrawable = nlohmann::json::array();  // of the text: the Input panel names them
    for (char32_t cp : undrawable_code_points(s.text, 9)) undrawable.push_back(code_point_name(cp));
    j["undrawable"] = undrawable;
    j["ui_scale"] = ctx.ui_scale;
    j["ui_zoom"] = s.ui_zoom;
    // Compare with the article: every printed number beside ours (worked examples).
    nlohmann::json article = nlohmann::json::array();
    for (const ArticleCell& c : ctx.view.info.article)
        article.push_back({{"step", c.step}, {"head", c.head}, {"row", c.row}, {"col", c.col}, {"ours", c.ours},
                           {"printed", c.printed}, {"agrees", c.agrees}});
    j["article"] = article;
    j["byte_tokens"] = ctx.view.byte_tokens.count;  // the Input panel notes raw-byte tokens
    j["unknown_words"] = ctx.view.unknown_words;  // and words read as <unk>
    if (ctx.view.samples_read) j["samples_read"] = *ctx.view.samples_read;  // [i]: the model reads sample i whole
    j["input_error"] = ctx.view.input_error;  // shown by the text box, not the Model panel
    // The shown map's auto colour range: min, robust top, max (core's MapRange).
    j["range"] = {{"lo", ctx.view.main_lo}, {"hi", ctx.view.main_hi}, {"max", ctx.view.main_max}};
    j["dropped_tokens"] = ctx.view.trace ? ctx.view.trace->dropped_tokens : 0;
    j["dropped_decoder_tokens"] = ctx.view.trace ? ctx.view.trace->dropped_decoder_tokens : 0;
    j["token_count"] = ctx.view.trace ? static_cast<int>(ctx.view.trace->main.tokens.size()) : 0;
    j["notice"] = s.notice;
    const ModelInfo& i = ctx.view.info;
    j["info"] = {{"pretrained", i.pretrained}, {"kind", i.kind},         {"family", i.family},
                 {"d_model", i.d_model},       {"heads", i.heads},       {"kv_heads", i.kv_heads},
                 {"head_dim", i.head_dim},     {"layers", i.layers},     {"d_ff", i.d_ff},
                 {"vocab", i.vocab},           {"max_len", i.max_len},   {"parameters", i.parameters},
                 {"dtype", i.dtype},           {"memory_bytes", i.memory_bytes},
                 {"decoder_lm", i.decoder_lm},  {"example_title", i.example_title},
                 {"example_description", i.example_description}, {"example_source", i.example_source},
                 {"example_title_shown", in_ui_lang(i.example_title, i.example_title_zh)}};
    j["trace_model_arg"] = ctx.view.model_arg;
    j["load_ms"] = ctx.view.load_ms;
    j["forward_ms"] = ctx.view.forward_ms;
    const Trace* t = ctx.view.trace.get();
    j["has_trace"] = t != nullptr;
    j["analysis"] = analysis_json(ctx);
    j["train"] = train_json(ctx);
    j["experiment"] = experiment_json(ctx);
    if (!t) return j;
    j["tokens"] = t->main.tokens;
    j["ids"] = t->main.ids;
    j["n_layers"] = t->n_layers();
    j["kv_heads"] = t->config.kv_heads;
    nlohmann::json next = nlohmann::json::array();
    for (const Trace::NextToken& n : t->next_tokens) next.push_back({{"id", n.id}, {"text", n.text}, {"prob", n.prob}});
    j["next_tokens"] = next;
    nlohmann::json kv = nlohmann::json::array(), captions = nlohmann::json::array();
    for (int h = 0; h < heads_in(*t, MapKind::Self); ++h) {
        kv.push_back(kv_head_of(*t, h));
        captions.push_back(head_caption(*t, h));
    }
    j["heads"] = heads_in(*t, MapKind::Self);
    j["kv_head_of"] = kv;
    j["head_captions"] = captions;
    j["source_kind"] = ctx.view.source_kind;
    j["relation_caption"] = relation_caption(ctx.analysis, ctx.view.model_arg, s.layer, s.head);
    j["untrained"] = ctx.view.source_kind == "playground";  // the "untrained: random weights" label
    j["map_kind"] = s.map == MapKind::Self ? "self" : s.map == MapKind::DecoderSelf ? "decoder-self" : "decoder-cross";
    if (const nlohmann::json map = shown_map_json(*t, s); !map.is_null()) j["shown_map"] = map;
    return j;
}

}  // namespace hs
