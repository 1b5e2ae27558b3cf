// headscope export MODEL --text "..." (--layer L --head H | --grid) --png FILE [--csv F] [--json F]
// Placeholder until the image exporter lands; replaced below.
#include "cli/commands.h"
#include "core/error.h"

namespace hs {
int cmd_export(int, char**) { throw Error("export is not built yet"); }
}  // namespace hs
