#include "app/context.h"

namespace hs {

AnalysisContext analysis_context(AppContext& ctx) {
    return {ctx.state, ctx.view, ctx.analysis, ctx.analysis_worker, ctx.samples};
}

AnalysisPanelContext analysis_panel_context(AppContext& ctx) {
    return {analysis_context(ctx), PlotCanvas{*ctx.renderer, ctx.ui_scale}};
}

ModelPanelContext model_panel_context(AppContext& ctx) {
    return {ctx.state, ctx.view, ctx.worker, ctx.train, ctx.click_targets, ctx.model_panel};
}

InputPanelContext input_panel_context(AppContext& ctx) {
    return {ctx.state, ctx.view, ctx.samples, ctx.samples_error, ctx.text_box, ctx.decoder_text_box};
}

HeatmapPanelContext heatmap_panel_context(AppContext& ctx) {
    return {ctx.state,     ctx.view,          ctx.worker,        ctx.layer_maps_worker,
            ctx.mip_worker, *ctx.renderer,    ctx.ui_scale,      ctx.heatmap,
            ctx.click_targets, ctx.samples,   ctx.analysis};
}

GridPanelContext grid_panel_context(AppContext& ctx) {
    return {ctx.state, ctx.view, ctx.analysis, *ctx.renderer, ctx.ui_scale};
}

DetailPanelsContext detail_panels_context(AppContext& ctx) {
    return {ctx.state,    ctx.view,          ctx.worker,         *ctx.renderer,     ctx.ui_scale,
            ctx.pipeline, ctx.pipeline_textures, ctx.layer_textures, ctx.export_status};
}

TrainPanelContext train_panel_context(AppContext& ctx) {
    return {ctx.state, ctx.train, ctx.train_worker, ctx.experiment_worker, ctx.fonts,
            PlotCanvas{*ctx.renderer, ctx.ui_scale}, ctx.click_targets};
}

}  // namespace hs
