#include "app/keys.h"

#include <iterator>

#include <GLFW/glfw3.h>
#include <imgui.h>

#include "core/error.h"

namespace hs {

namespace {

constexpr const char* kKeyNames[] = {
    "f1", "f2", "f3", "f4", "equal", "minus", "0", "keypad-add", "keypad-subtract", "keypad-0",
    "left", "right", "up", "down", "enter", "keypad-enter", "escape",
};
constexpr std::size_t kKeyCount = static_cast<std::size_t>(Key::Escape) + 1;  // the last Key
static_assert(std::size(kKeyNames) == kKeyCount);

}  // namespace

#if IMGUI_VERSION_NUM >= 18700
namespace {
constexpr ImGuiKey kKeys[] = {
    ImGuiKey_F1,        ImGuiKey_F2,          ImGuiKey_F3,        ImGuiKey_F4,          ImGuiKey_Equal,
    ImGuiKey_Minus,     ImGuiKey_0,           ImGuiKey_KeypadAdd, ImGuiKey_KeypadSubtract,
    ImGuiKey_Keypad0,   ImGuiKey_LeftArrow,   ImGuiKey_RightArrow, ImGuiKey_UpArrow,
    ImGuiKey_DownArrow, ImGuiKey_Enter,       ImGuiKey_KeypadEnter, ImGuiKey_Escape,
};
static_assert(std::size(kKeys) == kKeyCount);
}  // namespace

bool key_pressed(Key key) { return ImGui::IsKeyPressed(kKeys[static_cast<int>(key)]); }

void play_key(Key key, bool down) { ImGui::GetIO().AddKeyEvent(kKeys[static_cast<int>(key)], down); }
#else
// 1.86: the GLFW backend fills io.KeysDown[] by GLFW key code; io.KeyMap maps the few
// named ImGuiKey values to those codes.
namespace {
constexpr int kGlfwKeys[] = {
    GLFW_KEY_F1,    GLFW_KEY_F2,    GLFW_KEY_F3,     GLFW_KEY_F4,          GLFW_KEY_EQUAL,
    GLFW_KEY_MINUS, GLFW_KEY_0,     GLFW_KEY_KP_ADD, GLFW_KEY_KP_SUBTRACT,
    GLFW_KEY_KP_0,  GLFW_KEY_LEFT,  GLFW_KEY_RIGHT,  GLFW_KEY_UP,          GLFW_KEY_DOWN,
    GLFW_KEY_ENTER, GLFW_KEY_KP_ENTER, GLFW_KEY_ESCAPE,
};
static_assert(std::size(kGlfwKeys) == kKeyCount);
}  // namespace

bool key_pressed(Key key) { return ImGui::IsKeyPressed(kGlfwKeys[static_cast<int>(key)]); }

void play_key(Key key, bool down) { ImGui::GetIO().KeysDown[kGlfwKeys[static_cast<int>(key)]] = down; }
#endif

Key parse_key(const std::string& name) {
    std::string known;
    for (std::size_t k = 0; k < std::size(kKeyNames); ++k) {
        if (name == kKeyNames[k]) return static_cast<Key>(k);
        known += (k ? ", " : "") + std::string(kKeyNames[k]);
    }
    throw Error("unknown key '" + name + "' (keys: " + known + ")");
}

}  // namespace hs
