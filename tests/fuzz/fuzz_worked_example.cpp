// Fuzz target: a worked-example JSON (textbook Q = X·W_Q convention), parsed and run, and
// its notes broken into lines as the window shows them (core/image/line_break).
#include "core/error.h"
#include "core/image/line_break.h"
#include "core/worked_example.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        const hs::WorkedExample e =
            hs::parse_worked_example(std::string(reinterpret_cast<const char*>(data), size), "example.json");
        const auto bytes = [](std::string_view s) { return static_cast<float>(s.size()); };
        for (const std::string* text : {&e.title, &e.description, &e.title_zh, &e.description_zh})
            (void)hs::break_lines(*text, 24.0f, bytes);
        (void)e.run();
    } catch (const hs::Error&) {
    }
    return 0;
}
