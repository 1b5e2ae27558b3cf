#include "app/app.h"

#include <algorithm>
#include <cstdlib>
#include <cfloat>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include <GLFW/glfw3.h>  // GLFW_INCLUDE_NONE: GL comes from app/gl/gl.h
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>
#include <nlohmann/json.hpp>

#include "app/analysis_actions.h"
#include "app/bench.h"
#include "app/context.h"
#include "app/gl/frame_cache.h"
#include "app/gl/gl.h"
#include "app/panels/panels.h"
#include "app/script.h"
#include "app/settings.h"
#include "core/io/atomic_file.h"
#include "core/error.h"
#include "core/kernels/memory_policy.h"
#include "core/image/png.h"
#include "core/tokenize/playground_tokenizer.h"

namespace hs {
namespace {

std::vector<std::string> g_dropped;  // paths dropped on the window (GLFW callback)

void on_drop(GLFWwindow*, int count, const char** paths) {
    for (int i = 0; i < count; ++i) queue_drop(paths[i]);
}

void apply_theme(float scale) {
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

// Roughly how many floats the per-head scores would add; scores (hover readout of the
// raw score) are requested only while that stays under ~256 MB.
bool want_scores(const AppContext& ctx) {
    long long t = 0;
    if (ctx.state.source == SourceKind::Playground) {
        t = static_cast<long long>(PlaygroundTokenizer(ctx.state.config.vocab).encode(ctx.state.text).ids.size());
    } else if (ctx.view.trace) {
        t = static_cast<long long>(ctx.view.trace->main.tokens.size());
    }
    const long long layers = ctx.view.trace ? ctx.view.trace->n_layers() : ctx.state.config.layers;
    const long long heads = std::max(1, ctx.view.trace && ctx.state.source != SourceKind::Playground
                                            ? heads_in(*ctx.view.trace, MapKind::Self)
                                            : ctx.state.config.heads);
    return layers * heads * t * t <= 64LL * 1024 * 1024;
}

std::string detail_key(const AppState& s) {
    if (!s.pipeline_open) return "-";
    return std::to_string(s.layer) + "/" + std::to_string(int(s.map));
}

// Turns pending edits into a worker request (validation errors keep the old trace).
void submit_if_dirty(AppContext& ctx, std::string& submitted_detail) {
    AppState& s = ctx.state;
    if (!s.dirty && detail_key(s) == submitted_detail) return;
    if (!s.dirty && !s.pipeline_open) return;
    s.dirty = false;
    if (s.source == SourceKind::Playground) {
        s.config_errors = validate(s.config);
        if (!s.config_errors.empty()) return;
    } else if (s.source == SourceKind::ModelDirectory && s.model_dir.empty()) {
        s.config_errors = {"Type the path of a model file or directory and press Enter (or drop one here)."};
        return;
    } else {
        s.config_errors.clear();
    }
    ComputeRequest r;
    r.model_arg = s.model_arg();
    if (s.source == SourceKind::WorkedExample) r.example = s.edited_example;
    r.input.text = s.text;
    r.input.decoder_text = s.decoder_text;
    r.continue_tokens = s.pending_continue;
    s.pending_continue = 0;
    r.options.scores = want_scores(ctx);
    // Ablated heads that exist in the model about to run (edits may have removed some).
    int max_layers = 1 << 30, max_heads = 1 << 30;
    if (s.source == SourceKind::Playground) {
        max_layers = s.config.layers;
        max_heads = s.config.heads;
    } else if (ctx.view.trace && ctx.view.model_arg == r.model_arg) {
        max_layers = ctx.view.trace->n_layers();
        max_heads = heads_in(*ctx.view.trace, MapKind::Self);
    }
    std::erase_if(s.ablated, [&](const HeadRef& h) { return h.layer >= max_layers || h.head >= max_heads; });
    if (s.source != SourceKind::WorkedExample) {
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
}

void handle_drops(AppContext& ctx) {
    for (const std::string& path : g_dropped) {
        namespace fs = std::filesystem;
        std::error_code ec;
        const fs::path p(path);
        const std::string name = p.filename().string();
        // A model's config.json or a .safetensors file stands for its directory.
        const bool model_file = name == "config.json" || p.extension() == ".safetensors";
        if (fs::is_directory(path, ec) || p.extension() == ".bin" || model_file ||
            (path.size() > 5 && path.ends_with(".json"))) {
            const std::string model = model_file ? p.parent_path().string() : path;
            ctx.state.set_model_arg(model);
            ctx.state.notice = "Opened " + model;
        } else {
            std::ifstream in(path, std::ios::binary);
            std::stringstream ss;
            ss << in.rdbuf();
            if (!in && !in.eof()) {
                ctx.state.notice = "Cannot read dropped file " + path + ".";
                continue;
            }
            std::string text = ss.str();
            if (text.size() > (1u << 20)) text.resize(1u << 20);
            while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
            ctx.state.text = text;
            ctx.state.dirty = true;
            ctx.state.notice = "Loaded text from " + path;
        }
    }
    g_dropped.clear();
}

// Reads the back buffer (the frame just rendered) into a PNG: rows flipped to top-first.
void save_screenshot(const std::string& path, int width, int height) {
    std::vector<unsigned char> rgb(static_cast<std::size_t>(width) * height * 3);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadBuffer(GL_BACK);
    glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, rgb.data());
    RgbImage image(width, height);
    const std::size_t row = static_cast<std::size_t>(width) * 3;
    for (int y = 0; y < height; ++y)
        std::copy_n(rgb.data() + static_cast<std::size_t>(height - 1 - y) * row, row,
                    image.bytes().data() + static_cast<std::size_t>(y) * row);
    write_png(path, image);
}

// The heatmap's rectangle in framebuffer pixels (top-left origin) and its colour scale.
void write_layout(const std::string& path, const AppContext& ctx, int fb_w, int fb_h) {
    const ImVec2 s = ImGui::GetIO().DisplayFramebufferScale;
    const HeatmapView& h = ctx.heatmap;
    nlohmann::json j;
    j["framebuffer"] = {fb_w, fb_h};
    j["heatmap_drawn"] = h.drawn;
    j["heatmap"] = {h.last_p0.x * s.x, h.last_p0.y * s.y, h.last_p1.x * s.x, h.last_p1.y * s.y};
    j["uv"] = {h.uv.u0, h.uv.v0, h.uv.u1, h.uv.v1};
    j["lo"] = h.last_scale.lo;
    j["hi"] = h.last_scale.hi;
    j["gamma"] = h.last_scale.gamma;
    j["log"] = h.last_scale.log;
    j["colormap"] = to_string(ctx.state.colormap);
    j["layer"] = ctx.state.layer;
    j["head"] = ctx.state.head;
    j["model"] = ctx.view.trace ? ctx.view.trace->model_name : "";
    write_file_atomic(path, j.dump(2) + "\n");
}

void draw_progress_overlay(AppContext& ctx) {
    if (!ctx.worker.busy() || ctx.worker.busy_seconds() < 0.1) return;
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    ImGui::SetNextWindowPos(ImVec2(display.x * 0.5f, 8.0f * ctx.ui_scale), ImGuiCond_Always,
                            ImVec2(0.5f, 0.0f));
    ImGui::SetNextWindowBgAlpha(0.9f);
    ImGui::Begin("##progress", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                     ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav);
    const int total = ctx.worker.progress_total(), done = ctx.worker.progress_done();
    const float frac = total > 0 ? float(done) / float(total) : 0.0f;
    const WorkerPhase phase = ctx.worker.phase();
    const char* what = phase == WorkerPhase::Loading ? "loading the model…"
                       : phase == WorkerPhase::Generating ? "continuing the text…"
                                                          : "forward pass…";
    const char* unit = phase == WorkerPhase::Generating ? "tokens" : "layers";
    char label[96];
    if (total > 0)
        std::snprintf(label, sizeof label, "%s %d/%d %s", what, done, total, unit);
    else
        std::snprintf(label, sizeof label, "%s %.1f s", what, ctx.worker.busy_seconds());
    ImGui::ProgressBar(frac, ImVec2(300.0f * ctx.ui_scale, 0.0f),
                       label);
    ImGui::SameLine();
    if (ImGui::Button("cancel")) {
        ctx.worker.cancel();
        ctx.state.notice = "Cancelled; the last result stays on screen.";
    }
    ImGui::End();
}

// The bar across the top: Attention | Analysis views (F1 / F2), and what is ablated.
// Returns its height.
float draw_view_bar(AppContext& ctx) {
    AppState& s = ctx.state;
    if (!ImGui::GetIO().WantTextInput) {
        if (ImGui::IsKeyPressed(GLFW_KEY_F1)) s.view_mode = ViewMode::Attention;
        if (ImGui::IsKeyPressed(GLFW_KEY_F2)) s.view_mode = ViewMode::Analysis;
    }
    float height = 0.0f;
    if (ImGui::BeginMainMenuBar()) {
        ImGui::TextDisabled("HeadScope");
        if (ImGui::MenuItem("Attention", "F1", s.view_mode == ViewMode::Attention)) s.view_mode = ViewMode::Attention;
        if (ImGui::MenuItem("Analysis", "F2", s.view_mode == ViewMode::Analysis)) s.view_mode = ViewMode::Analysis;
        if (!s.ablated.empty()) {
            std::string off;
            for (const HeadRef& h : s.ablated) off += " L" + std::to_string(h.layer) + "." + std::to_string(h.head);
            ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), "  ablated (%s):%s", to_string(s.ablate_mode), off.c_str());
        }
        if (s.view_mode == ViewMode::Attention && ctx.analysis.analysis)
            ImGui::TextDisabled("  analysis: %s", ctx.analysis.status.c_str());
        height = ImGui::GetWindowSize().y;
        ImGui::EndMainMenuBar();
    }
    return height;
}

// The fixed layout: left column (Model over Input), top right (Heatmap | Grid),
// bottom right (Pipeline / Layer outputs / Export tabs). Proportions follow the window.
void draw_layout(AppContext& ctx, const std::string& bench_view) {
    const ImVec2 d = ImGui::GetIO().DisplaySize;
    if (bench_view == "grid") {
        draw_grid_panel(ctx, {ImVec2(0, 0), d});
        return;
    }
    if (bench_view == "heatmap") {
        draw_heatmap_panel(ctx, {ImVec2(0, 0), d});
        return;
    }
    const float bar_h = draw_view_bar(ctx);
    const float h = d.y - bar_h;
    const float left_w = std::clamp(d.x * 0.24f, 300.0f * ctx.ui_scale, 440.0f * ctx.ui_scale);
    const float model_h = std::floor(h * 0.56f);
    draw_model_panel(ctx, {ImVec2(0, bar_h), ImVec2(left_w, model_h)});
    draw_input_panel(ctx, {ImVec2(0, bar_h + model_h), ImVec2(left_w, h - model_h)});
    const float right_w = d.x - left_w;
    if (ctx.state.view_mode == ViewMode::Analysis) {
        // Analysis: the analysis window, and beside it the grid (ctrl-click ablates) over
        // the selected head's map, so an ablation's effect on later maps stays in view.
        const float analysis_w = std::floor(right_w * 0.62f);
        const float grid_h = std::floor(h * 0.5f);
        draw_analysis_panel(ctx, {ImVec2(left_w, bar_h), ImVec2(analysis_w, h)});
        draw_grid_panel(ctx, {ImVec2(left_w + analysis_w, bar_h), ImVec2(right_w - analysis_w, grid_h)});
        draw_heatmap_panel(ctx, {ImVec2(left_w + analysis_w, bar_h + grid_h), ImVec2(right_w - analysis_w, h - grid_h)});
        return;
    }
    const float top_h = std::floor(h * 0.64f);
    const float heat_w = std::floor(right_w * 0.58f);
    draw_heatmap_panel(ctx, {ImVec2(left_w, bar_h), ImVec2(heat_w, top_h)});
    draw_grid_panel(ctx, {ImVec2(left_w + heat_w, bar_h), ImVec2(right_w - heat_w, top_h)});
    draw_detail_panels(ctx, {ImVec2(left_w, bar_h + top_h), ImVec2(right_w, h - top_h)});
}

void print_bench(const std::vector<double>& ms, const char* what = "frames") {
    std::printf("%s\n", bench_line(what, ms).c_str());
    std::fflush(stdout);
}

double ms_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}

// Where the time of the timed frames went (medians), and how much of the window the
// frame cache redrew: "phases ui 0.61 ms  render 2.10 ms  swap 0.52 ms  redrawn 12.5 %".
struct FramePhases {
    std::vector<double> ui, render, swap, redrawn;
    void add(double ui_ms, double render_ms, double swap_ms, const FrameCacheStats& s) {
        ui.push_back(ui_ms);
        render.push_back(render_ms);
        swap.push_back(swap_ms);
        redrawn.push_back(s.total_pixels > 0 ? 100.0 * double(s.redrawn_pixels) / double(s.total_pixels) : 0.0);
    }
    void print() const {
        if (ui.empty()) return;
        std::printf("phases ui %.2f ms  render %.2f ms  swap %.2f ms  redrawn %.1f %%\n", percentiles(ui).p50,
                    percentiles(render).p50, percentiles(swap).p50, percentiles(redrawn).p50);
        std::fflush(stdout);
    }
};

// --bench-edits: live edits of the playground model, each timed from the change of the
// config to the end of the first frame whose maps come from the new trace.
struct EditBench {
    int total = 0;                 // edits to time
    std::string key;               // "heads" | "d_model"
    ModelConfig start;             // config of the first trace
    int done = 0;
    bool pending = false;          // an edit waits for its trace
    std::uint64_t generation = 0;  // worker generation of the pending edit
    std::chrono::steady_clock::time_point at;
    int settled_frames = 0;        // frames drawn since the last edit landed
    std::vector<double> latency_ms, job_ms, load_ms, forward_ms, ui_ms;
    // The frame that took each new trace in, by phase: accept (thumbnail uploads), sync
    // (selected map upload, fonts), ui (ImGui), render (GL incl. glFinish), swap.
    std::vector<double> accept_ms, sync_ms, frame_ui_ms, render_ms, swap_ms, redrawn;
};

// Under Mesa's software rasteriser (llvmpipe, as under Xvfb) one thread more than the
// cores, unless the user chose LP_NUM_THREADS: after idle frames one of the threads is
// slow to wake (its virtual CPU has halted), and with work cut in more pieces the others
// take over its share. The frame showing a live edit's result drew in 13.9 ms with 2
// threads and 9.6 ms with 3 on the 2-core VM. Hardware drivers ignore the variable.
void use_one_more_rasteriser_thread() {
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    setenv("LP_NUM_THREADS", std::to_string(cores + 1).c_str(), /*overwrite=*/0);
}

}  // namespace

int run_gui(const GuiOptions& options) {
    AppContext ctx;
    WindowSize size{options.width, options.height};
    // 1. Settings, then command-line options on top.
    if (!options.no_settings) {
        ctx.settings_path = default_settings_path();
        ctx.state.notice = load_settings(ctx.settings_path, ctx.state, size);
    }
    if (!options.model.empty()) ctx.state.set_model_arg(options.model);
    if (!options.text.empty()) ctx.state.text = options.text;
    if (!options.decoder_text.empty()) ctx.state.decoder_text = options.decoder_text;
    if (options.layer >= 0) ctx.state.layer = options.layer;
    if (options.head >= 0) ctx.state.head = options.head;
    if (!options.colormap.empty()) ctx.state.colormap = parse_colormap(options.colormap);
    if (options.width != 1600 || options.height != 1000) size = {options.width, options.height};
    const int wanted_layer = ctx.state.layer, wanted_head = ctx.state.head;
    try {
        ctx.samples = load_samples(std::string(HEADSCOPE_ASSETS_DIR) + "/samples.json");
    } catch (const Error& e) {
        ctx.samples_error = e.what();
    }
    std::unique_ptr<ScriptRunner> script;
    if (!options.script.empty()) script = std::make_unique<ScriptRunner>(options.script);

    // 2. Window and GL 3.3 core context.
    use_one_more_rasteriser_thread();
    if (!glfwInit()) throw Error("cannot initialise GLFW (is there a display? try xvfb-run).");
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
    if (options.hidden) glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
    GLFWwindow* window = glfwCreateWindow(size.width, size.height, "HeadScope", nullptr, nullptr);
    if (!window) {
        glfwTerminate();
        throw Error("cannot create an OpenGL 3.3 core window.");
    }
    glfwMakeContextCurrent(window);
    const bool measuring = options.bench_frames > 0 || options.bench_edits > 0 || !options.screenshot.empty() || script ||
                           options.timing;
    glfwSwapInterval(measuring ? 0 : 1);
    glfwSetDropCallback(window, on_drop);

    // 3. ImGui with a content-scale aware theme and fonts.
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;  // the layout is fixed; nothing to remember
    float sx = 1.0f, sy = 1.0f;
    glfwGetWindowContentScale(window, &sx, &sy);
    ctx.ui_scale = std::max(1.0f, std::max(sx, sy));
    apply_theme(ctx.ui_scale);
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    ImGui_ImplOpenGL3_Init("#version 330 core");
    ctx.fonts.configure(15.0f, ctx.ui_scale);
    ctx.fonts.note_text(ctx.state.text);
    ctx.fonts.note_text(ctx.state.decoder_text);
    for (const Sample& s : ctx.samples) {
        ctx.fonts.note_text(s.title);
        ctx.fonts.note_text(s.text);
    }
    int status = 0;
    {
        ctx.renderer = std::make_unique<HeatmapRenderer>();
        auto frame_cache = std::make_unique<FrameCache>();
        frame_cache->set_full_redraw(options.full_redraw);
        if (!options.full_redraw && !options.offscreen_frame)
            frame_cache->set_retained(FrameCache::probe_retained_back_buffer([&] { glfwSwapBuffers(window); }));
        if (options.bench_frames > 0 || options.bench_edits > 0)
            std::printf("frame cache %s\n", options.full_redraw ? "off (full redraw)"
                                             : frame_cache->retained() ? "retained back buffer"
                                                                       : "offscreen + copy");
        FramePhases phases;
        int pan_frame = 0;
        int busy_passes = 0;  // --bench-busy: traces that arrived during the timed frames
        std::vector<double> result_ms;  // --bench-busy: the frames that took those traces in
        EditBench edits;
        edits.total = options.bench_edits;
        edits.key = options.bench_edit;
        if (edits.total > 0 && ctx.state.source != SourceKind::Playground)
            throw Error("--bench-edits edits a playground model: pass --model random:… (got '" +
                        ctx.state.model_arg() + "').");
        edits.start = ctx.state.config;
        // Paced runs sleep out the rest of a 60 Hz frame like a vsynced window would, so the
        // UI thread does not take a core from the worker by spinning (Xvfb has no vsync).
        const bool paced = options.bench_busy || options.bench_edits > 0;
        bool last_frame_identical = false;
        std::string submitted_detail = "-";
        std::vector<double> frame_ms;
        std::vector<double> busy_ms;  // --timing: frames drawn while the worker computed
        int ready_frames = 0;
        auto script_waiting_since = std::chrono::steady_clock::now();
        bool selection_applied = false;
        auto last_work = std::chrono::steady_clock::now();  // the workers were last busy
        bool memory_released = false;
        while (!glfwWindowShouldClose(window)) {
            // 1. Events (an interactive window whose last frame changed nothing and whose
            // worker is idle waits up to 50 ms for one instead of spinning) and dropped files.
            if (!measuring && !paced && last_frame_identical && ctx.worker.idle() && ctx.analysis_worker.idle() &&
                !ctx.layer_maps_worker.busy())
                glfwWaitEventsTimeout(0.05);
            const auto frame_start = std::chrono::steady_clock::now();
            const bool busy_frame = ctx.worker.busy();
            bool took_result = false;
            glfwPollEvents();
            handle_drops(ctx);
            // 2. Newest finished trace replaces the old one.
            if (auto result = ctx.worker.take_result()) {
                if (result->trace) {
                    // "continue": the trace belongs to the extended text, which replaces the
                    // input without another recomputation.
                    if (result->continued) {
                        ctx.state.text = result->text;
                        ctx.state.notice = result->generated > 0
                                               ? "Appended " + std::to_string(result->generated) + " tokens."
                                               : "The model ended the text (end of sequence or max length).";
                    }
                    if (ctx.state.source == SourceKind::ModelDirectory && result->model_arg == ctx.state.model_dir)
                        ctx.state.remember_model(result->model_arg);
                }
                if (result->trace && ready_frames > 3) {
                    ++busy_passes;
                    took_result = true;
                }
                ctx.view.accept(std::move(*result));
                if (ctx.view.trace) {
                    if (!selection_applied) {
                        ctx.state.layer = wanted_layer;
                        ctx.state.head = wanted_head;
                        selection_applied = true;
                    }
                    clamp_selection(ctx.state, *ctx.view.trace);
                    for (const std::string& t : ctx.view.trace->main.tokens) ctx.fonts.note_text(t);
                    if (ctx.view.trace->decoder)
                        for (const std::string& t : ctx.view.trace->decoder->tokens) ctx.fonts.note_text(t);
                }
            }
            // 3. Analysis results (and re-analysis of a new trace), scripted actions and
            // benchmark edits (submitted to the worker after the frame, step 7).
            poll_analysis(ctx);
            if (script && !script->finished() && !ctx.state.dirty && ctx.worker.idle() &&
                ctx.analysis_worker.idle() && !selected_maps_pending(ctx.view, ctx.state)) {
                script_waiting_since = std::chrono::steady_clock::now();
                if (!script->step(ctx)) {
                    std::fprintf(stderr, "headscope: script: %s\n", script->error().c_str());
                    status = 1;
                    break;
                }
            }
            // Benchmarks: keep the worker busy, or make the next live edit.
            if (options.bench_busy && ready_frames > 3 && ctx.worker.idle() && !ctx.state.dirty)
                ctx.state.dirty = true;  // recompute the same input (the model stays cached)
            // (An edit made here stands for a click polled at the start of this frame.)
            const bool edit_now = edits.total > 0 && !edits.pending && edits.done < edits.total && ctx.view.trace &&
                                  ctx.worker.idle() && !ctx.state.dirty && edits.settled_frames >= 3;
            if (edit_now) {
                ctx.state.config = edited_config(edits.start, edits.key, edits.done + 1);
                ctx.state.dirty = true;
                edits.at = frame_start;
            }
            const auto accepted = std::chrono::steady_clock::now();
            ctx.view.sync_textures(ctx.state, ctx.layer_maps_worker);
            // 4. Fonts (new characters), then the frame's UI.
            ctx.fonts.note_text(ctx.state.text);
            ctx.fonts.rebuild_if_needed();
            const auto synced = std::chrono::steady_clock::now();
            ImGui_ImplOpenGL3_NewFrame();
            ImGui_ImplGlfw_NewFrame();
            // Unattended runs ignore the pointer (Xvfb parks it mid-screen: no hover).
            if (measuring) ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
            ImGui::NewFrame();
            ctx.renderer->begin_frame();
            if (options.bench_pan && ready_frames > 3) {
                // --bench-pan: a new part of the map every frame (as a drag or wheel would).
                const PanUv p = pan_uv(pan_frame++);
                ctx.heatmap.uv = UvRect{p.u0, p.v0, p.u1, p.v1};
            }
            draw_layout(ctx, options.bench_view);
            draw_progress_overlay(ctx);
            ImGui::Render();
            const auto ui_done = std::chrono::steady_clock::now();
            // 5. Draw: the changed part of the frame offscreen, then all of it to the back buffer.
            int fb_w = 0, fb_h = 0;
            glfwGetFramebufferSize(window, &fb_w, &fb_h);
            frame_cache->render(ImGui::GetDrawData(), *ctx.renderer, ImVec4(0.08f, 0.08f, 0.09f, 1.0f));
            glViewport(0, 0, fb_w, fb_h);
            last_frame_identical = frame_cache->stats().redrawn_pixels == 0;
            // 6. Screenshots, benchmark and exit conditions.
            const bool ready = ctx.view.trace && ctx.worker.idle() && !ctx.state.dirty && ctx.analysis_worker.idle();
            if (script && std::chrono::steady_clock::now() - script_waiting_since > std::chrono::seconds(90)) {
                std::fprintf(stderr,
                             "headscope: script stalled for 90 s (dirty %d, worker idle %d, busy %d, trace %d, "
                             "error '%s')\n",
                             int(ctx.state.dirty), int(ctx.worker.idle()), int(ctx.worker.busy()),
                             int(bool(ctx.view.trace)), ctx.view.error.c_str());
                status = 1;
                break;
            }
            if (script) {
                const std::string shot = script->take_screenshot_request();
                if (!shot.empty()) {
                    save_screenshot(shot, fb_w, fb_h);
                    if (!options.layout.empty()) write_layout(options.layout, ctx, fb_w, fb_h);
                }
                if (script->finished() && ready) break;
            }
            if (ready) ++ready_frames;
            if (!options.screenshot.empty() && ready_frames >= options.frames) {
                save_screenshot(options.screenshot, fb_w, fb_h);
                if (!options.layout.empty()) write_layout(options.layout, ctx, fb_w, fb_h);
                std::printf("wrote %s (%dx%d)\n", options.screenshot.c_str(), fb_w, fb_h);
                if (options.bench_frames <= 0) break;
            }
            const bool benchmarking = options.bench_frames > 0 || edits.total > 0;
            if (benchmarking) glFinish();  // time the drawing, not just its submission
            const auto drawn = std::chrono::steady_clock::now();
            glfwSwapBuffers(window);
            // 7. Edits of this frame (widgets, scripts, benchmarks) -> worker, now that the
            // frame showing them is done: the forward then has the cores to itself instead
            // of sharing them with the software rasteriser, and starts without waiting for
            // the next frame.
            submit_if_dirty(ctx, submitted_detail);
            if (edit_now) {
                edits.pending = true;
                edits.generation = ctx.worker.latest_generation();
            }
            const auto now = std::chrono::steady_clock::now();
            const double frame = ms_between(frame_start, now);
            if (options.timing && busy_frame && ctx.worker.busy()) busy_ms.push_back(frame);
            if (options.bench_frames > 0 && ready_frames > 3) {
                // --bench-busy times only frames drawn while the worker computed throughout.
                if (options.bench_busy && took_result) result_ms.push_back(frame);
                if (!options.bench_busy || (busy_frame && ctx.worker.busy())) {
                    frame_ms.push_back(frame);
                    phases.add(ms_between(frame_start, ui_done), ms_between(ui_done, drawn), ms_between(drawn, now),
                               frame_cache->stats());
                }
                if (static_cast<int>(frame_ms.size()) >= options.bench_frames) {
                    const char* what = options.bench_pan ? "pan frames" : options.bench_busy ? "busy frames" : "frames";
                    print_bench(frame_ms, what);
                    if (options.bench_busy) {
                        std::printf("busy passes %d\n", busy_passes);
                        print_bench(result_ms, "busy result frames");
                    }
                    phases.print();
                    break;
                }
            }
            if (edits.total > 0) {
                ++edits.settled_frames;
                if (edits.pending && ctx.view.trace && ctx.view.generation >= edits.generation) {
                    // This frame showed the edited model's maps for the first time.
                    edits.latency_ms.push_back(ms_between(edits.at, now));
                    edits.job_ms.push_back(ctx.view.compute_ms);
                    edits.load_ms.push_back(ctx.view.load_ms);
                    edits.forward_ms.push_back(ctx.view.forward_ms);
                    // What the UI adds: waiting for the frame boundary, upload, drawing.
                    edits.ui_ms.push_back(edits.latency_ms.back() - ctx.view.compute_ms);
                    edits.accept_ms.push_back(ms_between(frame_start, accepted));
                    edits.sync_ms.push_back(ms_between(accepted, synced));
                    edits.frame_ui_ms.push_back(ms_between(synced, ui_done));
                    edits.render_ms.push_back(ms_between(ui_done, drawn));
                    edits.swap_ms.push_back(ms_between(drawn, now));
                    const FrameCacheStats& fs = frame_cache->stats();
                    edits.redrawn.push_back(fs.total_pixels > 0 ? 100.0 * double(fs.redrawn_pixels) /
                                                                      double(fs.total_pixels)
                                                                : 0.0);
                    edits.pending = false;
                    edits.settled_frames = 0;
                    if (++edits.done >= edits.total) {
                        print_bench(edits.latency_ms, "edits");
                        print_bench(edits.job_ms, "edit jobs");
                        print_bench(edits.load_ms, "edit loads");
                        print_bench(edits.forward_ms, "edit forwards");
                        print_bench(edits.ui_ms, "edit ui");
                        std::printf("edit frame phases accept %.2f ms  sync %.2f ms  ui %.2f ms  render %.2f ms  "
                                    "swap %.2f ms  redrawn %.1f %%\n",
                                    percentiles(edits.accept_ms).p50, percentiles(edits.sync_ms).p50,
                                    percentiles(edits.frame_ui_ms).p50, percentiles(edits.render_ms).p50,
                                    percentiles(edits.swap_ms).p50, percentiles(edits.redrawn).p50);
                        break;
                    }
                }
                if (edits.pending && !ctx.view.error.empty() && ctx.worker.idle()) {
                    std::fprintf(stderr, "headscope: live edit failed: %s\n", ctx.view.error.c_str());
                    status = 1;
                    break;
                }
            }
            // Free heap pages go back to the kernel once the window has been idle for a minute
            // (core/kernels/memory_policy.h keeps them while edits follow each other: the first edit
            // after a release pays ~0.1–0.2 s of page faults again).
            if (!ctx.worker.idle() || !ctx.analysis_worker.idle() || ctx.layer_maps_worker.busy()) {
                last_work = std::chrono::steady_clock::now();
                memory_released = false;
            } else if (!memory_released && std::chrono::steady_clock::now() - last_work > std::chrono::seconds(60)) {
                release_free_memory();
                memory_released = true;
            }
            if (paced) {
                // Sleep out the frame, but wake as soon as a result waits (as a real window
                // would on the worker's wake-up event), so a finished trace is not held back.
                const auto next = frame_start + std::chrono::microseconds(16667);
                while (std::chrono::steady_clock::now() < next && !(!ctx.worker.busy() && !ctx.worker.idle()))
                    std::this_thread::sleep_for(std::chrono::microseconds(500));
            }
            // A screenshot or benchmark that can never get a trace fails instead of hanging.
            const bool unattended = options.bench_frames > 0 || edits.total > 0 || !options.screenshot.empty();
            if (unattended && !script && !ctx.view.trace && ctx.worker.idle() &&
                (!ctx.view.error.empty() || !ctx.state.config_errors.empty())) {
                std::fprintf(stderr, "headscope: %s\n",
                             ctx.view.error.empty() ? ctx.state.config_errors.front().c_str()
                                                    : ctx.view.error.c_str());
                status = 1;
                break;
            }
        }
        if (options.timing) {
            std::printf("model %s\nload %.1f ms  forward %.1f ms  job %.1f ms  (%zu tokens)\n",
                        ctx.view.model_arg.c_str(), ctx.view.load_ms, ctx.view.forward_ms, ctx.view.compute_ms,
                        ctx.view.trace ? ctx.view.trace->main.tokens.size() : std::size_t{0});
            print_bench(busy_ms, "frames while computing");
        }
        if (!options.no_settings && !measuring) {
            glfwGetWindowSize(window, &size.width, &size.height);
            const std::string err = save_settings(ctx.settings_path, ctx.state, size);
            if (!err.empty()) std::fprintf(stderr, "headscope: %s\n", err.c_str());
        }
        ctx.view = TraceView{};
        ctx.analysis = AnalysisView{};
        frame_cache.reset();
        ctx.renderer.reset();
    }
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    glfwDestroyWindow(window);
    glfwTerminate();
    return status;
}

void queue_drop(const std::string& path) { g_dropped.push_back(path); }

}  // namespace hs
