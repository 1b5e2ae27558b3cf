// Fuzz target: a playground spec "random:k=v,…" as typed in the Model field or the CLI.
#include "core/error.h"
#include "core/model/config.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        hs::ensure_valid(hs::parse_playground_spec(std::string(reinterpret_cast<const char*>(data), size)));
    } catch (const hs::Error&) {
    }
    return 0;
}
