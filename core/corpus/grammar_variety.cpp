// Training patterns that vary where a relation's partner stands and what lies between
// (issue 39): a subject after "NAME said that" / NAME 说, a noun between a pronoun and its
// antecedent, either of two names repeated. They keep a model from learning the first six
// patterns' templates (the first name always repeats, the subject always starts the
// sentence). The held-out families (held_out_grammar.cpp) are other structures again.
#include "core/corpus/grammar_parts.h"

namespace hs::corpus::grammar_parts {


void english_agreement_reported(Builder& b) {
    english_name(b, b.chance(50));
    b.word("said");
    b.word("that");
    const bool plural = b.chance(50);
    const Noun& subject_noun = b.any(kNouns);
    const int subject = english_np(b, subject_noun, plural);
    if (b.chance(70)) {
        b.word(b.any(kPrepositions));
        english_np(b, b.any_of(kNouns, [&](const Noun& n) { return n.kind != subject_noun.kind; }),
                   b.chance(75) ? !plural : plural);
    }
    b.arc(Relation::Agreement, b.word(b.any(kCopulas)[plural ? 1 : 0]), subject);
    b.word(b.any(kPredicates[subject_noun.kind]));
    b.word(".");
}

void english_coreference_distractor(Builder& b) {
    if (b.chance(35)) {  // NAME bought the ANIMAL PREP the THING because it VERB .
        english_name(b, b.chance(50));
        b.word("bought");
        const int animal = b.pick(3);  // the first three nouns are the animals
        const int it = english_np(b, kNouns[animal], false);
        b.word(b.any(kPrepositions));
        english_np(b, b.any_of(kNouns, [](const Noun& n) { return n.kind == kThing; }), b.chance(50));
        b.word("because");
        b.arc(Relation::Coreference, b.word("it"), it);
        b.word(kAnimalVerbs[animal]);
        b.word(".");
        return;
    }
    // NAME PAST NAME PREP the THING . she|he HABIT .
    const auto [first, second] = any_two_people(b, 5);
    const int first_at = english_person(b, first);
    b.word(b.any(kPastVerbs));
    const int second_at = english_person(b, second);
    b.word(b.any(kPrepositions));
    english_np(b, b.any_of(kNouns, [](const Noun& n) { return n.kind == kThing; }), b.chance(50));
    b.word(".");
    const bool about_first = b.chance(50);
    english_pronoun(b, about_first ? first : second, about_first ? first_at : second_at);
    b.word(".");
}

void english_repetition_any(Builder& b) {
    // NAME PAST NAME at the THING . then NAME VERB .: either name repeats.
    const auto [first, second] = any_two_people(b, 5);
    const int first_at = english_person(b, first);
    b.word(b.any(kPastVerbs));
    const int second_at = english_person(b, second);
    b.word("at");
    english_np(b, b.any_of(kNouns, [](const Noun& n) { return n.kind == kThing; }), false);
    b.word(".");
    b.word("then");
    const bool repeat_first = b.chance(50);
    b.arc(Relation::Repetition, english_person(b, repeat_first ? first : second), repeat_first ? first_at : second_at);
    b.word(b.any(kVerbs)[0]);
    b.word(".");
}

void chinese_agreement_reported(Builder& b) {
    // NAME 说 那些 [ADJ 的] NOUN | NAME 的 [ADJ 的] NOUN, 在 OTHER 里|上|旁边, 很 PREDICATE。
    const ZhNoun& subject_noun = b.any(kZhNouns);
    const ZhNoun& other = b.any_of(kZhNouns, [&](const ZhNoun& n) { return n.kind != subject_noun.kind; });
    const bool female = b.chance(50);
    zh_name(b, female);
    if (b.chance(50)) {
        b.chars("说");
        b.chars("那些");
    } else {
        b.chars("的");
    }
    if (b.chance(50)) {
        b.chars(b.any(kZhAdjectives));
        b.chars("的");
    }
    const Span subject = b.chars(subject_noun.noun);
    b.chars("在");
    b.chars(other.noun);
    b.chars(other.kind == kThing ? b.any(kZhPlaces) : "旁边");
    b.arc(Relation::Agreement, b.chars("很").begin, subject);
    b.chars(b.any(kZhPredicates[subject_noun.kind]));
    b.chars("。");
}

void chinese_coreference_distractor(Builder& b) {
    if (b.chance(35)) {  // NAME 买了一只 ANIMAL 和 NUM MEASURE THING，它 VERB。
        zh_name(b, b.chance(50));
        b.chars("买了");
        const int animal = b.pick(3);  // the first three nouns are the animals
        const Span it = zh_counted_np(b, kZhNouns[animal], true);
        b.chars("和");
        zh_counted_np(b, b.any_of(kZhNouns, [](const ZhNoun& n) { return n.kind == kThing; }));
        b.chars("，");
        b.arc(Relation::Coreference, b.chars("它").begin, it);
        b.chars(kZhAnimalVerbs[animal]);
        b.chars("。");
        return;
    }
    // NAME 在 THING 旁边 见了 NAME，所以 她|他 DOES。
    const auto [first, second] = any_two_people(b, 4);
    const Span first_at = chinese_person(b, first);
    b.chars("在");
    b.chars(b.any_of(kZhNouns, [](const ZhNoun& n) { return n.kind == kThing; }).noun);
    b.chars("旁边");
    b.chars(b.any(kZhMet));
    const Span second_at = chinese_person(b, second);
    b.chars("，所以");
    const bool about_first = b.chance(50);
    chinese_pronoun(b, about_first ? first : second, about_first ? first_at : second_at);
    b.chars("。");
}

void chinese_repetition_any(Builder& b) {
    // NAME 在学校|公园 见了 NAME。后来 NAME 回家了。: either name repeats.
    const auto [first, second] = any_two_people(b, 4);
    const Span first_at = chinese_person(b, first);
    b.chars(b.chance(50) ? "在学校" : "在公园");
    b.chars(b.any(kZhMet));
    const Span second_at = chinese_person(b, second);
    b.chars("。后来");
    const bool repeat_first = b.chance(50);
    b.arc(Relation::Repetition, chinese_person(b, repeat_first ? first : second).begin, repeat_first ? first_at : second_at);
    b.chars("回家了。");
}

}  // namespace hs::corpus::grammar_parts
