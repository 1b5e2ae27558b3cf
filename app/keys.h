#pragma once
// The keys the window answers to, read through whichever key API the Dear ImGui in use
// has: ImGuiKey values since 1.87 (Debian 13's 1.90, 1.92), GLFW key codes before
// (Debian 12's 1.86, whose ImGuiKey names only a few keys and whose GLFW backend fills
// io.KeysDown by GLFW code).
#include <string>

namespace hs {

enum class Key {
    F1, F2, F3, F4,
    Equal, Minus, Zero,                         // Ctrl + / − / 0: text size
    KeypadAdd, KeypadSubtract, Keypad0,
    Left, Right, Up, Down,                      // heads and layers in the heatmap
    Enter, KeypadEnter,
    Escape,                                     // closes the text editor, keeping the edit
};

// ImGui::IsKeyPressed for `key` (with key repeat), this frame.
bool key_pressed(Key key);

// Plays `key` going down or up, as the keyboard would (scripted sessions); call before
// ImGui::NewFrame.
void play_key(Key key, bool down);

// The key named `name` ("left", "right", "up", "down", "escape", "enter", "f1" … "f4"),
// or throws hs::Error naming the keys there are.
Key parse_key(const std::string& name);

}  // namespace hs
