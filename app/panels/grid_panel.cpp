// Grid panel: every layer × head of the selected map kind as thumbnails (one textured
// quad each, uploaded once per trace), labelled, click to select, ctrl-click to ablate
// (ablated thumbnails are darkened and crossed out); after Analyze, a role-coloured strip.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "app/i18n/i18n.h"
#include "app/i18n/messages.h"
#include "app/panels/panels.h"
#include "app/panels/plot_widgets.h"
#include "app/panels/window_extents.h"

namespace hs {
namespace {

// The role labels of head (l, h) when the shown analysis belongs to this model's shape.
const HeadLabels* label_of(const GridPanelContext& ctx, int l, int h) {
    const AnalysisView& a = ctx.analysis;
    if (!a.analysis || !ctx.view.trace || ctx.state.map != MapKind::Self) return nullptr;
    if (a.analysis->heads != heads_in(*ctx.view.trace, MapKind::Self) || a.analysis->layers != ctx.view.trace->n_layers())
        return nullptr;
    const std::size_t n = static_cast<std::size_t>(l * a.analysis->heads + h);
    return n < a.analysis->labels.size() ? &a.analysis->labels[n] : nullptr;
}

// The tooltip of thumbnail (l, h): the head, the K/V head it reads (grouped-query
// attention), its role, whether it is ablated and what ctrl-click does.
std::string thumb_tooltip(const GridPanelContext& ctx, const Trace& trace, int l, int h, bool grouped, bool can_ablate) {
    const Trace* t = &trace;
    const AppState& s = ctx.state;
    const bool ablated = can_ablate && s.is_ablated(l, h);
    char tip_buf[256];
    std::snprintf(tip_buf, sizeof tip_buf, tr("layer %d, head %d"), l, h);
    std::string tip = tip_buf;
    if (grouped) {
        std::snprintf(tip_buf, sizeof tip_buf, tr(" (reads K/V head %d)"), kv_head_of(*t, h));
        tip += tip_buf;
    }
    if (const HeadLabels* hl = label_of(ctx, l, h))
        tip += "\n" + std::string(tr("role:")) + " " + label_list(*hl) + "  (" + tr_message(hl->primary.reason) + ")";
    if (ablated) {
        std::snprintf(tip_buf, sizeof tip_buf, tr("ABLATED (%s)"), tr(to_string(s.ablate_mode)));
        tip += "\n" + std::string(tip_buf);
    }
    if (can_ablate)
        tip += "\n" + std::string(ablated ? tr("ctrl-click: switch it back on") : tr("ctrl-click: switch this head off"));
    return tip;
}

// Over and around thumbnail (l, h) at p0: an ablated head darkened and crossed out, the
// role strip along its bottom edge, the frame (amber when selected).
void draw_thumb_marks(const GridPanelContext& ctx, ImDrawList* list, ImVec2 p0, float thumb, int l, int h, bool can_ablate) {
    const ImVec2 p1(p0.x + thumb, p0.y + thumb);
    const float fs = ImGui::GetFontSize();
    const AppState& s = ctx.state;
    const bool ablated = can_ablate && s.is_ablated(l, h);
    if (ablated) {
        // Ablated: darkened, crossed out in red, "off" in the corner.
        list->AddRectFilled(p0, p1, IM_COL32(0, 0, 0, 120));
        list->AddLine(p0, p1, IM_COL32(235, 60, 60, 255), 2.5f);
        list->AddLine(ImVec2(p1.x, p0.y), ImVec2(p0.x, p1.y), IM_COL32(235, 60, 60, 255), 2.5f);
        const char* off = tr("off");
        list->AddRectFilled(p0, ImVec2(p0.x + ImGui::CalcTextSize(off).x + 6, p0.y + fs + 2), IM_COL32(200, 40, 40, 255));
        list->AddText(ImVec2(p0.x + 3, p0.y + 1), IM_COL32(255, 255, 255, 255), off);
    }
    if (const HeadLabels* hl = label_of(ctx, l, h)) {
        // Role strip along the bottom edge (colours as in the Analysis legend).
        list->AddRectFilled(ImVec2(p0.x, p1.y - 5.0f * ctx.ui_scale), p1, role_color(hl->primary.role));
    }
    const bool selected = l == s.layer && h == s.head;
    list->AddRect(ImVec2(p0.x - 2, p0.y - 2), ImVec2(p1.x + 2, p1.y + 2),
                  selected ? IM_COL32(255, 190, 60, 255) : IM_COL32(60, 64, 72, 255), 0, 0,
                  selected ? 2.5f : 1.0f);
}

}  // namespace

float draw_grid_panel(const GridPanelContext& ctx, const PanelRect& r) {
    begin_fixed_window(tr("All layers × heads###grid"), r);
    const Trace* t = ctx.view.trace.get();
    if (!t) {
        ImGui::TextDisabled("%s", tr("no trace yet"));
        end_window();
        return 0.0f;
    }
    AppState& s = ctx.state;
    // Ablation applies to the main stack's self-attention of models that read text.
    const bool can_ablate = s.map == MapKind::Self && ctx.view.source && ctx.view.source->takes_text();
    const auto& thumbs = ctx.view.thumbs[static_cast<int>(s.map)];
    const int n_layers = static_cast<int>(thumbs.size());
    const int n_heads = n_layers > 0 ? static_cast<int>(thumbs.front().size()) : 0;
    if (n_layers == 0 || n_heads == 0) {
        ImGui::TextDisabled("%s", tr("no maps"));
        end_window();
        return 0.0f;
    }
    const float fs = ImGui::GetFontSize();
    const float label_w = ImGui::CalcTextSize("L00").x + 6.0f;
    const float gap = 4.0f * ctx.ui_scale;
    const float avail = ImGui::GetContentRegionAvail().x - label_w;
    // Thumbnails at least 28 px: more heads than fit across wrap into blocks of columns,
    // each with its own captions and a row per layer (a wide table broken into parts), so
    // every head stays on screen and clickable (32 heads used to run past the edge).
    const float min_thumb = 28.0f * ctx.ui_scale;
    const int per_block = std::clamp(static_cast<int>(std::floor((avail + gap) / (min_thumb + gap))), 1, n_heads);
    const float thumb = std::max(min_thumb, std::floor((avail - gap * per_block) / per_block));
    ImDrawList* list = ImGui::GetWindowDrawList();
    const ImU32 text = IM_COL32(200, 204, 212, 255);
    const bool grouped = s.map == MapKind::Self && kv_head_of(*t, 0) >= 0;
    const bool two_lines = grouped && ImGui::CalcTextSize(head_caption(*t, n_heads - 1).c_str()).x > thumb * 0.85f;
    std::vector<ImVec2> corner(static_cast<std::size_t>(n_layers) * n_heads);  // top-left of thumbnail (l, h)
    const auto at = [&](int l, int h) -> ImVec2& { return corner[static_cast<std::size_t>(l) * n_heads + h]; };
    for (int h0 = 0; h0 < n_heads; h0 += per_block) {
        const int h1 = std::min(n_heads, h0 + per_block);
        // Column captions H0 … ; under grouped-query attention each names the key/value head
        // it reads ("H5 · kv2"), on a second line when the columns are narrow.
        const ImVec2 start = ImGui::GetCursorScreenPos();
        for (int h = h0; h < h1; ++h) {
            const float cx = start.x + label_w + (h - h0) * (thumb + gap) + thumb * 0.5f;
            if (!grouped || !two_lines) {
                const std::string cap = grouped ? head_caption(*t, h) : "H" + std::to_string(h);
                list->AddText(ImVec2(cx - ImGui::CalcTextSize(cap.c_str()).x * 0.5f, start.y), text, cap.c_str());
            } else {
                const std::string top = "H" + std::to_string(h), bottom = "kv" + std::to_string(kv_head_of(*t, h));
                list->AddText(ImVec2(cx - ImGui::CalcTextSize(top.c_str()).x * 0.5f, start.y), text, top.c_str());
                list->AddText(ImVec2(cx - ImGui::CalcTextSize(bottom.c_str()).x * 0.5f, start.y + fs),
                              IM_COL32(150, 170, 200, 255), bottom.c_str());
            }
        }
        ImGui::Dummy(ImVec2(1, (two_lines ? 2.0f : 1.0f) * fs + 2));
        for (int l = 0; l < n_layers; ++l) {
            const ImVec2 row = ImGui::GetCursorScreenPos();
            char buf[16];
            std::snprintf(buf, sizeof buf, "L%d", l);
            list->AddText(ImVec2(row.x, row.y + thumb * 0.5f - fs * 0.5f), text, buf);
            for (int h = h0; h < h1 && h < static_cast<int>(thumbs[static_cast<std::size_t>(l)].size()); ++h) {
                const ImVec2 p0(row.x + label_w + (h - h0) * (thumb + gap), row.y), p1(p0.x + thumb, p0.y + thumb);
                at(l, h) = p0;
                ImGui::SetCursorScreenPos(p0);
                ImGui::PushID(l * 1000 + h);
                if (ImGui::InvisibleButton("##thumb", ImVec2(thumb, thumb))) {
                    // Ctrl-click (or the Ablation tab's "grid clicks ablate") switches the head
                    // off / on; a plain click selects it.
                    if (can_ablate && (ImGui::GetIO().KeyCtrl || s.ablate_clicks))
                        s.toggle_ablation(HeadRef{l, h, false, false});
                    else {
                        s.layer = l;
                        s.head = h;
                    }
                }
                if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", thumb_tooltip(ctx, *t, l, h, grouped, can_ablate).c_str());
                ctx.click_targets.note("thumb-" + std::to_string(l) + "." + std::to_string(h));
                ImGui::PopID();
                ctx.renderer.draw(list, thumbs[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)], p0, p1,
                                   UvRect{}, ctx.view.grid_scale(s), s.colormap);
            }
            ImGui::SetCursorScreenPos(ImVec2(row.x, row.y + thumb + gap));
        }
        if (h1 < n_heads) ImGui::Dummy(ImVec2(1, gap * 2));  // room between blocks
    }
    // Marks over and around the thumbnails, after all of them: the quads above form one
    // run of draws (one switch to ImGui's GL state), and no mark overlaps another thumbnail.
    for (int l = 0; l < n_layers; ++l)
        for (int h = 0; h < n_heads && h < static_cast<int>(thumbs[static_cast<std::size_t>(l)].size()); ++h)
            draw_thumb_marks(ctx, list, at(l, h), thumb, l, h, can_ablate);
    ImGui::Dummy(ImVec2(1, 1));
    const float content_h = ImGui::GetCursorPosY() + ImGui::GetStyle().WindowPadding.y;  // from the window's top
    end_window();
    return content_h;
}

}  // namespace hs
