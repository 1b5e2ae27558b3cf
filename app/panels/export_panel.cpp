// Export tab: figures (PNG or SVG) of the selected head or the whole grid (core's
// exporter: labels, axis titles, values, colour bar, title), CSV of the selected head,
// JSON of the trace. Files go to the export folder (remembered in the settings) under
// names that never replace an existing file; the path written or the error is shown.
#include <filesystem>

#include "app/analysis_files.h"
#include "app/exporter.h"
#include "app/i18n/i18n.h"
#include "app/i18n/messages.h"
#include "app/panels/panels.h"
#include "app/panels/widgets.h"

namespace hs {
namespace {

enum class ExportKind { HeadFigure, GridFigure, HeadCsv, TraceJson };

void run_export(const DetailPanelsContext& ctx, ExportKind kind, const std::string& ext) {
    ExportStatus& st = ctx.export_status;
    try {
        const Trace& t = *ctx.view.trace;
        const std::string stem = kind == ExportKind::GridFigure  ? file_stem_of(t) + "_grid"
                                 : kind == ExportKind::TraceJson ? file_stem_of(t) + "_trace"
                                                                 : export_stem(t, ctx.state);
        const std::string path = export_path(ctx.state.export_dir, stem, ext);
        st.last_note.clear();
        switch (kind) {
            case ExportKind::HeadFigure: st.last_path = export_head_figure(ctx.view, ctx.state, path, &st.last_note); break;
            case ExportKind::GridFigure: st.last_path = export_grid_figure(t, ctx.state, path, &st.last_note); break;
            case ExportKind::HeadCsv: st.last_path = export_head_csv(ctx.view, ctx.state, path); break;
            case ExportKind::TraceJson: st.last_path = export_trace_json(t, path); break;
        }
        st.last_error.clear();
    } catch (const std::exception& e) {
        st.last_error = e.what();
    }
}

}  // namespace

void draw_export_tab(const DetailPanelsContext& ctx) {
    ExportStatus& st = ctx.export_status;
    AppState& s = ctx.state;
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.6f);
    input_path_string(tr("export folder###export_dir"), &s.export_dir);
    ImGui::SameLine();
    if (ImGui::SmallButton(tr("default"))) s.export_dir = default_export_dir();
    ImGui::TextDisabled("%s", tr("figures:"));
    ImGui::SameLine();
    for (int scale : {1, 2, 4}) {
        ImGui::SameLine();
        const std::string label = std::to_string(scale) + "×";
        if (ImGui::RadioButton(label.c_str(), s.figure_scale == scale)) s.figure_scale = scale;
    }
    ImGui::SameLine();
    ImGui::Checkbox(tr("values in cells"), &s.figure_values);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s", tr("each weight printed in its cell when the cell is wide enough (masked cells stay blank)"));
    if (!ctx.view.trace) {
        ImGui::TextDisabled("%s", tr("nothing to export yet"));
        return;
    }
    if (!ctx.view.error.empty() || !s.config_errors.empty()) {  // the map shown is of an older input
        ImGui::TextDisabled("%s", tr("fix the error first: the map on screen is not of the current input"));
        return;
    }
    if (ImGui::Button(tr("PNG: selected head"))) run_export(ctx, ExportKind::HeadFigure, "png");
    ImGui::SameLine();
    if (ImGui::Button(tr("SVG: selected head"))) run_export(ctx, ExportKind::HeadFigure, "svg");
    ImGui::SameLine();
    if (ImGui::Button(tr("PNG: all layers × heads"))) run_export(ctx, ExportKind::GridFigure, "png");
    ImGui::SameLine();
    if (ImGui::Button(tr("SVG: all layers × heads"))) run_export(ctx, ExportKind::GridFigure, "svg");
    if (ImGui::Button(tr("CSV: selected head"))) run_export(ctx, ExportKind::HeadCsv, "csv");
    ImGui::SameLine();
    if (ImGui::Button(tr("JSON: whole trace"))) run_export(ctx, ExportKind::TraceJson, "json");
    if (!st.last_error.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.4f, 1.0f));
        ImGui::TextWrapped("%s", tr_message(st.last_error).c_str());
        ImGui::PopStyleColor();
    } else if (!st.last_path.empty()) {
        ImGui::TextWrapped(tr("wrote %s"), std::filesystem::absolute(st.last_path).string().c_str());
        if (!st.last_note.empty()) ImGui::TextWrapped(tr("note: %s (CSV and JSON keep every value)"), st.last_note.c_str());
    }
}

}  // namespace hs
