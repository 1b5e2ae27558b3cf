// Fuzz target: the settings file the app reads at start (app/settings.cpp), applied to
// a fresh AppState — a bad file must leave the state untouched (checked here).
#include <cstdlib>

#include "app/settings.h"
#include "core/error.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    hs::AppState state;
    hs::WindowSize window;
    const std::string text_before = state.text;
    try {
        hs::apply_settings_json(std::string(reinterpret_cast<const char*>(data), size), "settings.json", state,
                                window);
        if (window.width < hs::kMinWindowWidth || window.width > hs::kMaxWindowSide ||
            window.height < hs::kMinWindowHeight || window.height > hs::kMaxWindowSide)
            std::abort();  // a window no screen can show
    } catch (const hs::Error&) {
        if (state.text != text_before || window.width != 1600) std::abort();  // not all-or-nothing
    }
    return 0;
}
