// The bottom area: Pipeline | Layer outputs | Export (| Article, for worked examples that
// record their source's numbers) tabs in one fixed window.
#include "app/i18n/i18n.h"
#include "app/panels/panels.h"
#include "app/panels/window_extents.h"

namespace hs {

void draw_detail_panels(const DetailPanelsContext& ctx, const PanelRect& r) {
    begin_fixed_window("Details", r, ImGuiWindowFlags_NoTitleBar);
    bool pipeline = false;
    auto flags = [&](const char* name) {
        return ctx.state.select_tab == name ? ImGuiTabItemFlags_SetSelected : ImGuiTabItemFlags_None;
    };
    if (ImGui::BeginTabBar("##details")) {
        if (ImGui::BeginTabItem(tr("Pipeline###pipeline"), nullptr, flags("pipeline"))) {
            pipeline = true;
            draw_pipeline_tab(ctx);
            ImGui::EndTabItem();
        }
        if (ImGui::BeginTabItem(tr("Layer outputs###layers"), nullptr, flags("layers"))) {
            draw_layers_tab(ctx);
            ImGui::EndTabItem();
        }
        if (ImGui::BeginTabItem(tr("Export###export"), nullptr, flags("export"))) {
            draw_export_tab(ctx);
            ImGui::EndTabItem();
        }
        if (article_tab_available(ctx.view) && ImGui::BeginTabItem(tr("Compare with the article###article"), nullptr, flags("article"))) {
            draw_article_tab(ctx.pipeline, ctx.view);
            ImGui::EndTabItem();
        }
        ImGui::EndTabBar();
    }
    ctx.state.select_tab.clear();
    ctx.state.pipeline_open = pipeline;
    end_window();
}

}  // namespace hs
