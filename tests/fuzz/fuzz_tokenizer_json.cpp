// Fuzz target: a Hugging Face tokenizer.json (byte-level BPE or WordPiece), then encoding
// and decoding a fixed bilingual text.
#include "core/error.h"
#include "core/tokenize/hf_tokenizer_json.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string path = hs::fuzz::as_file(data, size, "tokenizer.json");
    try {
        const auto tok = hs::load_tokenizer_json(path);
        const hs::Tokens t = tok->encode("The cat sat on the mat. 猫坐在垫子上 123", true);
        (void)tok->decode(t.ids);
    } catch (const hs::Error&) {
    }
    return 0;
}
