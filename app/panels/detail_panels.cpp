// The bottom area: Pipeline | Layer outputs | Export (| Article, for worked examples that
// record their source's numbers) tabs in one fixed window.
#include "app/panels/panels.h"

namespace hs {

void draw_detail_panels(AppContext& ctx, const PanelRect& r) {
    begin_fixed_window("Details", r, ImGuiWindowFlags_NoTitleBar);
    bool pipeline = false;
    auto flags = [&](const char* name) {
        return ctx.state.select_tab == name ? ImGuiTabItemFlags_SetSelected : ImGuiTabItemFlags_None;
    };
    if (ImGui::BeginTabBar("##details")) {
        if (ImGui::BeginTabItem("Pipeline", nullptr, flags("pipeline"))) {
            pipeline = true;
            draw_pipeline_tab(ctx);
            ImGui::EndTabItem();
        }
        if (ImGui::BeginTabItem("Layer outputs", nullptr, flags("layers"))) {
            draw_layers_tab(ctx);
            ImGui::EndTabItem();
        }
        if (ImGui::BeginTabItem("Export", nullptr, flags("export"))) {
            draw_export_tab(ctx);
            ImGui::EndTabItem();
        }
        if (article_tab_available(ctx) && ImGui::BeginTabItem("Compare with the article", nullptr, flags("article"))) {
            draw_article_tab(ctx);
            ImGui::EndTabItem();
        }
        ImGui::EndTabBar();
    }
    ctx.state.select_tab.clear();
    ctx.state.pipeline_open = pipeline;
    ImGui::End();
}

}  // namespace hs
