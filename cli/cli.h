#pragma once
// The headscope command line (DESIGN §5). No command opens the window; these never do.
namespace hs {

// True when argv[1] names a CLI command (forward, export, inspect, bench, save, help, …).
bool is_cli_command(int argc, char** argv);
// Runs the command; returns the exit status. Errors: one line on stderr, non-zero status.
int run_cli(int argc, char** argv);

}  // namespace hs
