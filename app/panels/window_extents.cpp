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

// Remembers a window just begun and opens the group that note() closes: the rectangle of
// everything the window draws.
void open_window(Open w) {
    g_open.push_back(std::move(w));
    ImGui::BeginGroup();
}

// Notes the innermost open window (an unmatched end notes nothing).
void note_last() {
    if (g_open.empty()) return;
    const Open w = std::move(g_open.back());
    g_open.pop_back();
    note(w);
}

}  // namespace

bool begin_window(const char* name, bool* open, ImGuiWindowFlags flags) {
    const bool shown = ImGui::Begin(name, open, flags);
    open_window({name, flags, false, false, shown});
    return shown;
}

void end_window() {
    note_last();
    ImGui::End();
}

bool begin_child(const char* id, const ImVec2& size, bool border, ImGuiWindowFlags flags) {
    const std::string parent = g_open.empty() ? std::string() : g_open.back().name + "/";
    const bool shown = ImGui::BeginChild(id, size, border, flags);
    open_window({parent + id, flags, true, border, shown});
    return shown;
}

void end_child() {
    note_last();
    ImGui::EndChild();
}

bool begin_main_menu_bar() {
    if (!ImGui::BeginMainMenuBar()) return false;
    open_window({"##MainMenuBar", ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_MenuBar, false, false, true});
    return true;
}

void end_main_menu_bar() {
    note_last();
    ImGui::EndMainMenuBar();
}

void start_window_extents() {
    g_last = std::move(g_current);
    g_current.clear();
    g_open.clear();
}

const std::vector<WindowExtent>& last_window_extents() { return g_last; }

}  // namespace hs
