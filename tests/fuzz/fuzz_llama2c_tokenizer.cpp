// Fuzz target: a llama2.c tokenizer.bin (512 pieces as stories260K's), then encoding.
#include "core/error.h"
#include "core/tokenize/llama2c_tokenizer.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string path = hs::fuzz::as_file(data, size, "tok512.bin");
    try {
        const hs::Llama2cTokenizer tok(path, 512);
        (void)tok.decode(tok.encode("Once upon a time, 秦.", true).ids);
    } catch (const hs::Error&) {
    }
    return 0;
}
