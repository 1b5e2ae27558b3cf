#include "core/corpus/annotated_json.h"

#include <nlohmann/json.hpp>

#include "core/error.h"

namespace hs::corpus {

namespace {

constexpr const char* kFormat = "headscope-relations";
constexpr std::size_t kMaxSentences = 100000, kMaxTokens = 4096;

// An integer field in [lo, hi], or an error naming it.
int integer_in(const nlohmann::json& j, const std::string& what, long long lo, long long hi) {
    if (!j.is_number_integer()) throw Error(what + " must be an integer");
    const long long v = j.get<long long>();
    if (v < lo || v > hi) throw Error(what + " is " + std::to_string(v) + ", outside " + std::to_string(lo) + " … " + std::to_string(hi));
    return static_cast<int>(v);
}

AnnotatedSentence parse_sentence(const nlohmann::json& j) {
    if (!j.is_object()) throw Error("is not an object");
    AnnotatedSentence s;
    if (!j.contains("lang") || !j["lang"].is_string()) throw Error("needs \"lang\" (\"en\" or \"zh\")");
    s.lang = j["lang"].get<std::string>();
    if (!j.contains("tokens") || !j["tokens"].is_array()) throw Error("needs \"tokens\", an array of strings");
    if (j["tokens"].size() > kMaxTokens) throw Error("has more than " + std::to_string(kMaxTokens) + " tokens");
    for (const auto& t : j["tokens"]) {
        if (!t.is_string() || t.get<std::string>().empty()) throw Error("has a token that is not a non-empty string");
        s.tokens.push_back(t.get<std::string>());
    }
    if (j.contains("arcs")) s.arcs = parse_arcs(j["arcs"], static_cast<int>(s.tokens.size()));
    return s;
}

}  // namespace

std::vector<Arc> parse_arcs(const nlohmann::json& arcs, int n) {
    if (!arcs.is_array()) throw Error("\"arcs\" must be an array");
    std::vector<Arc> out;
    int k = 0;
    for (const auto& a : arcs) {
        const std::string where = "arc " + std::to_string(k++);
        if (!a.is_object() || !a.contains("relation") || !a["relation"].is_string() || !a.contains("dependent") ||
            !a.contains("partner") || !a["partner"].is_array() || a["partner"].size() != 2)
            throw Error(where + " needs \"relation\", \"dependent\" and \"partner\": [begin, end)");
        const auto relation = parse_relation(a["relation"].get<std::string>());
        if (!relation) throw Error(where + ": \"" + a["relation"].get<std::string>() + "\" is not a relation");
        Arc arc;
        arc.relation = *relation;
        arc.dependent = integer_in(a["dependent"], where + " dependent", 1, n - 1);
        arc.partner_begin = integer_in(a["partner"][0], where + " partner begin", 0, arc.dependent - 1);
        arc.partner_end = integer_in(a["partner"][1], where + " partner end", arc.partner_begin + 1, arc.dependent);
        out.push_back(arc);
    }
    return out;
}

std::string relations_json(const std::vector<AnnotatedSentence>& sentences) {
    nlohmann::json list = nlohmann::json::array();
    for (const AnnotatedSentence& s : sentences) {
        nlohmann::json arcs = nlohmann::json::array();
        for (const Arc& a : s.arcs)
            arcs.push_back({{"relation", relation_name(a.relation)},
                            {"dependent", a.dependent},
                            {"partner", {a.partner_begin, a.partner_end}}});
        list.push_back({{"lang", s.lang}, {"tokens", s.tokens}, {"arcs", arcs}});
    }
    return nlohmann::json({{"format", kFormat}, {"sentences", list}}).dump(1) + "\n";
}

std::vector<AnnotatedSentence> parse_relations_json(const std::string& text, const std::string& origin) {
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        throw Error(origin + " is not JSON: " + e.what());
    }
    if (!j.is_object() || !j.contains("format") || j["format"] != kFormat)
        throw Error(origin + " is not a relations file (\"format\": \"" + kFormat + "\")");
    if (!j.contains("sentences") || !j["sentences"].is_array()) throw Error(origin + " needs \"sentences\", an array");
    if (j["sentences"].size() > kMaxSentences)
        throw Error(origin + " has more than " + std::to_string(kMaxSentences) + " sentences");
    std::vector<AnnotatedSentence> out;
    for (std::size_t i = 0; i < j["sentences"].size(); ++i) {
        try {
            out.push_back(parse_sentence(j["sentences"][i]));
        } catch (const Error& e) {
            throw Error(origin + ": sentence " + std::to_string(i) + " " + e.what());
        }
    }
    return out;
}

}  // namespace hs::corpus
