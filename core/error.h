#pragma once
// One exception type for every user-facing failure in core. The message is a full
// sentence a user can act on ("d_model 510 is not divisible by 8 heads"); the CLI
// prints it on one line, the app shows it inline.
#include <stdexcept>
#include <string>

namespace hs {

class Error : public std::runtime_error {
public:
    explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace hs
