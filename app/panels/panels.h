#pragma once
// One function per panel, each drawing one ImGui window at the given rectangle.
#include <imgui.h>

#include "app/context.h"

namespace hs {

struct PanelRect {
    ImVec2 pos, size;
};

void draw_model_panel(AppContext& ctx, const PanelRect& r);
void draw_input_panel(AppContext& ctx, const PanelRect& r);
void draw_heatmap_panel(AppContext& ctx, const PanelRect& r);
void draw_grid_panel(AppContext& ctx, const PanelRect& r);
// The bottom area: tabs Pipeline | Layer outputs | Export.
void draw_detail_panels(AppContext& ctx, const PanelRect& r);
void draw_pipeline_tab(AppContext& ctx);
void draw_layers_tab(AppContext& ctx);
void draw_export_tab(AppContext& ctx);

// Places the next window at r, fixed (the layout follows the window size).
void begin_fixed_window(const char* name, const PanelRect& r, ImGuiWindowFlags extra = 0);

}  // namespace hs
