#include "cli/args.h"

#include <charconv>

namespace hs {

Args::Args(int argc, char** argv, int first, const std::set<std::string>& value_options,
           const std::set<std::string>& flag_options) {
    for (int i = first; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--help" || a == "-h") throw HelpRequested{};
        if (a.size() > 2 && a.rfind("--", 0) == 0) {
            std::string name = a.substr(2), value;
            bool inline_value = false;
            if (const auto eq = name.find('='); eq != std::string::npos) {
                value = name.substr(eq + 1);
                name = name.substr(0, eq);
                inline_value = true;
            }
            if (value_options.count(name)) {
                if (!inline_value) {
                    if (i + 1 >= argc) throw UsageError{"option --" + name + " needs a value"};
                    value = argv[++i];
                }
                values_[name] = value;
            } else if (flag_options.count(name) && !inline_value) {
                flags_.insert(name);
            } else {
                throw UsageError{"unknown option --" + name};
            }
        } else {
            positionals_.push_back(std::move(a));
        }
    }
}

std::string Args::positional(std::size_t i, const char* what) const {
    if (i >= positionals_.size()) throw UsageError{std::string("missing ") + what};
    return positionals_[i];
}

void Args::expect_at_most(std::size_t n) const {
    if (positionals_.size() > n) throw UsageError{"unexpected argument '" + positionals_[n] + "'"};
}

std::optional<std::string> Args::value(const std::string& name) const {
    const auto it = values_.find(name);
    if (it == values_.end()) return std::nullopt;
    return it->second;
}

std::string Args::value_or(const std::string& name, const std::string& fallback) const {
    return value(name).value_or(fallback);
}

std::optional<long long> Args::integer(const std::string& name, long long lo, long long hi) const {
    const auto v = value(name);
    if (!v) return std::nullopt;
    long long out = 0;
    const char* end = v->data() + v->size();
    const auto [ptr, ec] = std::from_chars(v->data(), end, out);
    if (ec != std::errc() || ptr != end)
        throw UsageError{"--" + name + " needs a whole number, got '" + *v + "'"};
    if (out < lo || out > hi)
        throw UsageError{"--" + name + " " + *v + " is out of range (" + std::to_string(lo) +
                         ".." + std::to_string(hi) + ")"};
    return out;
}

}  // namespace hs
