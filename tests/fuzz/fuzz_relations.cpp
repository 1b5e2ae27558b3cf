// Fuzz target: a relations file (core/corpus/annotated_json.h), as `headscope analyze
// --relations FILE` reads it; every sentence it accepts has arcs that point back inside it.
#include "core/corpus/annotated_json.h"
#include "core/error.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        const auto sentences =
            hs::corpus::parse_relations_json(std::string(reinterpret_cast<const char*>(data), size), "fuzz input");
        for (const auto& s : sentences)
            for (const auto& a : s.arcs)
                if (a.partner_begin < 0 || a.partner_begin >= a.partner_end || a.partner_end > a.dependent ||
                    a.dependent >= static_cast<int>(s.tokens.size()))
                    __builtin_trap();
    } catch (const hs::Error&) {
    }
    return 0;
}
