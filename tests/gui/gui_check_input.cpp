// gui_check long-text: what the window did with a text over max_len, an empty text and a
// 600-token text (tests/gui/run_long_text_test.sh), from its state dumps.
#include <string>

#include "tests/gui/gui_check_util.h"

namespace hs::gui_check {

int check_long_text(char** argv) {
    const std::string dir = argv[2];
    const nlohmann::json too_long = read_json(dir + "/too_long.json");
    const std::string error = too_long.at("error");
    check(error == "the text has 40 tokens; this model handles at most 16",
          "a text over max_len names both counts (got '" + error + "')");
    check(too_long.at("input_error") == true, "that error is the text's: shown by the text box");

    const nlohmann::json kept = read_json(dir + "/kept.json");
    check(kept.at("error") == "", "keep-first clears the error");
    check(kept.at("token_count") == 16 && kept.at("dropped_tokens") == 24,
          "keep-first runs the first 16 tokens and leaves 24 out (got " + kept.at("token_count").dump() + " and " +
              kept.at("dropped_tokens").dump() + ")");

    const nlohmann::json empty = read_json(dir + "/empty.json");
    check(empty.at("input_error") == true && std::string(empty.at("error")).find("empty") != std::string::npos,
          "an empty text is an input error saying so");

    const nlohmann::json longer = read_json(dir + "/long.json");
    check(longer.at("token_count") == 600, "the 600-token text ran");
    const nlohmann::json& range = longer.at("range");
    const float hi = range.at("hi"), lo = range.at("lo"), max = range.at("max");
    check(max == 1.0f, "the causal map's max is 1 (the first query attends only to itself)");
    check(hi < 0.5f && hi > lo, "the auto range's top (" + std::to_string(hi) + ") is the robust high, not the max");
    return failures ? 1 : 0;
}

}  // namespace hs::gui_check
