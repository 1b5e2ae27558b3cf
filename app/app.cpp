#include "app/app.h"

#include <algorithm>
#include <cstdlib>
#include <cfloat>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>
#include <vector>

#include <GLFW/glfw3.h>  // GLFW_INCLUDE_NONE: GL comes from app/gl/gl.h
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include "app/analysis_actions.h"
#include "app/context.h"
#include "app/frame_wait.h"
#include "app/gl/frame_signature.h"
#include "app/gl/gl.h"
#include "app/panels/panels.h"
#include "app/hooks/frame_hook.h"
#include "app/keys.h"
#include "app/i18n/messages.h"
#include "app/i18n/use_lang.h"
#include "app/settings.h"
#include "app/panels/window_extents.h"
#include "core/error.h"
#include "core/formats/gguf.h"
#include "core/io/atomic_file.h"
#include "core/kernels/memory_policy.h"
#include "core/train/trained_source.h"
#include "core/assets.h"

namespace hs {
namespace {

std::vector<std::string> g_dropped;  // paths dropped on the window (GLFW callback)
bool g_window_exposed = false;  // the window system asked for a redraw (GLFW refresh callback)

void on_drop(GLFWwindow*, int count, const char** paths) {
    for (int i = 0; i < count; ++i) queue_drop(paths[i]);
}

void apply_theme(float scale) {
    ImGui::GetStyle() = ImGuiStyle();  // sizes from scratch: ScaleAllSizes multiplies
    ImGui::StyleColorsDark();
    ImGuiStyle& style = ImGui::GetStyle();
    style.WindowRounding = 4.0f;
    style.FrameRounding = 3.0f;
    style.GrabRounding = 3.0f;
    style.WindowBorderSize = 1.0f;
    style.FramePadding = ImVec2(6, 4);
    style.ItemSpacing = ImVec2(8, 6);
    style.Colors[ImGuiCol_WindowBg] = ImVec4(0.11f, 0.12f, 0.14f, 1.0f);
    style.Colors[ImGuiCol_TitleBgActive] = ImVec4(0.18f, 0.24f, 0.34f, 1.0f);
    style.Colors[ImGuiCol_TitleBg] = ImVec4(0.15f, 0.18f, 0.24f, 1.0f);
    style.ScaleAllSizes(scale);
}

std::string detail_key(const AppState& s) {
    if (!s.pipeline_open) return "-";
    return std::to_string(s.layer) + "/" + std::to_string(int(s.map));
}

// Turns pending edits into a worker request (validation errors keep the old trace).
// Returns whether it submitted one.
bool submit_if_dirty(AppContext& ctx, std::string& submitted_detail) {
    AppState& s = ctx.state;
    if (!s.dirty && detail_key(s) == submitted_detail) return false;
    if (!s.dirty && ctx.view.partial) return false;  // the whole trace, with the Pipeline's layer, is coming
    if (!s.dirty && !s.pipeline_open) return false;
    s.dirty = false;
    // A model that did not open stays chosen in the Model panel (its path, its error) until
    // another is chosen; meanwhile the window computes with the model on screen.
    const bool on_shown = s.computes_on_shown_model();
    const AppState::ModelChoice c = on_shown ? *s.shown_model : s.model_choice();
    // A trained source's snapshot: its weights are shared with the request, the Model is built on the worker.
    const auto snapshot =
        c.source == SourceKind::Trained ? trained_snapshot(ctx.train, c.trained_run, c.trained_step) : nullptr;
    if (c.source == SourceKind::Playground) {
        s.config_errors = validate(c.config);
        if (!s.config_errors.empty()) return false;
    } else if (c.source == SourceKind::ModelDirectory && c.model_dir.empty()) {
        s.config_errors = {"Type the path of a model file or directory and press Enter (or drop one here)."};
        return false;
    } else if (c.source == SourceKind::Trained && !snapshot) {
        s.config_errors = {"That training run is gone (reset, replaced or its step thinned away): pick a step of the "
                           "current run, or another model."};
        return false;
    } else {
        s.config_errors.clear();
    }
    ComputeRequest r;
    r.model_arg = c.arg();
    s.requested_model = c;
    if (!on_shown) {  // another model chosen (or the one on screen again): it speaks for itself
        s.failed_model_arg.clear();
        s.open_error.clear();
    }
    if (c.source == SourceKind::WorkedExample) r.example = c.edited_example;
    if (c.source == SourceKind::Playground) r.playground = c.config;
    if (snapshot)
        r.open = [weights = snapshot->weights, config = ctx.train.progress.config, task = ctx.train.progress.task,
                  name = r.model_arg] { return train::make_trained_source(Model(config, *weights), task, name); };
    else if (ctx.view.source && r.model_arg == ctx.view.model_arg) {
        r.open = [source = ctx.view.source] { return source; };  // the model on screen, if the worker let it go
        r.shown_source = true;
    }
    r.input.text = s.text;
    r.sample_texts = ctx.sample_texts;
    r.input.keep_first = s.keep_first_tokens;
    r.input.decoder_text = s.decoder_text;
    r.continue_tokens = s.pending_continue;
    s.pending_continue = 0;
    // Scores (the hover readout of the raw score) only while they stay under ~256 MB:
    // the forward decides once it has tokenized the text.
    r.options.scores = true;
    r.options.scores_cell_limit = 64LL * 1024 * 1024;
    // Ablated heads that exist in the model about to run (edits may have removed some).
    int max_layers = 1 << 30, max_heads = 1 << 30;
    if (c.source == SourceKind::Playground) {
        max_layers = c.config.layers;
        max_heads = c.config.heads;
    } else if (ctx.view.trace && ctx.view.model_arg == r.model_arg) {
        max_layers = ctx.view.trace->n_layers();
        max_heads = heads_in(*ctx.view.trace, MapKind::Self);
    }
    std::erase_if(s.ablated, [&](const HeadRef& h) { return h.layer >= max_layers || h.head >= max_heads; });
    if (c.source != SourceKind::WorkedExample) {
        r.options.ablate = s.ablated;
        r.options.ablate_mode = s.ablate_mode;
    }
    r.options.resident_layer = s.layer;  // issue 6: the selected layer keeps its maps
    r.options.resident_in_decoder = s.map != MapKind::Self;
    if (s.pipeline_open) {
        r.options.detail_layer = s.layer;
        r.options.detail_in_decoder = s.map != MapKind::Self;
        r.options.detail_cross = s.map == MapKind::DecoderCross;
    }
    submitted_detail = detail_key(s);
    ctx.worker.submit(std::move(r));
    return true;
}

void handle_drops(AppContext& ctx) {
    for (const std::string& path : g_dropped) {
        namespace fs = std::filesystem;
        std::error_code ec;
        const fs::path p(path);
        const std::string name = p.filename().string();
        // A model's config.json or a .safetensors file stands for its directory.
        const bool model_file = name == "config.json" || p.extension() == ".safetensors";
        const bool checkpoint = p.extension() == ".bin" || p.extension() == ".gguf" || looks_like_gguf(path);
        if (fs::is_directory(path, ec) || checkpoint || model_file ||
            (path.size() > 5 && path.ends_with(".json"))) {
            const std::string model = model_file ? p.parent_path().string() : path;
            ctx.state.set_model_arg(model);
            ctx.state.notice = "Opened " + model;
        } else {
            std::string text;
            try {
                text = read_file(path, kMaxInputTextBytes, "the text box");
            } catch (const Error& e) {
                ctx.state.notice = e.what();
                continue;
            }
            ctx.state.text = input_text_of_file(std::move(text));
            ctx.state.dirty = true;
            ctx.state.notice = "Loaded text from " + path;
        }
    }
    g_dropped.clear();
}

void draw_progress_overlay(AppContext& ctx) {
    if (!ctx.worker.busy() || ctx.worker.busy_seconds() < kProgressOverlaySeconds) return;
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    ImGui::SetNextWindowPos(ImVec2(display.x * 0.5f, 8.0f * ctx.ui_scale), ImGuiCond_Always,
                            ImVec2(0.5f, 0.0f));
    ImGui::SetNextWindowBgAlpha(0.9f);
    begin_window("##progress", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                     ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav);
    const int total = ctx.worker.progress_total(), done = ctx.worker.progress_done();
    const float frac = total > 0 ? float(done) / float(total) : 0.0f;
    const WorkerPhase phase = ctx.worker.phase();
    const char* what = phase == WorkerPhase::Loading      ? tr("loading the model…")
                       : phase == WorkerPhase::Generating ? tr("continuing the text…")
                                                          : tr("forward pass…");
    char label[160];
    if (total > 0)
        std::snprintf(label, sizeof label, phase == WorkerPhase::Generating ? tr("%s %d/%d tokens") : tr("%s %d/%d layers"),
                      what, done, total);
    else
        std::snprintf(label, sizeof label, "%s %.1f s", what, ctx.worker.busy_seconds());
    ImGui::ProgressBar(frac, ImVec2(300.0f * ctx.ui_scale, 0.0f),
                       label);
    ImGui::SameLine();
    if (ImGui::Button(tr("cancel"))) {
        ctx.worker.cancel();
        AppState& s = ctx.state;
        const std::string cancelled = "Cancelled; the last result stays on screen.";
        // A load of another model cancelled: the window goes on with the model on screen,
        // as after a model that did not open.
        if (ctx.view.trace && s.model_arg() != ctx.view.model_arg && s.shown_model)
            s.keep_shown_model(s.model_arg(), cancelled);
        else
            s.notice = cancelled;
    }
    end_window();
}

// ← → heads, ↑ ↓ layers, wherever the last click was (a grid thumbnail, the Pipeline, a
// tab), except while a text field has the keyboard or a widget is held (a slider dragged).
void handle_selection_keys(AppContext& ctx) {
    if (!ctx.view.trace) return;
    AppState& s = ctx.state;
    if (!ImGui::GetIO().WantTextInput && !ImGui::IsAnyItemActive()) {
        if (key_pressed(Key::Right)) ++s.head;
        if (key_pressed(Key::Left)) --s.head;
        if (key_pressed(Key::Down)) ++s.layer;
        if (key_pressed(Key::Up)) --s.layer;
    }
    clamp_selection(s, *ctx.view.trace);
}

// Keys that work everywhere: F1 help, F2 / F3 / F4 views, the arrows, Ctrl + / − / 0 text size.
void handle_global_keys(AppContext& ctx) {
    AppState& s = ctx.state;
    const ImGuiIO& io = ImGui::GetIO();
    handle_selection_keys(ctx);
    if (key_pressed(Key::F1)) ctx.help.welcome = !ctx.help.welcome;
    if (key_pressed(Key::F2)) s.view_mode = ViewMode::Attention;
    if (key_pressed(Key::F3)) s.view_mode = ViewMode::Analysis;
    if (key_pressed(Key::F4)) s.view_mode = ViewMode::Train;
    if (!io.KeyCtrl) return;
    if (key_pressed(Key::Equal) || key_pressed(Key::KeypadAdd)) s.zoom_in();
    if (key_pressed(Key::Minus) || key_pressed(Key::KeypadSubtract)) s.zoom_out();
    if (key_pressed(Key::Zero) || key_pressed(Key::Keypad0)) s.ui_zoom = 1.0f;
}

// The bar across the top: Attention | Analysis | Train views (F2 / F3 / F4), Help (F1),
// and what is ablated. Returns its height.
float draw_view_bar(AppContext& ctx) {
    AppState& s = ctx.state;
    handle_global_keys(ctx);
    float height = 0.0f;
    if (begin_main_menu_bar()) {
        ImGui::TextDisabled("HeadScope");
        if (ImGui::MenuItem(tr("Attention"), "F2", s.view_mode == ViewMode::Attention)) s.view_mode = ViewMode::Attention;
        if (ImGui::MenuItem(tr("Analysis"), "F3", s.view_mode == ViewMode::Analysis)) s.view_mode = ViewMode::Analysis;
        if (ImGui::MenuItem(tr("Train"), "F4", s.view_mode == ViewMode::Train)) s.view_mode = ViewMode::Train;
        if (ImGui::BeginMenu(tr("Help###help"))) {
            if (ImGui::MenuItem(tr("Welcome and what to try"), "F1")) ctx.help.welcome = true;
            if (ImGui::MenuItem(tr("Larger text"), "Ctrl +")) s.zoom_in();
            if (ImGui::MenuItem(tr("Smaller text"), "Ctrl -")) s.zoom_out();
            if (ImGui::MenuItem(tr("Text size 100%"), "Ctrl 0")) s.ui_zoom = 1.0f;
            ImGui::Separator();
            if (ImGui::MenuItem(tr("About HeadScope"))) ctx.help.about = true;
            ImGui::Separator();
            // Each language names itself, so a user lost in the other one finds their own.
            if (ImGui::MenuItem("English", nullptr, ui_lang() == UiLang::English)) use_ui_lang(ctx, UiLang::English);
            if (ImGui::MenuItem("简体中文", nullptr, ui_lang() == UiLang::Chinese)) use_ui_lang(ctx, UiLang::Chinese);
            ImGui::EndMenu();
        }
        if (!s.ablated.empty()) {
            std::string off;
            for (const HeadRef& h : s.ablated) off += " L" + std::to_string(h.layer) + ".H" + std::to_string(h.head);
            ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), tr("  ablated (%s):%s"), tr(to_string(s.ablate_mode)),
                               off.c_str());
        }
        if (s.view_mode == ViewMode::Attention && ctx.analysis.analysis)
            ImGui::TextDisabled(tr("  analysis: %s"), tr_message(ctx.analysis.status).c_str());
        height = ImGui::GetWindowSize().y;
        end_main_menu_bar();
    }
    return height;
}

// The fixed layout: left column (Model over Input), top right (Heatmap | Grid),
// bottom right (Pipeline / Layer outputs / Export tabs). Proportions follow the window.
void draw_layout(AppContext& ctx, const std::string& bench_view) {
    const ImVec2 d = ImGui::GetIO().DisplaySize;
    if (bench_view == "grid") {
        draw_grid_panel(grid_panel_context(ctx), {ImVec2(0, 0), d});
        return;
    }
    if (bench_view == "heatmap") {
        draw_heatmap_panel(heatmap_panel_context(ctx), {ImVec2(0, 0), d});
        return;
    }
    const float bar_h = draw_view_bar(ctx);
    const float h = d.y - bar_h;
    if (ctx.state.view_mode == ViewMode::Train) {
        draw_train_panel(train_panel_context(ctx), {ImVec2(0, bar_h), ImVec2(d.x, h)});
        return;
    }
    const float left_w = std::clamp(d.x * 0.24f, 300.0f * ctx.ui_scale, 440.0f * ctx.ui_scale);
    const float model_h = std::floor(h * 0.56f);
    draw_model_panel(model_panel_context(ctx), {ImVec2(0, bar_h), ImVec2(left_w, model_h)});
    draw_input_panel(input_panel_context(ctx), {ImVec2(0, bar_h + model_h), ImVec2(left_w, h - model_h)});
    const float right_w = d.x - left_w;
    if (ctx.state.view_mode == ViewMode::Analysis) {
        // Analysis: the analysis window, and beside it the grid (ctrl-click ablates) over
        // the selected head's map, so an ablation's effect on later maps stays in view.
        // The grid gets the height its thumbnails need (as laid out last frame; it depends on
        // the width only), between 30 % and 50 %, the map the rest: at 1280×720 a fixed half
        // left the grid's lower third empty and the map ~100 px.
        const float analysis_w = std::floor(right_w * 0.62f);
        const float wanted_h = ctx.grid_content_h > 0.0f ? ctx.grid_content_h : h * 0.5f;
        const float grid_h = std::floor(std::clamp(wanted_h, h * 0.3f, h * 0.5f));
        draw_analysis_panel(analysis_panel_context(ctx), {ImVec2(left_w, bar_h), ImVec2(analysis_w, h)});
        ctx.grid_content_h =
            draw_grid_panel(grid_panel_context(ctx), {ImVec2(left_w + analysis_w, bar_h), ImVec2(right_w - analysis_w, grid_h)});
        draw_heatmap_panel(heatmap_panel_context(ctx), {ImVec2(left_w + analysis_w, bar_h + grid_h), ImVec2(right_w - analysis_w, h - grid_h)});
        return;
    }
    // Attention: the Heatmap, and beside it the heatmap's controls (layer, head, colours)
    // over the grid. In the Heatmap panel the controls took three rows from the map, while
    // the grid's thumbnails, sized by the width, left the column's lower half empty (at
    // 1280×720 the map had ~200 px, the grid ~200 px to spare).
    const float top_h = std::floor(h * 0.64f);
    const float heat_w = std::floor(right_w * 0.58f), side_w = right_w - heat_w;
    const float controls_h = std::floor(std::min(
        ctx.heatmap_controls_h > 0.0f ? ctx.heatmap_controls_h : 4.0f * ImGui::GetFrameHeightWithSpacing(), top_h * 0.5f));
    draw_heatmap_panel(heatmap_panel_context(ctx), {ImVec2(left_w, bar_h), ImVec2(heat_w, top_h)}, false);
    ctx.heatmap_controls_h =
        draw_heatmap_controls_panel(heatmap_panel_context(ctx), {ImVec2(left_w + heat_w, bar_h), ImVec2(side_w, controls_h)});
    draw_grid_panel(grid_panel_context(ctx), {ImVec2(left_w + heat_w, bar_h + controls_h), ImVec2(side_w, top_h - controls_h)});
    draw_detail_panels(detail_panels_context(ctx), {ImVec2(left_w, bar_h + top_h), ImVec2(right_w, h - top_h)});
}

// Under Mesa's software rasteriser (llvmpipe, as under Xvfb) one thread more than the
// cores, unless the user chose LP_NUM_THREADS: after idle frames one of the threads is
// slow to wake (its virtual CPU has halted), and with work cut in more pieces the others
// take over its share. The frame showing a live edit's result drew in 13.9 ms with 2
// threads and 9.6 ms with 3 on the 2-core VM. Hardware drivers ignore the variable.
void use_one_more_rasteriser_thread() {
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    setenv("LP_NUM_THREADS", std::to_string(cores + 1).c_str(), /*overwrite=*/0);
}

// The selection clamped to the view's trace. A partial trace (a big model's first layers)
// would clamp the selection to its few layers: the selection before it is held, and given
// back when the whole trace (or an error) arrives, unless the user chose another meanwhile.
void keep_selection_across_partial_traces(TraceView& view, AppState& s, bool partial) {
    using Held = TraceView::HeldSelection;
    if (partial && !view.held_selection) view.held_selection = Held{s.layer, s.head, s.map};
    if (!partial && view.held_selection) {
        const Held& h = *view.held_selection;
        if (s.layer == h.clamped_layer && s.head == h.clamped_head && s.map == h.clamped_map) {
            s.layer = h.layer;
            s.head = h.head;
            s.map = h.map;
        }
        view.held_selection.reset();
    }
    if (!view.trace) return;
    clamp_selection(s, *view.trace);
    if (partial) {
        view.held_selection->clamped_layer = s.layer;
        view.held_selection->clamped_head = s.head;
        view.held_selection->clamped_map = s.map;
    }
}

// The newest finished trace replaces the old one (step 2). Returns whether it brought a trace.
bool take_newest_result(AppContext& ctx) {
    auto result = ctx.worker.take_result();
    if (!result) result = ctx.worker.take_partial();  // a big model's first layers, the others running
    if (!result) return false;
    const bool trace = bool(result->trace);
    AppState& s = ctx.state;
    // A model that did not open (not a text it cannot read): the window goes on with the
    // model on screen and what was selected in it, recomputing any edit made meanwhile;
    // the Model panel keeps the choice that failed, with open_error saying why.
    if (!trace && !result->input_error && ctx.view.trace && result->model_arg != ctx.view.model_arg &&
        s.shown_model && s.shown_model->arg() == ctx.view.model_arg) {
        s.keep_shown_model(result->model_arg, result->error);
        if (s.notice == "Opened " + result->model_arg) s.notice.clear();  // a drop's notice: it did not open
        return false;
    }
    const bool partial = result->partial;
    if (trace && !partial) {  // a partial trace's model is shown once its whole trace arrives
        s.view_before_open.reset();
        if (s.requested_model && s.requested_model->arg() == result->model_arg) s.shown_model = s.requested_model;
        // The trace belongs to another text ("continue", a model's own example), which
        // replaces the input without another recomputation.
        if (result->adopt_text) {
            s.text = result->adopt_text->text;
            s.notice = result->adopt_text->notice;
            s.text_notice = AppState::TextNotice{s.text, s.notice};
        } else if (s.text_notice && s.text != s.text_notice->text) {  // the user typed another text
            if (s.notice == s.text_notice->notice) s.notice.clear();  // unless another notice replaced it
            s.text_notice.reset();
        }
        if (ctx.state.source == SourceKind::ModelDirectory && result->model_arg == ctx.state.model_dir)
            ctx.state.remember_model(result->model_arg);
    }
    ctx.view.accept(std::move(*result));
    keep_selection_across_partial_traces(ctx.view, s, partial);
    if (ctx.view.trace) {
        for (const std::string& t : ctx.view.trace->main.tokens) ctx.fonts.note_text(t);
        // The characters byte-fallback runs spell ("<0xD9>" "<0x85>" is م) are drawn too.
        for (const auto* words : {ctx.view.main_words.get(), ctx.view.decoder_words.get()})
            if (words)
                for (const std::string& piece : words->pieces) ctx.fonts.note_text(piece);
        for (const std::string* t : {&ctx.view.info.example_title_zh, &ctx.view.info.example_description_zh,
                                     &ctx.view.info.example_source_zh})
            ctx.fonts.note_text(*t);  // a user's example may use characters beyond the common set
        if (ctx.view.trace->decoder)
            for (const std::string& t : ctx.view.trace->decoder->tokens) ctx.fonts.note_text(t);
    }
    return trace;
}

bool workers_idle(const AppContext& ctx) {
    return ctx.worker.idle() && ctx.analysis_worker.idle() && !ctx.layer_maps_worker.busy() && ctx.mip_worker.idle();
}

// The Train view's run or experiment is going (its curves redraw as they go).
bool training(const AppContext& ctx) { return !ctx.train_worker.idle() || !ctx.experiment_worker.idle(); }

template <typename Pred>
bool any_hook(const std::vector<std::unique_ptr<FrameHook>>& hooks, Pred pred) {
    return std::any_of(hooks.begin(), hooks.end(), [&](const auto& h) { return pred(*h); });
}

// Settings, then command-line options on top; the sample sentences.
void load_state(AppContext& ctx, const GuiOptions& options, WindowSize& size) {
    bool first_launch = true;  // no settings of an earlier session
    if (!options.no_settings) {
        ctx.settings_path = default_settings_path();
        std::error_code ec;
        first_launch = !std::filesystem::exists(ctx.settings_path, ec);
        ctx.state.notice = load_settings(ctx.settings_path, ctx.state, size);
    }
    // The first screen: the default model's English coreference head on a pronoun sample,
    // once its heads are probed, when the probe claims it (else its claimed relation head
    // with the largest margin: core's relation_to_show), unless the command line chose
    // what to show.
    if (first_launch && options.model.empty() && options.text.empty() && options.layer < 0 && options.head < 0)
        ctx.analysis.jump_to_relation = "coreference";
    // A new user meets the welcome (a session without settings is a scripted or clean one).
    ctx.help.welcome = first_launch && !options.no_settings;
    if (!options.model.empty()) ctx.state.set_model_arg(options.model);
    if (!options.text.empty()) ctx.state.text = options.text;
    if (!options.decoder_text.empty()) ctx.state.decoder_text = options.decoder_text;
    if (options.layer >= 0) ctx.state.layer = options.layer;
    if (options.head >= 0) ctx.state.head = options.head;
    if (!options.colormap.empty()) ctx.state.colormap = parse_colormap(options.colormap);
    if (!options.lang.empty()) ctx.state.ui_lang = options.lang;
    set_ui_lang(parse_ui_lang(ctx.state.ui_lang));
    if (options.size_given) size = {options.width, options.height};
    try {
        ctx.samples = load_samples(assets_dir() + "/samples.json");
        auto texts = std::make_shared<std::vector<std::string>>();
        for (const Sample& sample : ctx.samples) texts->push_back(sample.text);
        ctx.sample_texts = std::move(texts);
    } catch (const Error& e) {
        ctx.samples_error = e.what();
    }
}

// The window with a GL 3.3 core context (no vsync for measured runs).
GLFWwindow* open_window(const GuiOptions& options, WindowSize size, bool measuring) {
    use_one_more_rasteriser_thread();
    if (!glfwInit()) throw Error("cannot initialise GLFW (is there a display? try xvfb-run).");
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
    if (options.hidden) glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
    // The default or remembered size shrinks to the monitor (a laptop's 1366×768 cannot show
    // 1600×1000); a size asked for with --size is kept.
    if (GLFWmonitor* monitor = glfwGetPrimaryMonitor(); monitor && !options.size_given) {
        int x = 0, y = 0, width = 0, height = 0;
        float scale_x = 1.0f, scale_y = 1.0f;
        glfwGetMonitorWorkarea(monitor, &x, &y, &width, &height);
        glfwGetMonitorContentScale(monitor, &scale_x, &scale_y);
        size = fit_to_work_area(size, width, height, std::max(scale_x, scale_y));
    }
    GLFWwindow* window = glfwCreateWindow(size.width, size.height, "HeadScope", nullptr, nullptr);
    if (!window) {
        glfwTerminate();
        throw Error("cannot create an OpenGL 3.3 core window.");
    }
    glfwMakeContextCurrent(window);
    glfwSwapInterval(measuring ? 0 : 1);
    glfwSetDropCallback(window, on_drop);
    ResultWakeup::set(&glfwPostEmptyEvent);  // a worker's result ends the loop's wait for events
    return window;
}

constexpr float kBaseFontPx = 15.0f;  // window text height at scale 1

// The interface scale: the monitor's content scale × the user's zoom (Ctrl + / −) × a
// factor for large windows (1 up to 1920×1080 logical pixels, then growing with the
// window to 2 at 3840×2160, in steps of 1/4), so text stays readable from 1280×720 to 4K.
float wanted_ui_scale(GLFWwindow* window, float zoom) {
    float sx = 1.0f, sy = 1.0f;
    glfwGetWindowContentScale(window, &sx, &sy);
    const float content = std::max(1.0f, std::max(sx, sy));
    int fb_w = 0, fb_h = 0;
    glfwGetFramebufferSize(window, &fb_w, &fb_h);
    const float logical_w = static_cast<float>(fb_w) / content, logical_h = static_cast<float>(fb_h) / content;
    if (fb_w <= 0 || fb_h <= 0) return content * std::clamp(zoom, AppState::kMinZoom, AppState::kMaxZoom);  // minimised
    // In steps of 1/4, so dragging the window's edge does not rebuild the font atlas at every pixel.
    const float size =
        std::round(std::clamp(std::min(logical_w / 1920.0f, logical_h / 1080.0f), 1.0f, 2.0f) * 4.0f) / 4.0f;
    return content * std::clamp(zoom, AppState::kMinZoom, AppState::kMaxZoom) * size;
}

// A new scale (zoom, window size, monitor) rebuilds the theme and the font atlas.
void follow_ui_scale(GLFWwindow* window, AppContext& ctx) {
    const float wanted = wanted_ui_scale(window, ctx.state.ui_zoom);
    if (std::fabs(wanted - ctx.ui_scale) < 0.01f) return;
    ctx.ui_scale = wanted;
    apply_theme(wanted);
    ctx.fonts.configure(kBaseFontPx, wanted);
}

// ImGui with the stock GLFW and OpenGL3 backends, a content-scale aware theme and fonts
// that cover the text and samples shown.
void init_imgui(GLFWwindow* window, AppContext& ctx) {
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;  // the layout is fixed; nothing to remember
    ctx.ui_scale = wanted_ui_scale(window, ctx.state.ui_zoom);
    apply_theme(ctx.ui_scale);
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    ImGui_ImplOpenGL3_Init("#version 330 core");
    ctx.fonts.configure(kBaseFontPx, ctx.ui_scale);
    ctx.fonts.note_text(ctx.state.text);
    ctx.fonts.note_text(ctx.state.decoder_text);
    for (const Sample& s : ctx.samples) {
        ctx.fonts.note_text(s.title);
        ctx.fonts.note_text(s.text);
    }
    use_ui_lang(ctx, ui_lang());
}

// When the workers were last busy, and whether the heap has been trimmed since.
struct IdleMemory {
    FrameClock::time_point last_work = FrameClock::now();
    bool released = false;
};

// After a frame: free heap pages go back to the kernel once the window has been idle for a
// minute (core/kernels/memory_policy.h keeps them while edits follow each other: the first
// edit after a release pays ~0.1–0.2 s of page faults again); paced runs sleep out a 60 Hz
// frame as a vsynced window would (Xvfb has no vsync), so the UI thread does not take a
// core from the worker, but wake as soon as a result waits.
void between_frames(AppContext& ctx, FrameClock::time_point frame_start, bool paced, IdleMemory& memory) {
    if (!workers_idle(ctx) || training(ctx)) {
        memory.last_work = FrameClock::now();
        memory.released = false;
    } else if (!memory.released && FrameClock::now() - memory.last_work > std::chrono::seconds(60)) {
        release_free_memory();
        memory.released = true;
    }
    if (!paced) return;
    const auto next = frame_start + std::chrono::microseconds(16667);
    while (FrameClock::now() < next && !(!ctx.worker.busy() && !ctx.worker.idle()))
        std::this_thread::sleep_for(std::chrono::microseconds(500));
}

void close_window(GLFWwindow* window) {
    ResultWakeup::set(nullptr);  // workers outlive the window: no wake-up once GLFW ends
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    glfwDestroyWindow(window);
    glfwTerminate();
}

}  // namespace

namespace {

// What the frame hooks ask of the loop: measuring (no pointer, settings untouched),
// paced frames, drawing timed to the GPU's end, a trace to exist, played input.
struct HookNeeds {
    bool measuring = false, paced = false, time_drawing = false, trace = false, plays_input = false;
};
HookNeeds needs_of(const std::vector<std::unique_ptr<FrameHook>>& hooks) {
    HookNeeds n;
    n.measuring = any_hook(hooks, [](const FrameHook& h) { return h.measures(); });
    n.paced = any_hook(hooks, [](const FrameHook& h) { return h.paced(); });
    n.time_drawing = any_hook(hooks, [](const FrameHook& h) { return h.times_drawing(); });
    n.trace = any_hook(hooks, [](const FrameHook& h) { return h.needs_trace(); });
    n.plays_input = any_hook(hooks, [](const FrameHook& h) { return h.plays_input(); });
    return n;
}

// What decides how long the loop may wait for an event before the next frame.
FrameWaitInputs wait_inputs(AppContext& ctx, bool plays_input, bool continuous, bool last_frame_identical) {
    FrameWaitInputs wait;
    wait.plays_input = plays_input;
    wait.continuous = continuous;
    wait.last_frame_identical = last_frame_identical;
    wait.workers_idle = workers_idle(ctx);
    wait.trace_job_busy = ctx.worker.busy();
    wait.trace_job_seconds = ctx.worker.busy_seconds();
    wait.training = training(ctx);
    return wait;
}

// The layer and head asked for on the command line, once the first trace is in: kept
// within the model, with a notice when they had to move.
void apply_wanted_selection(AppContext& ctx, const GuiOptions& options, int layer, int head,
                            SelectionNoticeKeeper& note) {
    ctx.state.layer = layer;
    ctx.state.head = head;
    clamp_selection(ctx.state, *ctx.view.trace);
    if (const std::string n = selection_notice(options.layer, options.head, ctx.state); !n.empty())
        note.show(ctx.state, n);
}

// The frame's UI, into ImGui's draw lists; hooks edit it as a user would.
void draw_ui(AppContext& ctx, const std::vector<std::unique_ptr<FrameHook>>& hooks, const GuiOptions& options,
             bool measuring, FrameRecord& f) {
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    // Unattended runs ignore the pointer (Xvfb parks it mid-screen: no hover).
    if (measuring) ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
    for (const auto& h : hooks) h->pointer(ctx);
    ImGui::NewFrame();
    start_window_extents();
    ctx.renderer->begin_frame();
    for (const auto& h : hooks) h->in_ui(ctx, f);
    draw_layout(ctx, options.bench_view);
    draw_help_windows(ctx.help, ctx.fonts);
    draw_progress_overlay(ctx);
    ImGui::Render();
}

// Draws the frame's draw lists into the back buffer with ImGui's stock OpenGL3 backend
// (the heatmaps are its callbacks), unless it is the frame on screen and may be skipped
// (f.skipped). Returns whether it is identical to the frame on screen.
bool render_frame(AppContext& ctx, GLFWwindow* window, bool skip_identical, std::uint64_t& shown_frame,
                  FrameRecord& f) {
    glfwGetFramebufferSize(window, &f.fb_width, &f.fb_height);
    ImDrawData* draw = ImGui::GetDrawData();
    const std::uint64_t signature = frame_signature(*draw, ctx.renderer->frame_signature());
    const bool identical = signature != 0 && signature == shown_frame;
    f.skipped = skip_identical && identical && !g_window_exposed;
    if (!f.skipped) {
        glViewport(0, 0, f.fb_width, f.fb_height);
        glClearColor(0.08f, 0.08f, 0.09f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);
        ImGui_ImplOpenGL3_RenderDrawData(draw);
        shown_frame = signature;
        g_window_exposed = false;
    }
    return identical;
}

// What the frame loop keeps about the frames it shows, from one to the next.
struct ShownFrames {
    std::uint64_t signature = 0;  // of the frame on screen (app/gl/frame_signature.h)
    // A window without hooks (a user's) skips frames identical to it; hooked runs
    // (scripts, screenshots, benchmarks) draw every frame.
    bool skip_identical = false;
    bool last_identical = false, last_deferred = false;
    int ready = 0;                        // ready frames so far
    std::string submitted_detail = "-";  // the Pipeline's layer of the last request
};

// Steps 5–7 of the frame loop. A frame whose edits (widgets, scripts, benchmarks) start a
// trace job sends them to the worker first and is not drawn: the job's result replaces it
// within the job's time (the loop waits for it; the progress overlay shows from 0.1 s),
// and drawing it first would hold the result back by a frame (a vsynced swap; on software
// OpenGL the rasteriser on the forward's cores). Never two frames in a row, so typing into
// a slow model still echoes each key. Any other frame is drawn into the back buffer by
// ImGui's stock OpenGL3 backend (the heatmaps are its draw lists' callbacks) unless it is
// the frame on screen, seen by the hooks (screenshots), swapped, and then its edits go to
// the worker: the forward then has the cores to itself instead of sharing them with the
// software rasteriser.
void show_frame(AppContext& ctx, GLFWwindow* window, const std::vector<std::unique_ptr<FrameHook>>& hooks,
                bool time_drawing, ShownFrames& shown, FrameRecord& f) {
    f.deferred = !shown.last_deferred && submit_if_dirty(ctx, shown.submitted_detail);
    shown.last_deferred = f.deferred;
    if (f.deferred) {
        shown.last_identical = false;
        f.drawn = FrameClock::now();
        return;
    }
    shown.last_identical = render_frame(ctx, window, shown.skip_identical, shown.signature, f);
    f.settled = ctx.worker.idle() && !ctx.state.dirty && ctx.analysis_worker.idle() && ctx.mip_worker.idle() &&
                !default_probe_due(analysis_context(ctx));
    f.ready = f.settled && ctx.view.trace;
    if (f.ready) f.ready_frames = ++shown.ready;
    for (const auto& h : hooks) h->before_swap(ctx, f);
    if (time_drawing) glFinish();  // time the drawing, not just its submission
    f.drawn = FrameClock::now();
    if (!f.skipped) glfwSwapBuffers(window);
    submit_if_dirty(ctx, shown.submitted_detail);
}

// The window's size and the state, for the next start.
void save_window_settings(AppContext& ctx, GLFWwindow* window, WindowSize& size) {
    glfwGetWindowSize(window, &size.width, &size.height);
    const std::string err = save_settings(ctx.settings_path, ctx.state, size);
    if (!err.empty()) std::fprintf(stderr, "headscope: %s\n", err.c_str());
}

// Textures and buffers go while the GL context is current.
void release_gl_objects(AppContext& ctx) {
    ctx.view = TraceView();
    ctx.analysis = AnalysisView{};
    ctx.train = TrainView{};
    ctx.renderer.reset();
}

}  // namespace

int run_gui(const GuiOptions& options) {
    AppContext ctx;
    WindowSize size{options.width, options.height};
    load_state(ctx, options, size);
    const int wanted_layer = ctx.state.layer, wanted_head = ctx.state.head;
    // Benchmarks, the script runner, screenshots and timing (app/hooks/).
    const std::vector<std::unique_ptr<FrameHook>> hooks = make_frame_hooks(options, ctx);
    const HookNeeds needs = needs_of(hooks);
    const bool measuring = needs.measuring, paced = needs.paced;
    GLFWwindow* window = open_window(options, size, measuring);
    init_imgui(window, ctx);
    int status = 0;
    {
        ctx.renderer = std::make_unique<HeatmapRenderer>();
        ShownFrames shown;
        shown.skip_identical = hooks.empty();
        glfwSetWindowRefreshCallback(window, [](GLFWwindow*) { g_window_exposed = true; });
        bool selection_applied = false;
        SelectionNoticeKeeper selection_note;
        IdleMemory idle_memory;
        std::optional<int> stop;
        while (!glfwWindowShouldClose(window) && !stop) {
            FrameRecord f;
            // 1. Events (the loop waits for one instead of drawing a frame that would show
            // nothing new: app/frame_wait.h), dropped files.
            const double wait =
                frame_wait_seconds(wait_inputs(ctx, needs.plays_input, measuring || paced, shown.last_identical));
            if (wait > 0) glfwWaitEventsTimeout(wait);
            f.start = FrameClock::now();
            f.busy_at_start = ctx.worker.busy();
            f.ready_frames = shown.ready;
            glfwPollEvents();
            handle_drops(ctx);
            // 2. The newest finished trace replaces the old one; analysis results.
            f.took_trace = take_newest_result(ctx);
            // The training run as every view sees it this frame (the Train view draws it; the
            // Model panel's "trained" source reads its snapshots).
            ctx.train.progress = ctx.train_worker.progress();
            if (ctx.view.trace && !ctx.view.partial && !selection_applied) {  // the whole trace has every layer
                apply_wanted_selection(ctx, options, wanted_layer, wanted_head, selection_note);
                selection_applied = true;
            }
            selection_note.drop_when_model_changes(ctx.state);
            poll_analysis(analysis_context(ctx));
            // 3. Hooks make their edits (scripts, benchmarks) as a click polled now would.
            for (const auto& h : hooks) h->before_ui(ctx, f);
            f.accepted = FrameClock::now();
            ctx.view.sync_textures(ctx.state, ctx.layer_maps_worker, ctx.mip_worker);
            ctx.fonts.note_edited_text(ctx.state.text);
            follow_ui_scale(window, ctx);
            ctx.fonts.rebuild_if_needed();
            f.synced = FrameClock::now();
            // 4. The frame's UI.
            draw_ui(ctx, hooks, options, measuring, f);
            f.ui_done = FrameClock::now();
            // 5.–7. Edits to the worker; the frame drawn and shown, or deferred.
            show_frame(ctx, window, hooks, needs.time_drawing, shown, f);
            for (const auto& h : hooks) h->after_submit(ctx);
            f.end = FrameClock::now();
            // 8. Hooks time the frame; any of them may end the run.
            for (const auto& h : hooks) {
                h->after_frame(ctx, f);
                if (h->finished() && !stop) stop = h->finished();
            }
            between_frames(ctx, f.start, paced, idle_memory);
            // A screenshot or benchmark that can never get a trace fails instead of hanging.
            if (needs.trace && !ctx.view.trace && ctx.worker.idle() && !current_error(ctx).empty()) {
                std::fprintf(stderr, "headscope: %s\n", current_error(ctx).c_str());
                stop = 1;
            }
        }
        status = stop.value_or(0);
        for (const auto& h : hooks) h->report(ctx);
        if (!options.no_settings && !measuring) save_window_settings(ctx, window, size);
        release_gl_objects(ctx);
    }
    close_window(window);
    return status;
}

void queue_drop(const std::string& path) { g_dropped.push_back(path); }

}  // namespace hs
