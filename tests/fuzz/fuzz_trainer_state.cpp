// Fuzz target: a checkpoint's trainer.json (core/train/checkpoint.h), parsed and checked
// as load_checkpoint does before it builds the trainer (a text task's file is named, not
// read).
#include "core/error.h"
#include "core/train/checkpoint.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        (void)hs::train::parse_trainer_state(std::string(reinterpret_cast<const char*>(data), size), "trainer.json");
    } catch (const hs::Error&) {
    }
    return 0;
}
