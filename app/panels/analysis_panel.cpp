// Analysis window: the toolbar (Analyze, "follow" the trace, corpus / ranking progress with
// cancel, last status or error) over the tabs Heads | Plots | Similarity | Ablation | Rollout |
// Relations.
// Every number shown comes from core/analysis on the analysis worker; nothing here computes.
#include <cstdio>

#include "app/analysis_actions.h"
#include "app/i18n/i18n.h"
#include "app/i18n/messages.h"
#include "app/panels/panels.h"
#include "app/panels/window_extents.h"

namespace hs {
namespace {

void draw_toolbar(const AnalysisPanelContext& ctx) {
    AnalysisView& a = ctx.analysis;
    AnalysisWorker& w = ctx.analysis_worker;
    ImGui::BeginDisabled(!ctx.view.trace);
    if (ImGui::Button(tr("Analyze"))) try_action(ctx.analysis.error, [&] { request_analysis(ctx); });
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("%s", tr("metrics, role labels, head similarity and rollout of every head for the current text"));
    ImGui::SameLine();
    ImGui::Checkbox(tr("follow edits"), &a.follow);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("re-analyze whenever the trace changes (text, model, ablation)"));
    ImGui::SameLine();
    if (w.busy()) {
        const int total = w.progress_total(), done = w.progress_done();
        char label[96];
        if (total > 0) std::snprintf(label, sizeof label, "%s %d/%d", tr(to_string(w.running_kind())), done, total);
        else std::snprintf(label, sizeof label, "%s…", tr(to_string(w.running_kind())));
        ImGui::ProgressBar(total > 0 ? float(done) / float(total) : 0.0f, ImVec2(260.0f * ctx.canvas.ui_scale, 0.0f), label);
        ImGui::SameLine();
        if (ImGui::Button(tr("cancel##analysis"))) {
            w.cancel();
            a.set_status(tr("cancelled"));
        }
    } else if (!a.error.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.4f, 1.0f));
        ImGui::TextWrapped("%s", tr_message(a.error).c_str());
        ImGui::PopStyleColor();
    } else if (!a.status.empty() && (a.status_model.empty() || a.status_model == ctx.view.model_arg)) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
        ImGui::TextWrapped("%s", tr_message(a.status).c_str());  // a long status wraps instead of widening the panel
        ImGui::PopStyleColor();
    } else {
        ImGui::TextDisabled("%s", tr("press Analyze: every head's role, redundant pairs and rollout"));
    }
}

}  // namespace

void draw_analysis_panel(const AnalysisPanelContext& ctx, const PanelRect& r) {
    begin_fixed_window(tr("Head analysis###analysis"), r);  // one window in every language
    draw_toolbar(ctx);
    auto flags = [&](const char* name) {
        return ctx.state.select_analysis_tab == name ? ImGuiTabItemFlags_SetSelected : ImGuiTabItemFlags_None;
    };
    if (ImGui::BeginTabBar("##analysis_tabs")) {
        struct Tab {
            const char* label;
            const char* key;
            void (*draw)(const AnalysisPanelContext&);
        };
        // "###key": the same tab in every language, so switching it keeps the tab open.
        const Tab tabs[] = {{"Heads###heads", "heads", draw_heads_tab},
                            {"Plots###plots", "plots", draw_plots_tab},
                            {"Similarity###similarity", "similarity", draw_similarity_tab},
                            {"Ablation###ablation", "ablation", draw_ablation_tab},
                            {"Rollout###rollout", "rollout", draw_rollout_tab},
                            {"Relations###relations", "relations", draw_relations_tab}};
        for (const Tab& t : tabs) {
            if (ImGui::BeginTabItem(tr(t.label), nullptr, flags(t.key))) {
                ctx.state.open_analysis_tab = t.key;
                t.draw(ctx);
                ImGui::EndTabItem();
            }
        }
        ImGui::EndTabBar();
    }
    ctx.state.select_analysis_tab.clear();
    end_window();
}

}  // namespace hs
