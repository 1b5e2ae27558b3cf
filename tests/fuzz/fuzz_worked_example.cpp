// Fuzz target: a worked-example JSON (textbook Q = X·W_Q convention), parsed and run.
#include "core/error.h"
#include "core/worked_example.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        const hs::WorkedExample e =
            hs::parse_worked_example(std::string(reinterpret_cast<const char*>(data), size), "example.json");
        (void)e.run();
    } catch (const hs::Error&) {
    }
    return 0;
}
