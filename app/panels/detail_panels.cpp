// The bottom area: Pipeline | Layer outputs | Export tabs in one fixed window.
#include "app/panels/panels.h"

namespace hs {

void draw_detail_panels(AppContext& ctx, const PanelRect& r) {
    begin_fixed_window("Details", r, ImGuiWindowFlags_NoTitleBar);
    bool pipeline = false;
    if (ImGui::BeginTabBar("##details")) {
        if (ImGui::BeginTabItem("Pipeline")) {
            pipeline = true;
            draw_pipeline_tab(ctx);
            ImGui::EndTabItem();
        }
        if (ImGui::BeginTabItem("Layer outputs")) {
            draw_layers_tab(ctx);
            ImGui::EndTabItem();
        }
        if (ImGui::BeginTabItem("Export")) {
            draw_export_tab(ctx);
            ImGui::EndTabItem();
        }
        ImGui::EndTabBar();
    }
    ctx.state.pipeline_open = pipeline;
    ImGui::End();
}

}  // namespace hs
