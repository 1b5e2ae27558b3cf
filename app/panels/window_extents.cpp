#include "app/panels/window_extents.h"

#include <utility>

namespace hs {

namespace {

struct Open {
    std::string name;
    ImGuiWindowFlags flags = 0;
    bool child = false, border = false;
    bool shown = true;  // Begin / BeginChild returned true: the window draws its widgets
};
std::vector<Open> g_open;                       // windows begun and not yet ended
std::vector<WindowExtent> g_current, g_last;   // this frame's closed windows, the last frame's

// The current window's extent, its content closed by the group begun with it: the group's
// rectangle spans every widget the window drew this frame. Its inner width is the window's
// less its padding and a vertical scrollbar.
void note(const Open& w) {
    ImGui::EndGroup();
    if (!w.shown) return;  // collapsed or scrolled out of sight: nothing drawn to measure
    const ImGuiStyle& style = ImGui::GetStyle();
    const ImVec2 pos = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
    // A child without a border has no padding of its own.
    const float pad = w.child && !w.border ? 0.0f : style.WindowPadding.x;
    const bool vertical_bar = !(w.flags & ImGuiWindowFlags_NoScrollbar) &&
                              (ImGui::GetScrollMaxY() > 0.0f || (w.flags & ImGuiWindowFlags_AlwaysVerticalScrollbar));
    WindowExtent e;
    e.name = w.name;
    e.child = w.child;
    e.min = pos;
    e.max = ImVec2(pos.x + size.x, pos.y + size.y);
    e.inner_w = size.x - 2.0f * pad - (vertical_bar ? style.ScrollbarSize : 0.0f);
    e.content_w = ImGui::GetItemRectSize().x;
    e.clipped = e.content_w > e.inner_w + 1.0f && !(w.flags & ImGuiWindowFlags_HorizontalScrollbar);
    g_current.push_back(std::move(e));
}

// The open window's record, for its end (an unmatched end notes nothing).
Open close_last() {
    if (g_open.empty()) return {};
    Open w = std::move(g_open.back());
    g_open.pop_back();
    return w;
}

}  // namespace

bool begin_window(const char* name, bool* open, ImGuiWindowFlags flags) {
    g_open.push_back({name, flags, false, false, true});
    const bool shown = ImGui::Begin(name, open, flags);
    g_open.back().shown = shown;
    ImGui::BeginGroup();  // closed by note: the rectangle of everything the window draws
    return shown;
}

void end_window() {
    const Open w = close_last();
    if (!w.name.empty()) note(w);
    ImGui::End();
}

bool begin_child(const char* id, const ImVec2& size, bool border, ImGuiWindowFlags flags) {
    const std::string parent = g_open.empty() ? std::string() : g_open.back().name + "/";
    g_open.push_back({parent + id, flags, true, border, true});
    const bool shown = ImGui::BeginChild(id, size, border, flags);
    g_open.back().shown = shown;
    ImGui::BeginGroup();
    return shown;
}

void end_child() {
    const Open w = close_last();
    if (!w.name.empty()) note(w);
    ImGui::EndChild();
}

bool begin_main_menu_bar() {
    if (!ImGui::BeginMainMenuBar()) return false;
    g_open.push_back({"##MainMenuBar", ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_MenuBar, false, false, true});
    ImGui::BeginGroup();
    return true;
}

void end_main_menu_bar() {
    const Open w = close_last();
    if (!w.name.empty()) note(w);
    ImGui::EndMainMenuBar();
}

void start_window_extents() {
    g_last = std::move(g_current);
    g_current.clear();
    g_open.clear();
}

const std::vector<WindowExtent>& last_window_extents() { return g_last; }

}  // namespace hs
