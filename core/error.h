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

// The input text cannot be run as given: it is empty, or longer than the model reads
// (tokens > max_len; then both counts are set). The app shows it by the text box and
// offers to keep the first max_len tokens (SourceInput::keep_first).
class InputError : public Error {
public:
    explicit InputError(const std::string& message, int tokens = 0, int max_len = 0)
        : Error(message), tokens(tokens), max_len(max_len) {}
    int tokens = 0, max_len = 0;
};

}  // namespace hs
