#pragma once
// Saving what the window shows: the back buffer as PNG, and where the heatmap was drawn
// (for tests that check the screenshot's pixels against core's exporter).
#include <string>

namespace hs {

struct AppContext;

// Reads the back buffer (the frame just rendered, before the swap) into a PNG.
void save_screenshot(const std::string& path, int width, int height);
// JSON: framebuffer size, the heatmap's rectangle in framebuffer pixels (top-left origin),
// its uv, colour scale and colormap, the selected layer/head and the model.
void write_layout(const std::string& path, const AppContext& ctx, int fb_w, int fb_h);

}  // namespace hs
