#include "app/script.h"

#include <algorithm>
#include <sstream>

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
#include "core/corpus/grammar.h"
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
    std::string cmd;
    ss >> cmd;
    std::string rest;
    std::getline(ss >> std::ws, rest);
    AppState& s = ctx.state;
    try {
        if (cmd == "set") {
            std::istringstream kv(rest);
            std::string key, value;
            kv >> key >> value;
            set_config(s, key, value);
        } else if (cmd == "model") {
            s.set_model_arg(rest);
        } else if (cmd == "drop") {
            queue_drop(rest);
        } else if (cmd == "continue") {
            const int n = to_int("continue", rest);
            if (n < 1) throw Error("continue needs at least 1 token, got " + rest);
            s.pending_continue = n;
            s.dirty = true;
        } else if (cmd == "dump-state") {
            write_file_atomic(rest, dump_state(ctx).dump(2) + "\n");
        } else if (cmd == "text") {
            s.text = rest;
            s.dirty = true;
        } else if (cmd == "click") {  // NAME: a widget the panels offer (ClickTargets)
            if (!ctx.click_targets.recent(rest)) {
                // Drawn but scrolled out of its panel: scroll it into view, as a user would,
                // and read this line again on the next frame.
                if (ctx.click_targets.scrolled_out(rest) && reveal_tries_++ < 3) {
                    ctx.click_targets.reveal(rest);
                    --next_;
                    return true;
                }
                throw Error("click: no widget '" + rest + "' is shown (shown: " + ctx.click_targets.recent_names() + ")");
            }
            reveal_tries_ = 0;
            click_ = rest;
        } else if (cmd == "help") {  // welcome | about | close
            if (rest != "welcome" && rest != "about" && rest != "close")
                throw Error("help takes welcome, about or close, got '" + rest + "'");
            ctx.help.welcome = rest == "welcome";
            ctx.help.about = rest == "about";
        } else if (cmd == "pipeline-layout") {  // textbook | pytorch
            if (rest != "textbook" && rest != "pytorch") throw Error("pipeline-layout takes textbook or pytorch, got '" + rest + "'");
            ctx.pipeline.textbook = rest == "textbook";
        } else if (cmd == "pipeline-scroll") {  // X pixels from the strip's start (large: its end)
            ctx.pipeline.scroll_to = static_cast<float>(std::stod(rest));
        } else if (cmd == "save-settings") {  // now, as the window does when it closes (scripted runs do not)
            if (ctx.settings_path.empty()) throw Error("save-settings: this run has no settings file (--no-settings)");
            const ImVec2 d = ImGui::GetIO().DisplaySize;
            const std::string err = save_settings(ctx.settings_path, s, WindowSize{static_cast<int>(d.x), static_cast<int>(d.y)});
            if (!err.empty()) throw Error(err);
        } else if (cmd == "lang") {  // en | zh: the interface language
            use_ui_lang(ctx, parse_ui_lang(rest));
        } else if (cmd == "zoom") {  // the Ctrl + / − text size, e.g. 1.5
            const double z = std::stod(rest);
            if (!(z >= AppState::kMinZoom - 1e-6 && z <= AppState::kMaxZoom + 1e-6))
                throw Error("zoom must be from 0.6 to 2.5, got " + rest);
            s.ui_zoom = std::clamp(static_cast<float>(z), AppState::kMinZoom, AppState::kMaxZoom);
        } else if (cmd == "keep-first") {  // on | off: a text over max_len runs its first max_len tokens
            if (rest != "on" && rest != "off") throw Error("keep-first takes on or off, got '" + rest + "'");
            s.keep_first_tokens = rest == "on";
            s.dirty = true;
        } else if (cmd == "select") {
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
        } else if (cmd == "edit") {
            std::istringstream kv(rest);
            std::string which;
            int r = 0, c = 0;
            float v = 0.0f;
            if (!(kv >> which >> r >> c >> v)) throw Error("edit needs: x|w_in|w_out ROW COL VALUE");
            const Editable e = which == "x" ? Editable::X : which == "w_in" ? Editable::WIn
                               : which == "w_out" ? Editable::WOut : throw Error("edit x, w_in or w_out");
            edit_worked_example_cell(s, e, r, c, v);
        } else if (cmd == "analyze") {
            request_analysis(ctx);
        } else if (cmd == "ablate" || cmd == "restore") {
            if (rest == "all" && cmd == "restore") {
                s.ablated.clear();
                s.dirty = true;
            } else {
                const HeadRef h = parse_head_ref(rest);
                if (h.in_decoder || h.cross) throw Error("the app ablates main-stack self-attention heads (L.H), got " + rest);
                if (ctx.view.trace && (h.layer >= ctx.view.trace->n_layers() || h.head >= heads_in(*ctx.view.trace, MapKind::Self)))
                    throw Error("the trace has no head " + rest);
                if ((cmd == "ablate") != s.is_ablated(h.layer, h.head)) s.toggle_ablation(h);
            }
        } else if (cmd == "ablate-mode") {
            s.ablate_mode = parse_ablation_mode(rest);
            if (!s.ablated.empty()) s.dirty = true;
        } else if (cmd == "rank-heads") {
            request_rank_heads(ctx);
        } else if (cmd == "corpus") {
            if (rest == "samples") request_corpus(ctx, sample_sentences(ctx, false), "samples (en)");
            else request_corpus(ctx, split_lines(read_file(rest, kMaxTextBytes, "a text file")), rest);
        } else if (cmd == "relations") {  // grammar | samples: relation probes (waits for the result)
            if (rest != "grammar" && rest != "samples") throw Error("relations takes grammar or samples, got '" + rest + "'");
            ctx.analysis.relations_corpus_choice = rest == "grammar" ? 0 : 1;  // as the tab's radio buttons pick it
            if (rest == "grammar") request_relations(ctx, corpus::probe_corpus(), "grammar sentences (600, seed 99)");
            else request_relations(ctx, gold_samples(ctx), "samples with gold relations");
        } else if (cmd == "relations-show") {  // RELATION LANG: its best head on a sample with gold arcs
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
            show_relation_head(ctx, *run, *score);
        } else if (cmd == "view") {
            settle_frames_ = 2;
            if (rest == "analysis") s.view_mode = ViewMode::Analysis;
            else if (rest == "attention") s.view_mode = ViewMode::Attention;
            else if (rest == "train") s.view_mode = ViewMode::Train;
            else throw Error("view must be attention, analysis or train, got '" + rest + "'");
        } else if (cmd == "train") {
            set_train_field(ctx.train, rest);
        } else if (cmd == "train-start") {  // the script waits until the run has finished
            ctx.train_worker.start(training_setup(ctx.train), true);
        } else if (cmd == "train-timeline") {
            ctx.train.timeline = to_int(cmd, rest);
        } else if (cmd == "train-show") {  // STEP | last: that snapshot's model in every view
            ctx.train.progress = ctx.train_worker.progress();  // the run as it ended, not as the frame began
            const std::vector<int> steps = trained_steps(ctx.train);
            if (steps.empty()) throw Error("train-show: no snapshot holds weights yet (run train-start first)");
            const int step = rest == "last" ? steps.back() : to_int(cmd, rest);
            const auto snapshot = trained_snapshot(ctx.train, ctx.train.progress.run_id, step);
            if (!snapshot) throw Error("train-show: no snapshot of step " + rest + " holds weights");
            show_trained_snapshot(ctx.state, ctx.train, *snapshot);
        } else if (cmd == "train-table") {
            ctx.train.show_head_table = rest == "on";
        } else if (cmd == "train-save") {  // [--replace] DIR, as the Save and Replace buttons
            const bool replace = rest.rfind("--replace ", 0) == 0;
            ctx.train.save_dir = replace ? rest.substr(10) : rest;  // typed into the field
            ctx.train_worker.save(ctx.train.save_dir, replace);
        } else if (cmd == "train-experiment") {  // KEY VALUES; the script waits until it has run
            std::istringstream kv(rest);
            std::string key, values;
            kv >> key >> values;
            if (key != "heads" && key != "d_model") throw Error("train-experiment takes heads or d_model, got '" + key + "'");
            ctx.train.experiment_key = key == "d_model" ? 1 : 0;
            ctx.train.experiment_values = values;
            ctx.train.select_experiment_tab = true;
            ctx.experiment_worker.start(experiment_setup(ctx.train));
        } else if (cmd == "export-experiment-csv") {
            export_experiment_csv(ctx, rest);
        } else if (cmd == "export-experiment-png") {
            export_experiment_png(ctx, rest);
        } else if (cmd == "analysis-tab") {
            settle_frames_ = 2;
            if (rest != "heads" && rest != "plots" && rest != "similarity" && rest != "ablation" && rest != "rollout" &&
                rest != "relations")
                throw Error("analysis-tab must be heads, plots, similarity, ablation, rollout or relations");
            s.view_mode = ViewMode::Analysis;
            s.select_analysis_tab = rest;
        } else if (cmd == "export-metrics-csv") {
            ctx.export_status.last_path = export_metrics_csv(ctx, rest);
        } else if (cmd == "export-analysis-json") {
            ctx.export_status.last_path = export_analysis_json(ctx, rest);
        } else if (cmd == "export-analysis-png") {
            std::istringstream kv(rest);
            std::string what, path;
            kv >> what >> path;
            if (what == "jsd") ctx.export_status.last_path = export_jsd_figure(ctx, path);
            else if (what == "rollout") ctx.export_status.last_path = export_rollout_figure(ctx, path);
            else {
                bool found = false;
                for (Metric m : all_metrics())
                    if (what == metric_name(m)) {
                        ctx.export_status.last_path = export_metric_figure(ctx, m, path);
                        found = true;
                    }
                if (!found) throw Error("export-analysis-png needs jsd, rollout or a metric name, got '" + what + "'");
            }
        } else if (cmd == "tab") {
            settle_frames_ = 2;
            if (rest != "pipeline" && rest != "layers" && rest != "export" && rest != "article")
                throw Error("tab must be pipeline, layers, export or article");
            if (rest == "article" && !article_tab_available(ctx))
                throw Error("this model has no article to compare with (a worked example from an article has one)");
            s.select_tab = rest;
        } else if (cmd == "colormap") {
            s.colormap = parse_colormap(rest);
        } else if (cmd == "export-png" || cmd == "export-grid" || cmd == "export-csv" || cmd == "export-json") {
            if (!ctx.view.trace) throw Error("nothing to export: no trace");
            if (!s.config_errors.empty()) throw Error("cannot export while the config is invalid: " + s.config_errors.front());
            // The map on screen is of an older input: exporting it would pass it off as this one.
            if (!ctx.view.error.empty()) throw Error("cannot export: " + ctx.view.error);
            const Trace& t = *ctx.view.trace;
            if (cmd == "export-png") ctx.export_status.last_path = export_head_figure(ctx.view, s, rest);
            else if (cmd == "export-grid") ctx.export_status.last_path = export_grid_figure(t, s, rest);
            else if (cmd == "export-csv") ctx.export_status.last_path = export_head_csv(ctx.view, s, rest);
            else ctx.export_status.last_path = export_trace_json(t, rest);
        } else if (cmd == "screenshot") {
            screenshot_ = rest;
            screenshot_delay_ = 3;
        } else if (cmd == "expect-error") {
            expected_error_text_ = current_error(ctx);
            if (expected_error_text_.empty()) throw Error("expected a validation or compute error, but there is none");
        } else if (cmd == "quit") {
            next_ = lines_.size();
        } else {
            throw Error("unknown command '" + cmd + "'");
        }
    } catch (const std::exception& e) {
        error_ = "line '" + line + "': " + e.what();
        return false;
    }
    return true;
}

}  // namespace hs
