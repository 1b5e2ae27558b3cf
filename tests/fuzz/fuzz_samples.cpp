// Fuzz target: a samples file (assets/samples.json or one a user edits), parsed.
#include "core/error.h"
#include "core/corpus/samples.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        (void)hs::parse_samples(std::string(reinterpret_cast<const char*>(data), size), "samples.json");
    } catch (const hs::Error&) {
    }
    return 0;
}
