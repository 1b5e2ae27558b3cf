#pragma once
// One function per panel, each drawing one ImGui window at the given rectangle.
#include <string>
#include <vector>

#include <imgui.h>

#include "app/analysis_actions.h"
#include "app/analysis_view.h"
#include "app/fonts.h"
#include "app/gl/heatmap_renderer.h"
#include "app/panels/panel_views.h"
#include "app/panels/plot_widgets.h"
#include "app/panels/widgets.h"
#include "app/state.h"
#include "app/trace_view.h"
#include "app/train_view.h"
#include "app/worker.h"
#include "core/corpus/samples.h"

namespace hs {

struct PanelRect {
    ImVec2 pos, size;
};

// Each panel receives the parts of the application it reads or changes, and no more; the
// frame loop builds them from its AppContext every frame (app/context.cpp). A panel takes
// its context as const&: which parts it names is fixed; the parts named by a non-const
// reference are the panel's to change.

struct ModelPanelContext {
    AppState& state;
    const TraceView& view;
    const Worker& worker;          // busy: a model is opening
    const TrainView& train;        // the Train view's snapshots ("trained" source)
    ClickTargets& click_targets;
    ModelPanelView& path_field;    // the model file / directory being typed
};
void draw_model_panel(const ModelPanelContext& ctx, const PanelRect& r);
// Model panel, "model file / directory" mode: path field with completion + recent list.
void draw_model_path_field(AppState& state, ModelPanelView& field);

struct InputPanelContext {
    AppState& state;
    const TraceView& view;
    const std::vector<Sample>& samples;
    const std::string& samples_error;  // why assets/samples.json did not load
    TextBoxView& text_box;
    TextBoxView& decoder_text_box;     // an encoder–decoder's decoder text
    ClickTargets& click_targets;
};
void draw_input_panel(const InputPanelContext& ctx, const PanelRect& r);

struct HeatmapPanelContext {
    AppState& state;
    TraceView& view;                     // syncs the selected map's textures
    const Worker& worker;                // busy: "computing…"
    LayerMapsWorker& layer_maps_worker;  // blocks the forward dropped
    MipWorker& mip_worker;               // mip levels of a large map
    HeatmapRenderer& renderer;
    float ui_scale = 1.0f;
    HeatmapView& heatmap;
    ClickTargets& click_targets;
    const std::vector<Sample>& samples;  // gold arcs of the shown sample
    const AnalysisView& analysis;        // the heads' relation captions
};
// with_toolbar false: the layer, head, colormap and colour-scale controls are drawn by
// draw_heatmap_controls_panel instead, and the map takes the panel's height.
void draw_heatmap_panel(const HeatmapPanelContext& ctx, const PanelRect& r, bool with_toolbar = true);
// The Heatmap panel's toolbar in a window of its own, without a title bar (the Attention
// view puts it over the grid, whose thumbnails leave room at 1280×720). Returns the height
// its controls need at this width, window padding included, for the next frame's layout.
float draw_heatmap_controls_panel(const HeatmapPanelContext& ctx, const PanelRect& r);

struct GridPanelContext {
    AppState& state;
    TraceView& view;
    const AnalysisView& analysis;  // role labels of the thumbnails
    HeatmapRenderer& renderer;
    float ui_scale = 1.0f;
    ClickTargets& click_targets;   // each thumbnail, as "thumb-L.H"
};
// Returns the panel height its thumbnails need at this width (title bar and padding
// included; 0 while there are none), for a layout that gives the rest to other panels.
float draw_grid_panel(const GridPanelContext& ctx, const PanelRect& r);

// The bottom area: tabs Pipeline | Layer outputs | Export | Article.
struct DetailPanelsContext {
    AppState& state;
    TraceView& view;
    const Worker& worker;  // busy: "computing the steps…"
    HeatmapRenderer& renderer;
    float ui_scale = 1.0f;
    PipelineView& pipeline;
    MatrixTextures& pipeline_textures;  // one texture per step matrix
    MatrixTextures& layer_textures;     // one per hidden state
    ExportStatus& export_status;
    ClickTargets& click_targets;        // the Pipeline's heatmap cards, as "card-N"
};
void draw_detail_panels(const DetailPanelsContext& ctx, const PanelRect& r);
void draw_pipeline_tab(const DetailPanelsContext& ctx);
void draw_layers_tab(const DetailPanelsContext& ctx);
void draw_export_tab(const DetailPanelsContext& ctx);
// Worked examples with the article's printed numbers: ours, theirs, the difference.
bool article_tab_available(const TraceView& view);
void draw_article_tab(PipelineView& pipeline, const TraceView& view);

// Analysis view (issue 5): one window with tabs Heads | Plots | Similarity | Ablation |
// Rollout | Relations, and a toolbar (Analyze, follow the trace, progress + cancel of the job).
struct AnalysisPanelContext : AnalysisContext {
    PlotCanvas canvas;
};
void draw_analysis_panel(const AnalysisPanelContext& ctx, const PanelRect& r);
void draw_heads_tab(const AnalysisPanelContext& ctx);        // metrics table, role legend, corpus mode
void draw_plots_tab(const AnalysisPanelContext& ctx);        // layer × head metric map, per-layer lines, bars
void draw_similarity_tab(const AnalysisPanelContext& ctx);   // JSD heatmap, redundant pairs, MDS scatter
void draw_ablation_tab(const AnalysisPanelContext& ctx);     // ablated heads, their effect, rank heads
void draw_rollout_tab(const AnalysisPanelContext& ctx);      // rollout heatmap and per-token bars
void draw_relations_tab(const AnalysisPanelContext& ctx);    // heads against gold relations, per language

// Train view (issue 13): setup and controls on the left; loss curves, per-head
// trajectories, a timeline over the snapshots, the probe's maps and the heads' similarity.
struct TrainPanelContext {
    AppState& state;
    TrainView& train;
    TrainWorker& train_worker;
    ExperimentWorker& experiment_worker;
    FontManager& fonts;  // the probe's tokens need their glyphs
    PlotCanvas canvas;
    ClickTargets& click_targets;
};
void draw_train_panel(const TrainPanelContext& ctx, const PanelRect& r);
void draw_experiment_tab(const TrainPanelContext& ctx);  // heads / d_model experiment, side by side
// The Experiment tab's exports (core's experiment_csv / render_experiment); hs::Error
// when nothing has finished.
void export_experiment_csv(const ExperimentWorker& experiment, TrainView& train, const std::string& path);
void export_experiment_png(const ExperimentWorker& experiment, TrainView& train, const std::string& path);

// Welcome (what the window shows, what to try, keys) and About (versions, licences),
// over the views while open (app/panels/help_panel.cpp).
void draw_help_windows(HelpView& help, const FontManager& fonts);

// Worked examples: which matrix a Pipeline cell edit changes (PyTorch layout, as shown).
enum class Editable { No, X, WIn, WOut };
// Copies the example, sets the cell, marks the state dirty (recompute on the worker).
// Throws hs::Error for a cell outside the matrix or a source that is not an example.
void edit_worked_example_cell(AppState& state, Editable which, int row, int col, float value);

// Places the next window at r, fixed (the layout follows the window size).
void begin_fixed_window(const char* name, const PanelRect& r, ImGuiWindowFlags extra = 0);

}  // namespace hs
