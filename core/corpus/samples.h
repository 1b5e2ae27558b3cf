#pragma once
// Sample sentences (assets/samples.json): a JSON array of objects
//   {"title": "coreference", "lang": "en" | "zh", "text": "...", "decoder_text": "...",
//    "relations": [{"relation": "coreference", "dependent": 7, "partner": [0, 1]}]}
// where `text` is required and the other fields are optional strings.
#include <optional>
#include <string>
#include <vector>

#include "core/corpus/annotated.h"

namespace hs {

struct Sample {
    std::string title;         // what it shows ("coreference", …)
    std::string lang = "en";   // "en" | "zh"
    std::string text;
    std::string decoder_text;  // optional (encoder–decoder models)
    // Optional gold relations ("relations": arcs as in a relations file, annotated_json.h),
    // on the tokens the playground tokenizer splits `text` into (words, each CJK character
    // its own token; no BOS): gold->tokens are those tokens.
    std::optional<corpus::AnnotatedSentence> gold;
};

// Throws hs::Error naming `origin`, the entry (1-based) and the field that is wrong.
std::vector<Sample> parse_samples(const std::string& json_text, const std::string& origin);
std::vector<Sample> load_samples(const std::string& path);

}  // namespace hs
