#include "app/script.h"

#include <algorithm>
#include <sstream>

#include <imgui.h>

#include "app/analysis_actions.h"
#include "app/app.h"
#include "app/analysis_files.h"
#include "app/exporter.h"
#include "app/i18n/use_lang.h"
#include "app/panels/panels.h"
#include "app/settings.h"
#include "app/state_dump.h"
#include "core/io/atomic_file.h"
#include "core/analysis/ablation.h"
#include "core/analysis/corpus.h"
#include "core/corpus/annotated.h"
#include "core/error.h"

namespace hs {
namespace {

int to_int(const std::string& key, const std::string& v) {
    try {
        std::size_t used = 0;
        const int x = std::stoi(v, &used);
        if (used == v.size()) return x;
    } catch (const std::exception&) {
    }
    throw Error("'" + key + "' needs a whole number, got '" + v + "'");
}

// "train KEY VALUE": a field of the Train view's setup, as its controls set it.
void set_train_field(TrainView& v, const std::string& rest) {
    std::istringstream kv(rest);
    std::string key, value;
    kv >> key >> value;
    if (key == "task") {
        const auto* at = std::find(std::begin(kTrainTasks), std::begin(kTrainTasks) + kTextFileTask, value);
        if (at == std::begin(kTrainTasks) + kTextFileTask)
            throw Error("train task must be copy, reverse, sort, induction or grammar (or: train text-file PATH)");
        v.task = static_cast<int>(at - std::begin(kTrainTasks));
    } else if (key == "spec") v.spec = value;
    else if (key == "text-file") {  // the rest of the line: a path may hold spaces
        v.task = kTextFileTask;
        v.text_file = rest.substr(rest.find_first_not_of(' ', key.size()));
    } else if (key == "level") {
        if (value != "char" && value != "word") throw Error("train level must be char or word, got '" + value + "'");
        v.text_level = value == "word" ? 1 : 0;
    }
    else if (key == "steps") v.steps = to_int(key, value);
    else if (key == "batch") v.batch = to_int(key, value);
    else if (key == "every") v.every = to_int(key, value);
    else if (key == "warmup") v.warmup = to_int(key, value);
    else if (key == "seed") v.seed = to_int(key, value);
    else if (key == "lr") v.lr = std::stof(value);
    else throw Error("train takes task, text-file, level, spec, steps, batch, lr, warmup, every or seed; got '" + key + "'");
}

void set_config(AppState& s, const std::string& key, const std::string& value) {
    const ModelConfig before = s.config;
    set_spec_key(s.config, key, value);  // the keys and values of a playground spec
    follow_edit(before, s.config);       // as the Model panel: arch → its mask, d_model → d_ff
    s.source = SourceKind::Playground;
    s.dirty = true;
}

// "select layer N | head N | map self|decoder-self|cross": the heatmap's block and head.
void select(AppContext& ctx, const std::string& rest) {
    AppState& s = ctx.state;
    std::istringstream kv(rest);
    std::string what, value;
    kv >> what >> value;
    if (what == "layer") s.layer = to_int(what, value);
    else if (what == "head") s.head = to_int(what, value);
    else if (what == "map")
        s.map = value == "self" ? MapKind::Self
                : value == "decoder-self" ? MapKind::DecoderSelf
                : value == "cross" ? MapKind::DecoderCross
                                   : throw Error("map must be self, decoder-self or cross");
    else throw Error("select needs layer, head or map");
    if (ctx.view.trace) {
        const int layer = s.layer, head = s.head;
        clamp_selection(s, *ctx.view.trace);
        if (layer != s.layer || head != s.head)
            throw Error("the trace has no layer " + std::to_string(layer) + " head " + std::to_string(head));
    }
}

// "ablate L.H" (ablate = true) | "restore L.H" | "restore all": a head off / on (recomputes).
void ablate_or_restore(AppContext& ctx, bool ablate, const std::string& rest) {
    AppState& s = ctx.state;
    if (!ablate && rest == "all") {
        s.ablated.clear();
        s.dirty = true;
        return;
    }
    const HeadRef h = parse_head_ref(rest);
    if (h.in_decoder || h.cross) throw Error("the app ablates main-stack self-attention heads (L.H), got " + rest);
    if (ctx.view.trace && (h.layer >= ctx.view.trace->n_layers() || h.head >= heads_in(*ctx.view.trace, MapKind::Self)))
        throw Error("the trace has no head " + rest);
    if (ablate != s.is_ablated(h.layer, h.head)) s.toggle_ablation(h);
}

// "relations-show RELATION LANG": the relation's best head on a sample with gold arcs.
void show_relation(AppContext& ctx, const std::string& rest) {
    std::istringstream words(rest);
    std::string relation, lang;
    words >> relation >> lang;
    const RelationRun* run = nullptr;
    if (ctx.analysis.relations)
        for (const RelationRun& r : *ctx.analysis.relations)
            if (r.lang == lang) run = &r;
    if (!run) throw Error("relations-show: no probe of language '" + lang + "' (run relations first)");
    const auto score = std::find_if(run->scores.begin(), run->scores.end(), [&](const RelationScore& r) {
        return relation == corpus::relation_name(r.relation);
    });
    if (score == run->scores.end()) throw Error("relations-show: no arc of relation '" + relation + "' was probed");
    show_relation_head(analysis_context(ctx), *run, *score);
}

// "train-show STEP|last": that snapshot's model in every view.
void show_training_step(AppContext& ctx, const std::string& rest) {
    ctx.train.progress = ctx.train_worker.progress();  // the run as it ended, not as the frame began
    const std::vector<int> steps = trained_steps(ctx.train);
    if (steps.empty()) throw Error("train-show: no snapshot holds weights yet (run train-start first)");
    const int step = rest == "last" ? steps.back() : to_int("train-show", rest);
    const auto snapshot = trained_snapshot(ctx.train, ctx.train.progress.run_id, step);
    if (!snapshot) throw Error("train-show: no snapshot of step " + rest + " holds weights");
    show_trained_snapshot(ctx.state, ctx.train, *snapshot);
}

// "export-png|export-grid|export-csv|export-json PATH": the shown head or grid, as the
// Export tab writes them.
void export_shown(AppContext& ctx, const std::string& what, const std::string& path) {
    const AppState& s = ctx.state;
    if (!ctx.view.trace) throw Error("nothing to export: no trace");
    if (!s.config_errors.empty()) throw Error("cannot export while the config is invalid: " + s.config_errors.front());
    // The map on screen is of an older input: exporting it would pass it off as this one.
    if (!ctx.view.error.empty()) throw Error("cannot export: " + ctx.view.error);
    const Trace& t = *ctx.view.trace;
    if (what == "export-png") ctx.export_status.last_path = export_head_figure(ctx.view, s, path);
    else if (what == "export-grid") ctx.export_status.last_path = export_grid_figure(t, s, path);
    else if (what == "export-csv") ctx.export_status.last_path = export_head_csv(ctx.view, s, path);
    else ctx.export_status.last_path = export_trace_json(t, path);
}

// "export-analysis-png jsd|rollout|METRIC PATH".
void export_analysis_png(AppContext& ctx, const std::string& rest) {
    std::istringstream kv(rest);
    std::string what, path;
    kv >> what >> path;
    if (what == "jsd") ctx.export_status.last_path = export_jsd_figure(analysis_context(ctx), path);
    else if (what == "rollout") ctx.export_status.last_path = export_rollout_figure(analysis_context(ctx), path);
    else {
        for (Metric m : all_metrics())
            if (what == metric_name(m)) {
                ctx.export_status.last_path = export_metric_figure(analysis_context(ctx), m, path);
                return;
            }
        throw Error("export-analysis-png needs jsd, rollout or a metric name, got '" + what + "'");
    }
}

}  // namespace

ScriptRunner::ScriptRunner(const std::string& path) {
    // A directory, a device or a missing file: "cannot read PATH: reason".
    std::istringstream in(read_text_file(path));  // a file or a pipe (--script <(…))
    std::string line;
    while (std::getline(in, line)) {
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
        if (line.empty() || line[0] == '#') continue;
        lines_.push_back(line);
    }
    if (lines_.empty()) throw Error("script " + path + " has no commands (only blank lines and # comments)");
}

std::string ScriptRunner::take_screenshot_request() {
    if (screenshot_.empty() || --screenshot_delay_ > 0) return {};
    std::string out;
    out.swap(screenshot_);
    return out;
}

std::string ScriptRunner::unexpected_error(const AppContext& ctx) const {
    const std::string now = current_error(ctx);
    if (now.empty() || now == expected_error_text_) return "";
    return (next_ > 0 ? "line '" + lines_[next_ - 1] + "': " : "the starting model or text: ") + now;
}

bool ScriptRunner::step(AppContext& ctx) {
    if (finished() || !screenshot_.empty()) return true;  // a screenshot is still waiting
    if (settle_frames_ > 0) {
        --settle_frames_;
        return true;
    }
    // The previous action's recomputation failed (a model that does not open, a bad
    // edit): the run fails on that line unless this one expects the error.
    if (lines_[next_].rfind("expect-error", 0) != 0) {
        error_ = unexpected_error(ctx);
        if (!error_.empty()) return false;
    }
    // An acknowledged error covers the lines while it lasts, not its return after a fix.
    if (current_error(ctx).empty()) expected_error_text_.clear();
    const std::string line = lines_[next_++];
    std::istringstream ss(line);
    std::string name;
    ss >> name;
    std::string rest;
    std::getline(ss >> std::ws, rest);
    try {
        const auto& table = actions();
        const auto action = std::find_if(table.begin(), table.end(), [&](const Action& a) { return name == a.name; });
        if (action == table.end()) throw Error("unknown command '" + name + "' (headscope --script-actions lists them)");
        Line l{ctx, ctx.state, name, rest};
        action->run(*this, l);
    } catch (const std::exception& e) {
        error_ = "line '" + line + "': " + e.what();
        return false;
    }
    return true;
}

std::string script_actions_usage() {
    std::string out;
    for (const auto& [name, usage] : ScriptRunner::action_usages()) out += usage.empty() ? name + "\n" : name + " " + usage + "\n";
    return out;
}

std::vector<std::pair<std::string, std::string>> ScriptRunner::action_usages() {
    std::vector<std::pair<std::string, std::string>> out;
    for (const Action& a : actions()) out.emplace_back(a.name, a.usage);
    return out;
}

// The actions in docs/SCRIPTING.md's order. Each handler reads the rest of its line.
// Actions on the model and its input: which model, its config, the text, worked-example cells, clicks.
std::vector<ScriptRunner::Action> ScriptRunner::input_actions() {
    return {
        {"model", "MODEL", [](ScriptRunner&, Line& l) { l.s.set_model_arg(l.rest); }},
        {"set", "KEY VALUE", [](ScriptRunner&, Line& l) {
             std::istringstream kv(l.rest);
             std::string key, value;
             kv >> key >> value;
             set_config(l.s, key, value);
         }},
        {"drop", "PATH", [](ScriptRunner&, Line& l) { queue_drop(l.rest); }},
        {"text", "TEXT", [](ScriptRunner&, Line& l) {
             l.s.text = l.rest;
             l.s.dirty = true;
         }},
        {"keep-first", "on|off", [](ScriptRunner&, Line& l) {  // a text over max_len runs its first max_len tokens
             if (l.rest != "on" && l.rest != "off") throw Error("keep-first takes on or off, got '" + l.rest + "'");
             l.s.keep_first_tokens = l.rest == "on";
             l.s.dirty = true;
         }},
        {"continue", "N", [](ScriptRunner&, Line& l) {
             const int n = to_int("continue", l.rest);
             if (n < 1) throw Error("continue needs at least 1 token, got " + l.rest);
             l.s.pending_continue = n;
             l.s.dirty = true;
         }},
        {"edit", "x|w_in|w_out ROW COL VALUE", [](ScriptRunner&, Line& l) {
             std::istringstream kv(l.rest);
             std::string which;
             int r = 0, c = 0;
             float v = 0.0f;
             if (!(kv >> which >> r >> c >> v)) throw Error("edit needs: x|w_in|w_out ROW COL VALUE");
             const Editable e = which == "x" ? Editable::X : which == "w_in" ? Editable::WIn
                                : which == "w_out" ? Editable::WOut : throw Error("edit x, w_in or w_out");
             edit_worked_example_cell(l.s, e, r, c, v);
         }},
        {"click", "NAME", [](ScriptRunner& run, Line& l) {  // a widget the panels offer (ClickTargets)
             if (!l.ctx.click_targets.recent(l.rest)) {
                 // Drawn but scrolled out of its panel: scroll it into view, as a user would,
                 // and read this line again on the next frame.
                 if (l.ctx.click_targets.scrolled_out(l.rest) && run.reveal_tries_++ < 3) {
                     l.ctx.click_targets.reveal(l.rest);
                     --run.next_;
                     return;
                 }
                 throw Error("click: no widget '" + l.rest + "' is shown (shown: " + l.ctx.click_targets.recent_names() + ")");
             }
             run.reveal_tries_ = 0;
             run.click_ = l.rest;
         }},
        {"type", "TEXT", [](ScriptRunner& run, Line&) {  // into the text field that has the keyboard
             if (!ImGui::GetIO().WantTextInput) {
                 // A field clicked open takes the keyboard a frame or two later: read this line again.
                 if (run.type_tries_++ < 5) {
                     --run.next_;
                     return;
                 }
                 throw Error("type: no text field has the keyboard (click one first)");
             }
             run.type_tries_ = 0;
             const std::string& line = run.lines_[run.next_ - 1];  // leading spaces kept: "type  and"
             run.keyboard_.typed = line.substr(std::min(line.size(), line.find("type") + 5));
         }},
        {"key", "left|right|up|down|escape|enter|f1|f2|f3|f4", [](ScriptRunner& run, Line& l) {
             run.keyboard_.key = parse_key(l.rest);
         }},
        {"expect-error", "", [](ScriptRunner& run, Line& l) {
             run.expected_error_text_ = current_error(l.ctx);
             if (run.expected_error_text_.empty()) throw Error("expected a validation or compute error, but there is none");
         }},
    };
}

// Actions on what is shown: selection, colours, views, help, zoom, the Pipeline, the language, tabs.
std::vector<ScriptRunner::Action> ScriptRunner::view_actions() {
    return {
        {"select", "layer N|head N|map self|decoder-self|cross", [](ScriptRunner&, Line& l) { select(l.ctx, l.rest); }},
        {"colormap", "NAME", [](ScriptRunner&, Line& l) { l.s.colormap = parse_colormap(l.rest); }},
        {"view", "attention|analysis|train", [](ScriptRunner& run, Line& l) {
             run.settle_frames_ = 2;
             if (l.rest == "analysis") l.s.view_mode = ViewMode::Analysis;
             else if (l.rest == "attention") l.s.view_mode = ViewMode::Attention;
             else if (l.rest == "train") l.s.view_mode = ViewMode::Train;
             else throw Error("view must be attention, analysis or train, got '" + l.rest + "'");
         }},
        {"help", "welcome|about|close", [](ScriptRunner&, Line& l) {
             if (l.rest != "welcome" && l.rest != "about" && l.rest != "close")
                 throw Error("help takes welcome, about or close, got '" + l.rest + "'");
             l.ctx.help.welcome = l.rest == "welcome";
             l.ctx.help.about = l.rest == "about";
         }},
        {"zoom", "Z", [](ScriptRunner&, Line& l) {  // the Ctrl + / − text size, e.g. 1.5
             const double z = std::stod(l.rest);
             if (!(z >= AppState::kMinZoom - 1e-6 && z <= AppState::kMaxZoom + 1e-6))
                 throw Error("zoom must be from 0.6 to 2.5, got " + l.rest);
             l.s.ui_zoom = std::clamp(static_cast<float>(z), AppState::kMinZoom, AppState::kMaxZoom);
         }},
        {"pipeline-layout", "textbook|pytorch", [](ScriptRunner&, Line& l) {
             if (l.rest != "textbook" && l.rest != "pytorch")
                 throw Error("pipeline-layout takes textbook or pytorch, got '" + l.rest + "'");
             l.ctx.pipeline.textbook = l.rest == "textbook";
         }},
        {"pipeline-scroll", "X", [](ScriptRunner&, Line& l) {  // X pixels from the strip's start (large: its end)
             l.ctx.pipeline.scroll_to = static_cast<float>(std::stod(l.rest));
         }},
        {"save-settings", "", [](ScriptRunner&, Line& l) {  // now, as the window does when it closes
             if (l.ctx.settings_path.empty()) throw Error("save-settings: this run has no settings file (--no-settings)");
             const ImVec2 d = ImGui::GetIO().DisplaySize;
             const std::string err =
                 save_settings(l.ctx.settings_path, l.s, WindowSize{static_cast<int>(d.x), static_cast<int>(d.y)});
             if (!err.empty()) throw Error(err);
         }},
        {"lang", "en|zh", [](ScriptRunner&, Line& l) { use_ui_lang(l.ctx, parse_ui_lang(l.rest)); }},
        {"tab", "pipeline|layers|export|article", [](ScriptRunner& run, Line& l) {
             run.settle_frames_ = 2;
             if (l.rest != "pipeline" && l.rest != "layers" && l.rest != "export" && l.rest != "article")
                 throw Error("tab must be pipeline, layers, export or article");
             if (l.rest == "article" && !article_tab_available(l.ctx.view))
                 throw Error("this model has no article to compare with (a worked example from an article has one)");
             l.s.select_tab = l.rest;
         }},
        {"analysis-tab", "heads|plots|similarity|ablation|rollout|relations", [](ScriptRunner& run, Line& l) {
             run.settle_frames_ = 2;
             static const char* const kTabs[] = {"heads", "plots", "similarity", "ablation", "rollout", "relations"};
             if (std::find(std::begin(kTabs), std::end(kTabs), l.rest) == std::end(kTabs))
                 throw Error("analysis-tab must be heads, plots, similarity, ablation, rollout or relations");
             l.s.view_mode = ViewMode::Analysis;
             l.s.select_analysis_tab = l.rest;
         }},
    };
}

// Actions of the Analysis view: metrics, corpus, ablation, ranking, relations.
std::vector<ScriptRunner::Action> ScriptRunner::analysis_actions() {
    return {
        {"analyze", "", [](ScriptRunner&, Line& l) { request_analysis(analysis_context(l.ctx)); }},
        {"corpus", "samples|FILE", [](ScriptRunner&, Line& l) {
             if (l.rest == "samples") request_corpus(analysis_context(l.ctx), sample_sentences(l.ctx.samples, false), "samples (en)");
             else request_corpus(analysis_context(l.ctx), split_lines(read_file(l.rest, kMaxTextBytes, "a text file")), l.rest);
         }},
        {"ablate", "L.H", [](ScriptRunner&, Line& l) { ablate_or_restore(l.ctx, true, l.rest); }},
        {"restore", "L.H|all", [](ScriptRunner&, Line& l) { ablate_or_restore(l.ctx, false, l.rest); }},
        {"ablate-mode", "zero|mean", [](ScriptRunner&, Line& l) {
             l.s.ablate_mode = parse_ablation_mode(l.rest);
             if (!l.s.ablated.empty()) l.s.dirty = true;
         }},
        {"rank-heads", "", [](ScriptRunner&, Line& l) { request_rank_heads(analysis_context(l.ctx)); }},
        {"relations", "held-out|grammar|samples", [](ScriptRunner&, Line& l) {  // relation probes (waits for the result)
             if (l.rest != "held-out" && l.rest != "grammar" && l.rest != "samples")
                 throw Error("relations takes held-out, grammar or samples, got '" + l.rest + "'");
             request_relations(analysis_context(l.ctx), l.rest == "held-out" ? RelationsCorpus::HeldOut
                                                         : l.rest == "grammar" ? RelationsCorpus::Grammar
                                                                               : RelationsCorpus::Samples);
         }},
        {"relations-show", "RELATION LANG", [](ScriptRunner&, Line& l) { show_relation(l.ctx, l.rest); }},
    };
}

// Actions of the Train view: settings, start, timeline, table, snapshots, save, experiments.
std::vector<ScriptRunner::Action> ScriptRunner::training_actions() {
    return {
        {"train", "KEY VALUE", [](ScriptRunner&, Line& l) { set_train_field(l.ctx.train, l.rest); }},
        {"train-start", "", [](ScriptRunner&, Line& l) {  // the script waits until the run has finished
             l.ctx.train_worker.start(training_setup(l.ctx.train), true);
         }},
        {"train-timeline", "STEP", [](ScriptRunner&, Line& l) { l.ctx.train.timeline = to_int(l.name, l.rest); }},
        {"train-table", "on|off", [](ScriptRunner&, Line& l) { l.ctx.train.show_head_table = l.rest == "on"; }},
        {"train-show", "STEP|last", [](ScriptRunner&, Line& l) { show_training_step(l.ctx, l.rest); }},
        {"train-save", "[--replace] DIR", [](ScriptRunner&, Line& l) {  // as the Save and Replace buttons
             const bool replace = l.rest.rfind("--replace ", 0) == 0;
             l.ctx.train.save_dir = replace ? l.rest.substr(10) : l.rest;  // typed into the field
             l.ctx.train_worker.save(l.ctx.train.save_dir, replace);
         }},
        {"train-experiment", "heads|d_model VALUES", [](ScriptRunner&, Line& l) {  // waits until it has run
             std::istringstream kv(l.rest);
             std::string key, values;
             kv >> key >> values;
             if (key != "heads" && key != "d_model")
                 throw Error("train-experiment takes heads or d_model, got '" + key + "'");
             l.ctx.train.experiment_key = key == "d_model" ? 1 : 0;
             l.ctx.train.experiment_values = values;
             l.ctx.train.select_experiment_tab = true;
             l.ctx.experiment_worker.start(experiment_setup(l.ctx.train));
         }},
    };
}

// Output actions: screenshots, state dumps, exports, quit.
std::vector<ScriptRunner::Action> ScriptRunner::output_actions() {
    // export-png, export-grid, export-csv, export-json: the shown map (or grid) to PATH, in
    // the format the action names.
    const auto export_shown_map = [](ScriptRunner&, Line& l) { export_shown(l.ctx, l.name, l.rest); };
    return {
        {"screenshot", "PATH", [](ScriptRunner& run, Line& l) {
             run.screenshot_ = l.rest;
             run.screenshot_delay_ = 3;
         }},
        {"dump-state", "PATH", [](ScriptRunner& run, Line& l) {
             if (!run.dump_settled_) {  // this line again after three frames
                 run.dump_settled_ = true;
                 run.settle_frames_ = 3;
                 --run.next_;
                 return;
             }
             run.dump_settled_ = false;
             write_file_atomic(l.rest, dump_state(l.ctx).dump(2) + "\n");
         }},
        {"export-png", "PATH", export_shown_map},
        {"export-grid", "PATH", export_shown_map},
        {"export-csv", "PATH", export_shown_map},
        {"export-json", "PATH", export_shown_map},
        {"export-metrics-csv", "PATH", [](ScriptRunner&, Line& l) {
             l.ctx.export_status.last_path = export_metrics_csv(analysis_context(l.ctx), l.rest);
         }},
        {"export-analysis-json", "PATH", [](ScriptRunner&, Line& l) {
             l.ctx.export_status.last_path = export_analysis_json(analysis_context(l.ctx), l.rest);
         }},
        {"export-analysis-png", "jsd|rollout|METRIC PATH", [](ScriptRunner&, Line& l) { export_analysis_png(l.ctx, l.rest); }},
        {"export-experiment-csv", "PATH", [](ScriptRunner&, Line& l) { export_experiment_csv(l.ctx.experiment_worker, l.ctx.train, l.rest); }},
        {"export-experiment-png", "PATH", [](ScriptRunner&, Line& l) { export_experiment_png(l.ctx.experiment_worker, l.ctx.train, l.rest); }},
        {"quit", "", [](ScriptRunner& run, Line&) { run.next_ = run.lines_.size(); }},
    };
}

const std::vector<ScriptRunner::Action>& ScriptRunner::actions() {
    static const std::vector<Action> table = [] {
        std::vector<Action> all;
        for (std::vector<Action> (*group)() : {input_actions, view_actions, analysis_actions, training_actions, output_actions}) {
            const std::vector<Action> part = group();
            all.insert(all.end(), part.begin(), part.end());
        }
        return all;
    }();
    return table;
}

}  // namespace hs
