#pragma once
#include "app/options.h"

namespace hs {

// Opens the window and runs until closed (or until --screenshot / --bench-frames /
// --script finish). Returns the process exit status.
int run_gui(const GuiOptions& options);

}  // namespace hs
