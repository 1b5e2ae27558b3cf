#pragma once
// Sentences with gold relations between their tokens (issue 14): what a head should attend
// to, for the relation probes (core/analysis/relation_probe.h). A relation points back
// from a later token (the dependent) to an earlier span (its partner), the direction a
// causal model can attend in:
//   agreement    a verb to its subject noun: English number agreement across a
//                prepositional phrase or relative clause (the key under the cats is:
//                is → key); Chinese has none, so the predicate adverb to the subject whose
//                kind the predicate must fit, across a place phrase (那把椅子在学生旁边很重:
//                很 → 椅子)
//   coreference  a pronoun to its antecedent (he / she / it → a name or thing; 他 / 她 / 它)
//   modifier     a noun to its determiner or measure word (the big red box: box → the;
//                一本很旧的书: 书 → 本, across the 的-phrase)
//   bracket      a closing bracket or quote to its opening one
//   date         a later part of a date to its first part (May 3, 1998: 3 → May, 1998 →
//                May; 1998年5月3日: 5 → 1998, 3 → 1998)
//   negation     a sentiment word to its negation (not very good: good → not; 不好: 好 → 不)
//   repetition   a repeated name to its earlier occurrence
#include <optional>
#include <string>
#include <vector>

namespace hs::corpus {

enum class Relation { Agreement, Coreference, Modifier, Bracket, Date, Negation, Repetition };
constexpr int kRelationCount = 7;

const char* relation_name(Relation r);  // "agreement", "coreference", …
// The name, or nullopt for one that is not a relation.
std::optional<Relation> parse_relation(const std::string& name);
std::vector<Relation> all_relations();

// Token `dependent` looks back at tokens [partner_begin, partner_end) (partner_end ≤ dependent).
struct Arc {
    Relation relation = Relation::Agreement;
    int dependent = 0;
    int partner_begin = 0, partner_end = 0;
    bool operator==(const Arc&) const = default;
};

struct AnnotatedSentence {
    std::string lang;                 // "en" or "zh"
    std::vector<std::string> tokens;  // as the playground tokenizer splits text_of()
    std::vector<Arc> arcs;
};

// The sentence as text: English tokens joined by spaces; Chinese characters written
// together (a space only between two non-CJK tokens), as a reader would type it.
std::string text_of(const AnnotatedSentence& sentence);

}  // namespace hs::corpus
