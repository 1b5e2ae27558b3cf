// headscope: a subcommand runs the CLI (never a window); no subcommand opens the window.
#include <cstdio>
#include <cstring>
#include <exception>

#include "app/app.h"
#include "app/options.h"
#include "app/script.h"
#include "cli/cli.h"
#include "core/kernels/memory_policy.h"

int main(int argc, char** argv) {
    hs::keep_freed_memory();
    // --help: the window's options, then every command (the CLI's usage); 'help COMMAND'
    // is one command's help alone (run_cli).
    if (argc == 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0 ||
                     std::strcmp(argv[1], "help") == 0)) {
        std::fputs(hs::gui_usage().c_str(), stdout);
        std::fputs("\n", stdout);
        std::fflush(stdout);
        return hs::run_cli(argc, argv);
    }
    if (argc == 2 && std::strcmp(argv[1], "--script-actions") == 0) {  // docs/SCRIPTING.md's actions
        std::fputs(hs::script_actions_usage().c_str(), stdout);
        return 0;
    }
    if (hs::is_cli_command(argc, argv)) return hs::run_cli(argc, argv);
    try {
        return hs::run_gui(hs::parse_gui_options(argc, argv));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "headscope: %s\n", e.what());
        return 1;
    }
}
