#pragma once
// Settings persisted between runs: last model, recent models, text, colormap, window size,
// export folder and figure options.
// File: $XDG_CONFIG_HOME/headscope/settings.json, else ~/.config/headscope/settings.json.
#include <string>

#include "app/state.h"

namespace hs {

constexpr int kMinWindowWidth = 320, kMinWindowHeight = 240, kMaxWindowSide = 16384;

struct WindowSize {
    int width = 1600, height = 1000;
};

std::string default_settings_path();
// Applies settings JSON (from `origin`) to state/size, all or nothing: a wrong field throws
// hs::Error naming it and leaves both untouched.
void apply_settings_json(const std::string& text, const std::string& origin, AppState& state, WindowSize& size);
// Applies the file to state/size. A missing file changes nothing and returns "";
// a corrupt one changes nothing, is renamed to PATH.bad (PATH.bad.N when that exists; a
// symlink's target is renamed, the link stays) and returns a notice. A file it cannot read
// (permissions, FIFO, device, oversized) is left alone and `path` is cleared, so the
// session's settings are not written over it.
std::string load_settings(std::string& path, AppState& state, WindowSize& size);
// Writes atomically (temp + rename); returns an error sentence or "".
std::string save_settings(const std::string& path, const AppState& state, const WindowSize& size);

// The window size to open with on a monitor whose work area (the screen less its panels
// and docks) is work_width × work_height pixels at `content_scale` pixels per window unit
// (the window is scaled to the monitor): `wanted`, shrunk so that it and a title bar of
// 40 units fit the work area; never below the minimum size. An unknown work area (0)
// keeps `wanted`.
WindowSize fit_to_work_area(WindowSize wanted, int work_width, int work_height, float content_scale);

}  // namespace hs
