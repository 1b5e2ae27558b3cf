// Fuzz target: BERT's vocab.txt, then WordPiece encoding of a fixed text.
#include "core/error.h"
#include "core/tokenize/wordpiece.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string path = hs::fuzz::as_file(data, size, "vocab.txt");
    try {
        const hs::WordPieceTokenizer tok(hs::read_vocab_txt(path), hs::WordPieceOptions{});
        (void)tok.decode(tok.encode("Unaffable [CLS] héllo 你好", true).ids);
    } catch (const hs::Error&) {
    }
    return 0;
}
