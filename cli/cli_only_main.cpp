// Entry point when HeadScope is built without the window (HEADSCOPE_BUILD_APP=OFF).
#include <cstdio>

#include "cli/cli.h"
#include "core/kernels/memory_policy.h"

int main(int argc, char** argv) {
    hs::keep_freed_memory();
    if (!hs::is_cli_command(argc, argv)) {
        std::fprintf(stderr, "headscope: built without the window; try 'headscope help'\n");
        return 2;
    }
    return hs::run_cli(argc, argv);
}
