#include "app/context.h"

namespace hs {

AnalysisContext analysis_context(AppContext& ctx) {
    return {.state = ctx.state,
            .view = ctx.view,
            .analysis = ctx.analysis,
            .analysis_worker = ctx.analysis_worker,
            .samples = ctx.samples};
}

AnalysisPanelContext analysis_panel_context(AppContext& ctx) {
    return {analysis_context(ctx), PlotCanvas{.renderer = *ctx.renderer, .ui_scale = ctx.ui_scale}};
}

ModelPanelContext model_panel_context(AppContext& ctx) {
    return {.state = ctx.state,
            .view = ctx.view,
            .worker = ctx.worker,
            .train = ctx.train,
            .click_targets = ctx.click_targets,
            .path_field = ctx.model_panel};
}

InputPanelContext input_panel_context(AppContext& ctx) {
    return {.state = ctx.state,
            .view = ctx.view,
            .samples = ctx.samples,
            .samples_error = ctx.samples_error,
            .text_box = ctx.text_box,
            .decoder_text_box = ctx.decoder_text_box,
            .click_targets = ctx.click_targets};
}

HeatmapPanelContext heatmap_panel_context(AppContext& ctx) {
    return {.state = ctx.state,
            .view = ctx.view,
            .worker = ctx.worker,
            .layer_maps_worker = ctx.layer_maps_worker,
            .mip_worker = ctx.mip_worker,
            .renderer = *ctx.renderer,
            .ui_scale = ctx.ui_scale,
            .heatmap = ctx.heatmap,
            .click_targets = ctx.click_targets,
            .samples = ctx.samples,
            .analysis = ctx.analysis};
}

GridPanelContext grid_panel_context(AppContext& ctx) {
    return {.state = ctx.state,
            .view = ctx.view,
            .analysis = ctx.analysis,
            .renderer = *ctx.renderer,
            .ui_scale = ctx.ui_scale,
            .click_targets = ctx.click_targets};
}

DetailPanelsContext detail_panels_context(AppContext& ctx) {
    return {.state = ctx.state,
            .view = ctx.view,
            .worker = ctx.worker,
            .renderer = *ctx.renderer,
            .ui_scale = ctx.ui_scale,
            .pipeline = ctx.pipeline,
            .pipeline_textures = ctx.pipeline_textures,
            .layer_textures = ctx.layer_textures,
            .export_status = ctx.export_status,
            .click_targets = ctx.click_targets};
}

TrainPanelContext train_panel_context(AppContext& ctx) {
    return {.state = ctx.state,
            .train = ctx.train,
            .train_worker = ctx.train_worker,
            .experiment_worker = ctx.experiment_worker,
            .fonts = ctx.fonts,
            .canvas = PlotCanvas{.renderer = *ctx.renderer, .ui_scale = ctx.ui_scale},
            .click_targets = ctx.click_targets};
}

}  // namespace hs
