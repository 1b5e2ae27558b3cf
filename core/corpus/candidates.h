#pragma once
// The words a relation's dependent could point back to by their kind alone, for the
// relation probe's nearest-candidate baseline (core/analysis/relation_probe.h): a head
// that only attends "the most recent name" has learned a word class, not coreference.
//   coreference  names for he / she / 他 / 她, nouns for it / 它 (an animal or thing),
//                names and nouns for another pronoun
//   agreement    nouns (a verb or predicate → its subject noun)
// Other relations have no candidate kind. Words are the grammar's lexicon
// (core/corpus/grammar.h): a word outside it is no candidate.
#include <string>
#include <vector>

#include "core/corpus/annotated.h"

namespace hs::corpus {

// Token span [begin, end) of one candidate word (a Chinese word spans its characters).
struct WordSpan {
    int begin = 0, end = 0;
    bool operator==(const WordSpan&) const = default;
};

// Whether `relation` has a candidate kind (coreference, agreement).
bool has_candidate_kind(Relation relation);
// Whether the lexicon knows the words of language `lang` ("en", "zh"): in another
// language no word is a candidate, so the baseline says nothing there.
bool has_lexicon(const std::string& lang);

// The sentence's candidate words for `arc`'s dependent, in order, not overlapping (the
// longest word at each token wins: 老师 over a one-character noun inside it); empty when
// the arc's relation has no candidate kind.
std::vector<WordSpan> candidate_words(const AnnotatedSentence& sentence, const Arc& arc);

}  // namespace hs::corpus
