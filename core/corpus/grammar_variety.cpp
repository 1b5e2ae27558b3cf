// Training patterns that vary where a relation's partner stands and what lies between
// (issue 39): a subject after "NAME said that" / NAME 说, a noun between a pronoun and its
// antecedent, either of two names repeated. They keep a model from learning the first six
// patterns' templates (the first name always repeats, the subject always starts the
// sentence). The held-out families (held_out_grammar.cpp) are other structures again.
#include "core/corpus/grammar_parts.h"

namespace hs::corpus::grammar_parts {

namespace {

// Two people of different genders, their name indices.
struct Pair {
    bool first_female = false;
    int first = 0, second = 0;
};
Pair any_pair(Builder& b, int names) {
    Pair p;
    p.first_female = b.chance(50);
    p.first = b.pick(names);
    p.second = b.pick(names);
    return p;
}
const char* english_name_of(bool female, int i) { return female ? kFemaleNames[i] : kMaleNames[i]; }
const char* chinese_name_of(bool female, int i) { return female ? kZhFemaleNames[i] : kZhMaleNames[i]; }

}  // namespace

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
    const Pair p = any_pair(b, 5);
    const int first = b.word(english_name_of(p.first_female, p.first));
    b.word(b.any(kPastVerbs));
    const int second = b.word(english_name_of(!p.first_female, p.second));
    b.word(b.any(kPrepositions));
    english_np(b, b.any_of(kNouns, [](const Noun& n) { return n.kind == kThing; }), b.chance(50));
    b.word(".");
    const bool about_first = b.chance(50);
    const bool female = about_first ? p.first_female : !p.first_female;
    b.arc(Relation::Coreference, b.word(female ? "she" : "he"), about_first ? first : second);
    const int name = about_first ? p.first : p.second;
    b.word(female ? kFemaleHabits[name] : kMaleHabits[name]);
    b.word(".");
}

void english_repetition_any(Builder& b) {
    // NAME PAST NAME at the THING . then NAME VERB .: either name repeats.
    const Pair p = any_pair(b, 5);
    const int first = b.word(english_name_of(p.first_female, p.first));
    b.word(b.any(kPastVerbs));
    const int second = b.word(english_name_of(!p.first_female, p.second));
    b.word("at");
    english_np(b, b.any_of(kNouns, [](const Noun& n) { return n.kind == kThing; }), false);
    b.word(".");
    b.word("then");
    const bool repeat_first = b.chance(50);
    b.arc(Relation::Repetition,
          b.word(repeat_first ? english_name_of(p.first_female, p.first) : english_name_of(!p.first_female, p.second)),
          repeat_first ? first : second);
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
    const Pair p = any_pair(b, 4);
    const Span first = b.chars(chinese_name_of(p.first_female, p.first));
    b.chars("在");
    b.chars(b.any_of(kZhNouns, [](const ZhNoun& n) { return n.kind == kThing; }).noun);
    b.chars("旁边");
    b.chars(b.any(kZhMet));
    const Span second = b.chars(chinese_name_of(!p.first_female, p.second));
    b.chars("，所以");
    const bool about_first = b.chance(50);
    const bool female = about_first ? p.first_female : !p.first_female;
    b.arc(Relation::Coreference, b.chars(female ? "她" : "他").begin, about_first ? first : second);
    const int name = about_first ? p.first : p.second;
    b.chars(female ? kZhFemaleHabits[name] : kZhMaleHabits[name]);
    b.chars("。");
}

void chinese_repetition_any(Builder& b) {
    // NAME 在学校|公园 见了 NAME。后来 NAME 回家了。: either name repeats.
    const Pair p = any_pair(b, 4);
    const Span first = b.chars(chinese_name_of(p.first_female, p.first));
    b.chars(b.chance(50) ? "在学校" : "在公园");
    b.chars(b.any(kZhMet));
    const Span second = b.chars(chinese_name_of(!p.first_female, p.second));
    b.chars("。后来");
    const bool repeat_first = b.chance(50);
    b.arc(Relation::Repetition,
          b.chars(repeat_first ? chinese_name_of(p.first_female, p.first) : chinese_name_of(!p.first_female, p.second)).begin,
          repeat_first ? first : second);
    b.chars("回家了。");
}

}  // namespace hs::corpus::grammar_parts
