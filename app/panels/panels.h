#pragma once
// One function per panel, each drawing one ImGui window at the given rectangle.
#include <string>

#include <imgui.h>

#include "app/context.h"

namespace hs {

struct PanelRect {
    ImVec2 pos, size;
};

void draw_model_panel(AppContext& ctx, const PanelRect& r);
// Model panel, "model file / directory" mode: path field with completion + recent list.
void draw_model_path_field(AppContext& ctx);
void draw_input_panel(AppContext& ctx, const PanelRect& r);
void draw_heatmap_panel(AppContext& ctx, const PanelRect& r);
void draw_grid_panel(AppContext& ctx, const PanelRect& r);
// The bottom area: tabs Pipeline | Layer outputs | Export.
void draw_detail_panels(AppContext& ctx, const PanelRect& r);
void draw_pipeline_tab(AppContext& ctx);
void draw_layers_tab(AppContext& ctx);
void draw_export_tab(AppContext& ctx);
// Worked examples with the article's printed numbers: ours, theirs, the difference.
bool article_tab_available(const AppContext& ctx);
void draw_article_tab(AppContext& ctx);

// Analysis view (issue 5): one window with tabs Heads | Plots | Similarity | Ablation |
// Rollout, and a toolbar (Analyze, follow the trace, progress + cancel of the job).
void draw_analysis_panel(AppContext& ctx, const PanelRect& r);
void draw_heads_tab(AppContext& ctx);        // metrics table, role legend, corpus mode
void draw_plots_tab(AppContext& ctx);        // layer × head metric map, per-layer lines, bars
void draw_similarity_tab(AppContext& ctx);   // JSD heatmap, redundant pairs, MDS scatter
void draw_ablation_tab(AppContext& ctx);     // ablated heads, their effect, rank heads
void draw_rollout_tab(AppContext& ctx);      // rollout heatmap and per-token bars
void draw_relations_tab(AppContext& ctx);    // heads against gold relations, per language

// Train view (issue 13): setup and controls on the left; loss curves, per-head
// trajectories, a timeline over the snapshots, the probe's maps and the heads' similarity.
void draw_train_panel(AppContext& ctx, const PanelRect& r);
// Welcome (what the window shows, what to try, keys) and About (versions, licences),
// over the views while open (app/panels/help_panel.cpp).
void draw_help_windows(AppContext& ctx);
void draw_experiment_tab(AppContext& ctx);  // heads / d_model experiment, side by side
// The Experiment tab's exports (core's experiment_csv / render_experiment); hs::Error
// when nothing has finished.
void export_experiment_csv(AppContext& ctx, const std::string& path);
void export_experiment_png(AppContext& ctx, const std::string& path);

// Worked examples: which matrix a Pipeline cell edit changes (PyTorch layout, as shown).
enum class Editable { No, X, WIn, WOut };
// Copies the example, sets the cell, marks the state dirty (recompute on the worker).
// Throws hs::Error for a cell outside the matrix or a source that is not an example.
void edit_worked_example_cell(AppState& state, Editable which, int row, int col, float value);

// Places the next window at r, fixed (the layout follows the window size).
void begin_fixed_window(const char* name, const PanelRect& r, ImGuiWindowFlags extra = 0);

}  // namespace hs
