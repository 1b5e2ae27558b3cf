#include "app/keys.h"

#include <GLFW/glfw3.h>
#include <imgui.h>

namespace hs {

#if IMGUI_VERSION_NUM >= 18700
bool key_pressed(Key key) {
    static constexpr ImGuiKey kKeys[] = {
        ImGuiKey_F1,        ImGuiKey_F2,          ImGuiKey_F3,     ImGuiKey_F4,      ImGuiKey_Equal,
        ImGuiKey_Minus,     ImGuiKey_0,           ImGuiKey_KeypadAdd, ImGuiKey_KeypadSubtract,
        ImGuiKey_Keypad0,   ImGuiKey_LeftArrow,   ImGuiKey_RightArrow, ImGuiKey_UpArrow,
        ImGuiKey_DownArrow, ImGuiKey_Enter,       ImGuiKey_KeypadEnter,
    };
    return ImGui::IsKeyPressed(kKeys[static_cast<int>(key)]);
}
#else
// 1.86: the GLFW backend fills io.KeysDown[] by GLFW key code; io.KeyMap maps the few
// named ImGuiKey values to those codes.
bool key_pressed(Key key) {
    static constexpr int kGlfwKeys[] = {
        GLFW_KEY_F1,   GLFW_KEY_F2,    GLFW_KEY_F3,     GLFW_KEY_F4,   GLFW_KEY_EQUAL,
        GLFW_KEY_MINUS, GLFW_KEY_0,    GLFW_KEY_KP_ADD, GLFW_KEY_KP_SUBTRACT,
        GLFW_KEY_KP_0, GLFW_KEY_LEFT,  GLFW_KEY_RIGHT,  GLFW_KEY_UP,   GLFW_KEY_DOWN,
        GLFW_KEY_ENTER, GLFW_KEY_KP_ENTER,
    };
    return ImGui::IsKeyPressed(kGlfwKeys[static_cast<int>(key)]);
}
#endif

}  // namespace hs
