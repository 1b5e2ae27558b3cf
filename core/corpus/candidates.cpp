#include "core/corpus/candidates.h"

#include <algorithm>
#include <string>

#include "core/corpus/grammar.h"

namespace hs::corpus {

bool has_candidate_kind(Relation relation) {
    return relation == Relation::Coreference || relation == Relation::Agreement;
}

bool has_lexicon(const std::string& lang) { return lang == "en" || lang == "zh"; }

namespace {

// A pronoun of a person (names are its candidates) or of a thing or animal (nouns).
bool person_pronoun(const std::string& t) { return t == "he" || t == "she" || t == "他" || t == "她"; }
bool thing_pronoun(const std::string& t) { return t == "it" || t == "它"; }

}  // namespace

std::vector<WordSpan> candidate_words(const AnnotatedSentence& sentence, const Arc& arc) {
    if (!has_candidate_kind(arc.relation)) return {};
    const std::string dependent =
        arc.dependent >= 0 && arc.dependent < static_cast<int>(sentence.tokens.size()) ? sentence.tokens[static_cast<std::size_t>(arc.dependent)] : "";
    std::vector<std::string> words;
    if (arc.relation == Relation::Agreement || !person_pronoun(dependent)) words = grammar_nouns(sentence.lang);
    if (arc.relation == Relation::Coreference && !thing_pronoun(dependent)) {
        const std::vector<std::string> names = grammar_names(sentence.lang);
        words.insert(words.end(), names.begin(), names.end());
    }
    std::vector<WordSpan> out;
    const int n = static_cast<int>(sentence.tokens.size());
    const int max_tokens = sentence.lang == "zh" ? 3 : 1;  // an English word is one token
    for (int i = 0; i < n;) {
        // The longest candidate word spelled by tokens i, i + 1, …
        int longest = 0;
        std::string spelled;
        for (int j = i; j < n && j < i + max_tokens; ++j) {
            spelled += sentence.tokens[static_cast<std::size_t>(j)];
            if (std::find(words.begin(), words.end(), spelled) != words.end()) longest = j - i + 1;
        }
        if (longest > 0) {
            out.push_back({i, i + longest});
            i += longest;
        } else {
            ++i;
        }
    }
    return out;
}

}  // namespace hs::corpus
