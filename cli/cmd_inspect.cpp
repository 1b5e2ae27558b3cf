// headscope inspect MODEL: config, tensors, parameter count.
#include <cstdio>

#include "cli/commands.h"
#include "cli/common.h"
#include "core/open_source.h"

namespace hs {

int cmd_inspect(int argc, char** argv) {
    const Args args(argc, argv, 2, {}, {});
    args.expect_at_most(1);
    std::fputs(inspect_model(args.positional(0, "MODEL")).c_str(), stdout);
    return 0;
}

}  // namespace hs
