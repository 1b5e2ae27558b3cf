// Fuzz target: config.json of a model directory: HeadScope's own (config_from_json) and
// a Hugging Face one of every family (parse_hf_config), then validation.
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/formats/hf_config.h"
#include "core/io/json_file.h"
#include "core/model/config.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    nlohmann::json j;
    try {
        j = hs::parse_json_text(text, "config.json");
    } catch (const hs::Error&) {
        return 0;
    }
    try {
        hs::ensure_valid(hs::config_from_json(j));
    } catch (const hs::Error&) {
    }
    try {
        (void)hs::parse_hf_config(j, "config.json");
    } catch (const hs::Error&) {
    }
    return 0;
}
