#pragma once
#include <string>
#include "app/options.h"

namespace hs {

// Opens the window and runs until closed (or until --screenshot / --bench-frames /
// --script finish). Returns the process exit status.
int run_gui(const GuiOptions& options);

// Queues a path as if it had been dropped on the window (the GLFW drop callback and the
// script action `drop PATH` both end here); handled at the start of the next frame.
void queue_drop(const std::string& path);

}  // namespace hs
