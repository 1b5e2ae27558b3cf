// Fuzz target: any bytes as the text the byte-level BPE pre-tokenizers split
// (core/tokenize/split_stages.h), under every pre-tokenizer type of a GGUF file. The
// pieces must put the text back together, whatever bytes it holds.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/tokenize/split_stages.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    for (const std::string& pre : hs::gguf_pre_types()) {
        std::string joined;
        for (const std::string& piece : hs::split_in_stages(hs::gguf_pre_splits(pre).value(), text)) {
            if (piece.empty()) std::abort();  // no empty piece reaches BPE
            joined += piece;
        }
        if (joined != text) std::abort();
    }
    return 0;
}
