// Export tab: PNG of the selected head or the whole grid (core's exporter: labels,
// colour bar, title), CSV of the selected head, JSON of the trace. Files are written
// atomically; the path written or the error is shown.
#include <filesystem>

#include "app/exporter.h"
#include "app/panels/panels.h"
#include "app/panels/widgets.h"

namespace hs {
namespace {

void run_export(AppContext& ctx, const char* kind, const std::string& file) {
    ExportStatus& st = ctx.export_status;
    const std::string path = (std::filesystem::path(st.directory) / file).string();
    try {
        const Trace& t = *ctx.view.trace;
        const std::string k = kind;
        st.last_note.clear();
        if (k == "head") st.last_path = export_head_png(ctx.view, ctx.state, path, &st.last_note);
        else if (k == "grid") st.last_path = export_grid_png(t, ctx.state, path, &st.last_note);
        else if (k == "csv") st.last_path = export_head_csv(ctx.view, ctx.state, path);
        else st.last_path = export_trace_json(t, path);
        st.last_error.clear();
    } catch (const std::exception& e) {
        st.last_error = e.what();
    }
}

}  // namespace

void draw_export_tab(AppContext& ctx) {
    ExportStatus& st = ctx.export_status;
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.6f);
    input_text_string("directory", &st.directory);
    if (!ctx.view.trace) {
        ImGui::TextDisabled("nothing to export yet");
        return;
    }
    const AppState& s = ctx.state;
    const std::string stem = "headscope_L" + std::to_string(s.layer) + "_H" + std::to_string(s.head);
    if (ImGui::Button("PNG: selected head")) run_export(ctx, "head", stem + ".png");
    ImGui::SameLine();
    if (ImGui::Button("PNG: all layers × heads")) run_export(ctx, "grid", "headscope_grid.png");
    ImGui::SameLine();
    if (ImGui::Button("CSV: selected head")) run_export(ctx, "csv", stem + ".csv");
    ImGui::SameLine();
    if (ImGui::Button("JSON: whole trace")) run_export(ctx, "json", "headscope_trace.json");
    if (!st.last_error.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.4f, 1.0f));
        ImGui::TextWrapped("%s", st.last_error.c_str());
        ImGui::PopStyleColor();
    } else if (!st.last_path.empty()) {
        ImGui::TextWrapped("wrote %s", std::filesystem::absolute(st.last_path).string().c_str());
        if (!st.last_note.empty()) ImGui::TextWrapped("note: %s (CSV and JSON keep every value)", st.last_note.c_str());
    }
}

}  // namespace hs
