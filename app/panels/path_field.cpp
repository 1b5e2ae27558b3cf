// The Model panel's "model file / directory" field: a path text field whose completions
// (entries of the typed directory, app/path_complete.h) are listed below it while typing.
// Tab completes (the highlighted match, the only match, or the common prefix), ↑/↓ move
// the highlight, Enter opens; clicking a directory descends into it, clicking a model
// opens it. A "recent" combo lists models opened before (persisted in the settings).
#include <algorithm>

#include "app/i18n/i18n.h"
#include "app/keys.h"
#include "app/panels/panels.h"
#include "app/path_complete.h"
#include "app/panels/window_extents.h"

namespace hs {
namespace {

struct PathFieldData {
    std::string* text;
    ModelPanelView* view;
};

int path_callback(ImGuiInputTextCallbackData* data) {
    auto* pd = static_cast<PathFieldData*>(data->UserData);
    ModelPanelView& v = *pd->view;
    const int n = static_cast<int>(v.matches.size());
    if (data->EventFlag == ImGuiInputTextFlags_CallbackResize) {
        pd->text->resize(static_cast<std::size_t>(data->BufTextLen));
        data->Buf = pd->text->data();
    } else if (data->EventFlag == ImGuiInputTextFlags_CallbackHistory && n > 0) {
        if (data->EventKey == ImGuiKey_UpArrow) v.highlight = v.highlight <= 0 ? n - 1 : v.highlight - 1;
        else if (data->EventKey == ImGuiKey_DownArrow) v.highlight = (v.highlight + 1) % n;
    } else if (data->EventFlag == ImGuiInputTextFlags_CallbackCompletion && n > 0) {
        const std::string target = v.highlight >= 0 && v.highlight < n ? v.matches[static_cast<std::size_t>(v.highlight)].path
                                   : n == 1 ? v.matches.front().path
                                            : common_prefix(v.matches);
        if (target.size() >= static_cast<std::size_t>(data->BufTextLen)) {
            data->DeleteChars(0, data->BufTextLen);
            data->InsertChars(0, target.c_str());
        }
        v.highlight = -1;
    }
    return 0;
}

// "dir/" -> "dir" (the model's name then has no trailing slash); "/" stays.
std::string without_trailing_slash(std::string p) {
    while (p.size() > 1 && p.back() == '/') p.pop_back();
    return p;
}

void open_path(AppState& state, ModelPanelView& field, const std::string& path) {
    const std::string p = without_trailing_slash(typed_path(path));
    if (p.empty()) return;
    field.path = p;
    state.set_model_arg(p);
    state.source = SourceKind::ModelDirectory;
    state.model_dir = p;
}

}  // namespace

void draw_model_path_field(AppState& s, ModelPanelView& v) {
    if (v.synced_dir != s.model_dir) {  // opened elsewhere (drop, recent, script)
        v.path = s.model_dir;
        v.synced_dir = s.model_dir;
    }
    if (v.matches_for != v.path) {
        v.matches = complete_path(v.path);
        v.matches_for = v.path;
        v.highlight = -1;
    }
    text_disabled_wrapped("%s", tr("GGUF, llama2.c .bin or model directory (Hugging Face / HeadScope)"));
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s", tr("Tab completes, ↑/↓ choose, Enter opens; or drop a .gguf, .bin or directory on the window."));
    PathFieldData data{&v.path, &v};
    const ImGuiInputTextFlags flags = ImGuiInputTextFlags_CallbackResize | ImGuiInputTextFlags_CallbackCompletion |
                                      ImGuiInputTextFlags_CallbackHistory;
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize(tr("open")).x -
                            ImGui::GetStyle().FramePadding.x * 2 - ImGui::GetStyle().ItemSpacing.x);
    ImGui::InputText("##path", v.path.data(), v.path.capacity() + 1, flags, path_callback, &data);
    const bool active = ImGui::IsItemActive();
    const bool enter = ImGui::IsItemDeactivated() && (key_pressed(Key::Enter) || key_pressed(Key::KeypadEnter));
    ImGui::SameLine();
    const bool open_clicked = ImGui::Button(tr("open"));
    if (enter || open_clicked) {
        if (v.highlight >= 0 && v.highlight < static_cast<int>(v.matches.size()))
            v.path = v.matches[static_cast<std::size_t>(v.highlight)].path;
        open_path(s, v, v.path);
    }
    // Completions while typing (and while the pointer is on the list, so clicks land).
    const bool exact = v.matches.size() == 1 && v.matches.front().path == v.path;
    if ((active || v.list_hovered) && !v.matches.empty() && !exact) {
        const float line = ImGui::GetTextLineHeightWithSpacing();
        const float h = line * static_cast<float>(std::min<std::size_t>(v.matches.size(), 8)) + 6.0f;
        begin_child("##completions", ImVec2(0, h), true);
        for (std::size_t i = 0; i < v.matches.size(); ++i) {
            const PathMatch& m = v.matches[i];
            const std::string label = m.name + (m.directory ? "/" : "") + (m.model ? "   · " + std::string(tr("model")) : "");
            const bool selected = static_cast<int>(i) == v.highlight;
            if (selected) ImGui::SetScrollHereY();
            if (ImGui::Selectable(label.c_str(), selected)) {
                if (m.model) open_path(s, v, m.path);
                else v.path = m.path;
            }
        }
        v.list_hovered = ImGui::IsWindowHovered();
        end_child();
    } else {
        v.list_hovered = false;
    }
    if (!s.recent_models.empty()) {
        ImGui::SetNextItemWidth(-1);
        if (ImGui::BeginCombo("##recent", tr("recent models…"), ImGuiComboFlags_HeightLarge)) {
            for (const std::string& r : s.recent_models)
                if (ImGui::Selectable(r.c_str(), r == s.model_dir)) open_path(s, v, r);
            ImGui::EndCombo();
        }
    }
}

}  // namespace hs
