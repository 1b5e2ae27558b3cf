#include "core/corpus/annotated.h"

#include "core/tokenize/playground_tokenizer.h"

namespace hs::corpus {

namespace {

constexpr const char* kNames[kRelationCount] = {"agreement", "coreference", "modifier", "bracket",
                                                "date",      "negation",    "repetition"};

// Whether the token's first code point is CJK (a Chinese character or full-width mark).
bool cjk_token(const std::string& t) {
    if (t.empty()) return false;
    const auto b = [&](std::size_t i) { return static_cast<unsigned char>(t[i]); };
    char32_t cp = b(0);
    if (cp >= 0xF0 && t.size() >= 4) cp = ((cp & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
    else if (cp >= 0xE0 && t.size() >= 3) cp = ((cp & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
    else if (cp >= 0xC0 && t.size() >= 2) cp = ((cp & 0x1F) << 6) | (b(1) & 0x3F);
    return is_cjk(cp);
}

}  // namespace

const char* relation_name(Relation r) { return kNames[static_cast<int>(r)]; }

std::optional<Relation> parse_relation(const std::string& name) {
    for (int i = 0; i < kRelationCount; ++i)
        if (name == kNames[i]) return static_cast<Relation>(i);
    return std::nullopt;
}

std::vector<Relation> all_relations() {
    std::vector<Relation> out;
    for (int i = 0; i < kRelationCount; ++i) out.push_back(static_cast<Relation>(i));
    return out;
}

std::string text_of(const AnnotatedSentence& s) {
    std::string out;
    for (std::size_t i = 0; i < s.tokens.size(); ++i) {
        if (i > 0 && (s.lang != "zh" || (!cjk_token(s.tokens[i - 1]) && !cjk_token(s.tokens[i])))) out += ' ';
        out += s.tokens[i];
    }
    return out;
}

}  // namespace hs::corpus
