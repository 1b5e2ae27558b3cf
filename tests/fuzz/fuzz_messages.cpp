// Fuzz target: a message shown in the Chinese interface (app/i18n/messages.h). Messages
// quote file names and the words of hostile files; translating one must not crash, hang
// or throw.
#include <string>

#include "app/i18n/i18n.h"
#include "app/i18n/messages.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    hs::set_ui_lang(hs::UiLang::Chinese);
    const std::string message(reinterpret_cast<const char*>(data), size);
    (void)hs::tr_message(message);
    return 0;
}
