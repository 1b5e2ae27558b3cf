// Fuzz target: a GGUF file (header, metadata, tensor table, blocks of every type), read as
// a file, then as a model of any architecture (seeds: llama, qwen3, gemma2, gemma3, phi3,
// gpt2, gptneox, bert) with its tokenizer, which encodes a text; then with its layers read from
// the file as a two-token forward reaches them.
#include "core/error.h"
#include "core/formats/gguf.h"
#include "core/formats/gguf_model.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string path = hs::fuzz::as_file(data, size, "model.gguf");
    try {
        const auto file = hs::GgufFile::open(path);
        for (const hs::GgufTensor& t : file->tensors())
            if (t.ne.size() <= 2 && t.numel() <= (1 << 20)) {
                try {
                    (void)file->matrix(t.name);
                } catch (const hs::Error&) {  // an unreadable type: the next tensor may read
                }
            }
        const hs::GgufCheckpoint model = hs::load_gguf(path);
        const hs::Tokens t = model.tokenizer->encode("Once upon a time, 猫 sat. ▁<0x41>");
        (void)model.tokenizer->decode(t.ids);
        // The same file with its layers read as the forward reaches them.
        const hs::GgufCheckpoint layered = hs::load_gguf(path, nullptr, hs::WeightResidency::PerLayer);
        hs::TraceOptions nothing;
        nothing.head_weights = nothing.hidden_states = false;
        (void)layered.model.forward(hs::ForwardInput::of({0, layered.model.config().vocab - 1}), nothing);
    } catch (const hs::Error&) {
    }
    return 0;
}
