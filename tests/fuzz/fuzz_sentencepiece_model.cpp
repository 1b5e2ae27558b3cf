// Fuzz target: a SentencePiece tokenizer.model (the protobuf libsentencepiece reads), loaded
// and used to encode and decode a text.
#include "core/error.h"
#include "core/tokenize/sentencepiece_model.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string path = hs::fuzz::as_file(data, size, "tokenizer.model");
    try {
        const hs::SentencePieceModel model(path);
        const hs::Tokens t = model.encode("Once upon a time, 猫 sat. ＦＵＬＬ", true);
        (void)model.decode(t.ids);
        for (int id = 0; id < model.vocab_size() && id < 64; ++id) (void)model.display(id);
    } catch (const hs::Error&) {
    }
    return 0;
}
