// Fuzz target: GPT-2's vocab.json and merges.txt (the input split at its first NUL byte),
// then encoding and decoding a fixed text.
#include "core/error.h"
#include "core/tokenize/gpt2_bpe.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto [vocab, merges] = hs::fuzz::split_at_nul(data, size);
    const std::string vocab_path =
        hs::fuzz::as_file(reinterpret_cast<const std::uint8_t*>(vocab.data()), vocab.size(), "vocab.json");
    const std::string merges_path =
        hs::fuzz::as_file(reinterpret_cast<const std::uint8_t*>(merges.data()), merges.size(), "merges.txt");
    try {
        const hs::Gpt2BpeTokenizer tok(vocab_path, merges_path);
        (void)tok.decode(tok.encode("Hello world, 你好!", true).ids);
    } catch (const hs::Error&) {
    }
    return 0;
}
