#pragma once
// Minimal argument parsing for the subcommands: positionals plus --key value / --flag.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace hs {

// Thrown for a usage mistake (unknown option, missing value); exit status 2.
struct UsageError {
    std::string message;
};

// Thrown when the arguments ask for the command's help (--help, or -h where an argument
// would be): the dispatcher prints it; exit status 0.
struct HelpRequested {};

class Args {
public:
    // `value_options` take a value (--text "…"), `flag_options` do not (--grid). Throws
    // HelpRequested at --help or -h (an option's value "-h" is a value), UsageError at
    // the first mistake.
    Args(int argc, char** argv, int first, const std::set<std::string>& value_options,
         const std::set<std::string>& flag_options);

    const std::vector<std::string>& positionals() const { return positionals_; }
    std::string positional(std::size_t i, const char* what) const;  // UsageError if missing
    // UsageError naming the first positional beyond the first `n` (a stray argument).
    void expect_at_most(std::size_t n) const;
    bool flag(const std::string& name) const { return flags_.count(name) != 0; }
    std::optional<std::string> value(const std::string& name) const;
    std::string value_or(const std::string& name, const std::string& fallback) const;
    // Integer option; UsageError naming the option if not a whole number in [lo, hi].
    std::optional<long long> integer(const std::string& name, long long lo, long long hi) const;

private:
    std::vector<std::string> positionals_;
    std::set<std::string> flags_;
    std::map<std::string, std::string> values_;
};

}  // namespace hs
