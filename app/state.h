#pragma once
// AppState: what the user chose (model source, architecture, text, selection, view
// settings). Panels edit it; edits that change the computation set `dirty`, and the
// frame loop turns that into a ComputeRequest for the worker.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/model/config.h"
#include "core/model/trace.h"
#include "core/image/colormap.h"
#include "core/worked_example.h"

namespace hs {

// Trained: a model the Train view trained, at one of its snapshots (ctx.train.progress).
// Default: the model HeadScope trains itself (assets/models/default, docs/DEFAULT_MODEL.md).
enum class SourceKind { Playground, WorkedExample, ModelDirectory, Trained, Default };

// Which attention maps the heatmap shows: the main stack's self-attention, or for an
// encoder-decoder the decoder's self- or cross-attention.
enum class MapKind { Self, DecoderSelf, DecoderCross };

// The right-hand side of the window: attention maps (heatmap, grid, pipeline tabs) or
// head analysis (analysis window beside the grid and the heatmap).
enum class ViewMode { Attention, Analysis, Train };

// $HOME/Pictures/HeadScope, or ./headscope-exports without a home directory.
std::string default_export_dir();
// $HOME, or "" when unset.
std::string home_dir();
// A path as the user typed it, its leading "~" or "~/" read as home (core/io/file_names.h).
std::string typed_path(const std::string& typed);

struct AppState {
    // -- model ----------------------------------------------------------------
    SourceKind source = SourceKind::Default;
    ModelConfig config;                 // playground architecture being edited
    std::string example_path;           // worked example JSON
    std::string model_dir;              // model directory or llama2.c .bin being shown
    std::vector<std::string> recent_models;  // newest first, persisted in settings
    // Worked example with the user's cell edits (pipeline panel); null = file as is.
    std::shared_ptr<const WorkedExample> edited_example;
    // SourceKind::Trained: the Train view's run (TrainProgress::run_id) and snapshot step.
    std::uint64_t trained_run = 0;
    int trained_step = 0;

    // -- input ----------------------------------------------------------------
    // The first screen: a sample whose pronoun the default model resolves (samples.json).
    std::string text = "Alice helped John and then he cooks .";
    std::string decoder_text;  // encoder-decoder; empty = same as text
    bool keep_first_tokens = false;  // text over the model's max_len: show its first max_len tokens
    int continue_n = 8;        // "continue" button: greedy tokens to append
    int pending_continue = 0;  // > 0: the next request continues the text first

    // -- selection and view ---------------------------------------------------
    MapKind map = MapKind::Self;
    int layer = 0;
    int head = 0;
    Colormap colormap = Colormap::Viridis;
    ColorScale scale;                   // lo 0, hi 1 for weights (when !auto_range)
    bool auto_range = true;             // lo/hi = min/max of the map (grid: of all maps)
    bool show_scores = false;           // heatmap shows scaled scores instead of weights
    bool pipeline_open = false;         // pipeline tab visible: request detail_layer
    std::string select_tab;             // "pipeline" | "layers" | "export": switch once
    ViewMode view_mode = ViewMode::Attention;
    std::string select_analysis_tab;    // "heads" | "plots" | "similarity" | "ablation" | "rollout" | "relations"
    std::string open_analysis_tab;      // the one drawn last (the same key; the state dump's "open_tab")

    // -- ablation (issue 5) -----------------------------------------------------
    // Heads switched off in every forward pass (main-stack self-attention). Editing the
    // list sets `dirty`: the trace recomputes with them ablated, beside a plain run.
    std::vector<HeadRef> ablated;
    AblationMode ablate_mode = AblationMode::Zero;
    bool ablate_clicks = false;         // grid clicks toggle ablation instead of selecting
    // Adds the head when absent, removes it when present; marks the state dirty.
    void toggle_ablation(const HeadRef& head);
    bool is_ablated(int layer, int head) const;

    // -- preferences (persisted in settings) -------------------------------------
    std::string export_dir = default_export_dir();  // where the window writes files
    int figure_scale = 1;               // exported figures: 1×, 2× or 4× the pixels
    bool figure_values = true;          // exported figures print values in cells that fit
    std::string ui_lang = "en";         // interface language: "en" | "zh" (app/i18n)
    float ui_zoom = 1.0f;               // the user's text size (Ctrl + / −), × the content scale
    static constexpr float kMinZoom = 0.6f, kMaxZoom = 2.5f;
    void zoom_in() { ui_zoom = std::min(kMaxZoom, ui_zoom * 1.1f); }
    void zoom_out() { ui_zoom = std::max(kMinZoom, ui_zoom / 1.1f); }

    // -- bookkeeping ----------------------------------------------------------
    bool dirty = true;                      // computation inputs changed
    std::vector<std::string> config_errors; // hs::validate messages of `config`
    std::string notice;                     // one-line message (settings, drops)
    // A notice about a text (a task model's own example, a continuation) goes when another
    // text is typed: the text, and the notice as it was set.
    struct TextNotice {
        std::string text, notice;
    };
    std::optional<TextNotice> text_notice;

    // Model argument the worker opens: playground spec, example or directory path.
    std::string model_arg() const;
    // Sets the source from a command-line MODEL argument ("default", "random:…", dir, .json).
    // The new model starts on layer 0, head 0, self-attention, nothing ablated; the view
    // before is kept in view_before_open.
    void set_model_arg(const std::string& arg);
    // What the window showed of the last model before another was opened: put back if the
    // open fails (that model's maps stay on screen), dropped once a new trace arrives.
    struct ViewBeforeOpen {
        MapKind map = MapKind::Self;
        int layer = 0, head = 0;
        std::vector<HeadRef> ablated;
    };
    std::optional<ViewBeforeOpen> view_before_open;
    void restore_view_before_open();

    // -- a model that does not open ----------------------------------------------
    // The fields above that choose the model (model_arg() is made of them).
    struct ModelChoice {
        SourceKind source = SourceKind::Default;
        ModelConfig config;
        std::string example_path, model_dir;
        std::shared_ptr<const WorkedExample> edited_example;
        std::uint64_t trained_run = 0;
        int trained_step = 0;
        std::string arg() const;  // what the worker opens (AppState::model_arg)
    };
    ModelChoice model_choice() const;
    // The choice of the last request, and of the request whose maps are on screen. A model
    // that does not open (failed_model_arg) stays chosen in the Model panel with open_error
    // saying why (dismissable), while later edits run on the model shown (submit_if_dirty),
    // until another model is chosen.
    std::optional<ModelChoice> requested_model, shown_model;
    std::string failed_model_arg, open_error;
    // The model `arg` did not open (or its load was cancelled) for the reason `why`: the
    // window goes on with the shown model and the view of it, recomputing edits made since.
    void keep_shown_model(const std::string& arg, const std::string& why);
    // Whether requests go to the shown model instead of the chosen one that did not open.
    bool computes_on_shown_model() const {
        return !failed_model_arg.empty() && shown_model && model_arg() == failed_model_arg;
    }
    // Puts a model path first in recent_models (unique, at most kMaxRecent).
    void remember_model(const std::string& path);
    static constexpr std::size_t kMaxRecent = 10;
};

// A --layer or --head (−1: not asked) that the selection could not keep (the model has
// fewer) as a notice for the Model panel, instead of silently showing another head; ""
// when the selection is as asked.
std::string selection_notice(int asked_layer, int asked_head, const AppState& state);

// That notice stays while the model it speaks of is shown: opening or editing into another
// model (another model_arg) takes it off the Model panel, unless something else replaced it.
class SelectionNoticeKeeper {
public:
    void show(AppState& state, const std::string& notice);
    void drop_when_model_changes(AppState& state);  // every frame

private:
    std::string notice_, model_;
};

}  // namespace hs
