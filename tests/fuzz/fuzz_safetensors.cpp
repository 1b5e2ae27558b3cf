// Fuzz target: a model.safetensors file (header, tensor table, data), every tensor read.
#include "core/error.h"
#include "core/io/safetensors.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string path = hs::fuzz::as_file(data, size, "model.safetensors");
    try {
        const auto file = hs::SafetensorsFile::open(path);
        for (const auto& [name, info] : file->tensors())
            if (info.numel() <= (1 << 20)) (void)file->values(name);
    } catch (const hs::Error&) {
    }
    return 0;
}
