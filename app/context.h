#pragma once
// Everything the window holds: the user's choices, the newest trace and its textures,
// the workers, the renderer, fonts and per-panel view state. Owned by the frame loop,
// which hands each panel only its parts (the *_context functions below; app/panels/panels.h).
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <imgui.h>

#include "app/analysis_view.h"
#include "app/analysis_worker.h"
#include "app/fonts.h"
#include "app/gl/heatmap_renderer.h"
#include "app/panels/panel_views.h"
#include "app/panels/panels.h"
#include "app/panels/widgets.h"
#include "app/path_complete.h"
#include "app/state.h"
#include "app/trace_view.h"
#include "app/train_view.h"
#include "app/train_worker.h"
#include "app/worker.h"
#include "core/corpus/samples.h"

namespace hs {


struct AppContext {
    AppState state;
    TraceView view;
    Worker worker;
    LayerMapsWorker layer_maps_worker;  // recomputes a block the forward dropped (TraceView)
    MipWorker mip_worker;               // mip levels of a large selected map (TraceView)
    std::unique_ptr<HeatmapRenderer> renderer;
    FontManager fonts;
    float ui_scale = 1.0f;
    float grid_content_h = 0.0f;  // the grid panel's height for its thumbnails, last frame (0: unknown)
    float heatmap_controls_h = 0.0f;  // the Attention view's heatmap controls' height, last frame (0: unknown)
    std::vector<Sample> samples;
    std::shared_ptr<const std::vector<std::string>> sample_texts;  // samples[i].text, for the worker
    std::string samples_error;
    HeatmapView heatmap;
    ModelPanelView model_panel;
    ExportStatus export_status;
    HelpView help;
    TextBoxView text_box;          // the Input panel's text
    TextBoxView decoder_text_box;  // and an encoder–decoder's decoder text
    PipelineView pipeline;
    ClickTargets click_targets;         // widgets a script may click
    MatrixTextures pipeline_textures;   // Pipeline tab: one texture per step matrix
    MatrixTextures layer_textures;      // Layer outputs tab: one per hidden state
    std::string settings_path;
    // Head analysis (issue 5): its own worker, results and view state.
    AnalysisWorker analysis_worker;
    AnalysisView analysis;
    // Train view (issue 13): the training run's worker and the view's state.
    TrainWorker train_worker;
    ExperimentWorker experiment_worker;  // the Train view's Experiment tab
    TrainView train;
};

// The error the window stands on, if any: an invalid config first (nothing was computed
// for it, so the view's error, if any, is of an older request), then the last job's, then
// a model that did not open (the window goes on with the one on screen).
inline const std::string& current_error(const AppContext& ctx) {
    return !ctx.state.config_errors.empty() ? ctx.state.config_errors.front()
           : !ctx.view.error.empty()        ? ctx.view.error
                                            : ctx.state.open_error;
}

// The parts each panel and the analysis actions receive (references into ctx, valid
// while ctx lives; built each frame, so ui_scale is the frame's).
AnalysisContext analysis_context(AppContext& ctx);
AnalysisPanelContext analysis_panel_context(AppContext& ctx);
ModelPanelContext model_panel_context(AppContext& ctx);
InputPanelContext input_panel_context(AppContext& ctx);
HeatmapPanelContext heatmap_panel_context(AppContext& ctx);
GridPanelContext grid_panel_context(AppContext& ctx);
DetailPanelsContext detail_panels_context(AppContext& ctx);
TrainPanelContext train_panel_context(AppContext& ctx);

}  // namespace hs
