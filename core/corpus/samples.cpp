#include "core/corpus/samples.h"

#include <nlohmann/json.hpp>

#include "core/corpus/annotated_json.h"
#include "core/error.h"
#include "core/io/atomic_file.h"
#include "core/io/json_file.h"
#include "core/tokenize/playground_tokenizer.h"

namespace hs {

namespace {

// The string field `key` of entry `index`, or `fallback` when the entry has none.
std::string string_field(const nlohmann::json& entry, const char* key, const std::string& fallback,
                         const std::string& where) {
    const auto it = entry.find(key);
    if (it == entry.end()) return fallback;
    if (!it->is_string()) throw Error(where + ": \"" + key + "\" must be a string, not " + it->type_name());
    return it->get<std::string>();
}

}  // namespace

std::vector<Sample> parse_samples(const std::string& json_text, const std::string& origin) {
    const nlohmann::json j = parse_json_text(json_text, origin);
    if (!j.is_array()) throw Error("samples file " + origin + " must hold a JSON array of samples.");
    std::vector<Sample> out;
    out.reserve(j.size());
    for (std::size_t i = 0; i < j.size(); ++i) {
        const std::string where = "sample " + std::to_string(i + 1) + " of " + origin;
        if (!j[i].is_object()) throw Error(where + " must be an object, not " + std::string(j[i].type_name()));
        Sample s;
        s.title = string_field(j[i], "title", "", where);
        s.lang = string_field(j[i], "lang", "en", where);
        s.text = string_field(j[i], "text", "", where);
        s.decoder_text = string_field(j[i], "decoder_text", "", where);
        if (s.text.empty()) throw Error(where + " has no \"text\".");
        if (const auto it = j[i].find("relations"); it != j[i].end()) {
            corpus::AnnotatedSentence gold;
            gold.lang = s.lang;
            gold.tokens = PlaygroundTokenizer(2).encode(s.text).text;  // the split, not the ids
            try {
                gold.arcs = corpus::parse_arcs(*it, static_cast<int>(gold.tokens.size()));
            } catch (const Error& e) {
                throw Error(where + ": \"relations\": " + e.what() + " (positions count the text's words and CJK characters from 0)");
            }
            s.gold = std::move(gold);
        }
        out.push_back(std::move(s));
    }
    return out;
}

std::vector<Sample> load_samples(const std::string& path) {
    return parse_samples(read_file(path), path);
}

}  // namespace hs
