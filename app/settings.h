#pragma once
// Settings persisted between runs: last model, recent models, text, colormap, window size.
// File: $XDG_CONFIG_HOME/headscope/settings.json, else ~/.config/headscope/settings.json.
#include <string>

#include "app/state.h"

namespace hs {

struct WindowSize {
    int width = 1600, height = 1000;
};

std::string default_settings_path();
// Applies the file to state/size. A missing file changes nothing and returns "";
// a corrupt one changes nothing and returns a notice for the UI.
std::string load_settings(const std::string& path, AppState& state, WindowSize& size);
// Writes atomically (temp + rename); returns an error sentence or "".
std::string save_settings(const std::string& path, const AppState& state, const WindowSize& size);

}  // namespace hs
