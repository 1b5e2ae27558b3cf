#pragma once
// Every window and child window as the panels laid it out, read through ImGui's public API
// only (the state dump's "windows"; run_layout_fit_test.sh checks that none clips its
// widgets sideways). Panels open and close their windows through these calls instead of
// ImGui::Begin / End, BeginChild / EndChild.
#include <imgui.h>

#include <string>
#include <vector>

namespace hs {

struct WindowExtent {
    std::string name;  // "Heatmap###heatmap", a child "Input###input/##text_view"
    bool child = false;
    ImVec2 min, max;        // screen rectangle
    float content_w = 0.0f;  // the width its widgets need
    float inner_w = 0.0f;    // the width it shows them in
    bool clipped = false;    // wider content and no horizontal scrollbar
};

// ImGui::Begin, and the window remembered for end_window.
bool begin_window(const char* name, bool* open, ImGuiWindowFlags flags);
// Notes the current window's extent, then ImGui::End.
void end_window();
// ImGui::BeginChild with a border or not, and the child remembered for end_child.
bool begin_child(const char* id, const ImVec2& size, bool border, ImGuiWindowFlags flags = 0);
// Notes the current child's extent, then ImGui::EndChild.
void end_child();

// ImGui::BeginMainMenuBar; when it returns true, end_main_menu_bar notes the bar
// ("##MainMenuBar") and calls ImGui::EndMainMenuBar.
bool begin_main_menu_bar();
void end_main_menu_bar();

// At the start of a frame: the frame before becomes the one last_window_extents returns.
void start_window_extents();
// The windows of the last complete frame, in the order they closed.
const std::vector<WindowExtent>& last_window_extents();

}  // namespace hs
