#pragma once
// Sample sentences (assets/samples.json): a JSON array of objects
//   {"title": "coreference", "lang": "en" | "zh", "text": "...", "decoder_text": "..."}
// where `text` is required and the other fields are optional strings.
#include <string>
#include <vector>

namespace hs {

struct Sample {
    std::string title;         // what it shows ("coreference", …)
    std::string lang = "en";   // "en" | "zh"
    std::string text;
    std::string decoder_text;  // optional (encoder–decoder models)
};

// Throws hs::Error naming `origin`, the entry (1-based) and the field that is wrong.
std::vector<Sample> parse_samples(const std::string& json_text, const std::string& origin);
std::vector<Sample> load_samples(const std::string& path);

}  // namespace hs
