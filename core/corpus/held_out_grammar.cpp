// Structure families the training patterns (grammar.cpp) never write, in the same words:
// what the relation probe measures a head on to tell a learned relation from a learned
// template (issue 39). Each family changes what a template could lean on: where the
// partner stands, how far back it is, what lies between (a name or noun of the wrong
// kind, a second date, a sentence break), or which word repeats.
#include <iterator>
#include <string>

#include "core/corpus/grammar.h"
#include "core/corpus/grammar_parts.h"
#include "core/error.h"

namespace hs::corpus {

namespace {

using namespace grammar_parts;

// SUBJECT-NP ATTRACTOR… COPULA PREDICATE: agreement arc copula → subject (helper of the
// agreement families; `attractors` prepositional phrases, their nouns of another kind and
// the other number).
void english_agreeing_clause(Builder& b, int attractors) {
    const bool plural = b.chance(50);
    const Noun& subject_noun = b.any(kNouns);
    const int subject = english_np(b, subject_noun, plural);
    for (int i = 0; i < attractors; ++i) {
        b.word(b.any(kPrepositions));
        english_np(b, b.any_of(kNouns, [&](const Noun& n) { return n.kind != subject_noun.kind; }), !plural);
    }
    b.arc(Relation::Agreement, b.word(b.any(kCopulas)[plural ? 1 : 0]), subject);
    b.word(b.any(kPredicates[subject_noun.kind]));
}

// -- English families ---------------------------------------------------------------------

// NAME PAST NAME and THE-N PREP THE-N COP PRED .: the subject is not the sentence's start.
void en_agreement_after_clause(Builder& b) {
    const bool female = b.chance(50);
    english_name(b, female);
    b.word(b.any(kPastVerbs));
    english_name(b, !female);
    b.word("and");
    english_agreeing_clause(b, 1);
    b.word(".");
}

// THE-N PREP THE-N PREP THE-N COP PRED .: two attractors, the nearest noun two phrases off.
void en_agreement_two_attractors(Builder& b) {
    english_agreeing_clause(b, 2);
    b.word(".");
}

// NAME and NAME saw|bought THE-THING . then: two people of different genders, a thing after
// them (a person noun would be a second antecedent for he / she) and a sentence break; where
// their names stand.
struct TwoPeople {
    Person first, second;
    int first_at = 0, second_at = 0;
};
TwoPeople english_two_people_then(Builder& b) {
    const auto [first, second] = any_two_people(b, 5);
    TwoPeople p{first, second};
    p.first_at = english_person(b, p.first);
    b.word("and");
    p.second_at = english_person(b, p.second);
    b.word(b.chance(50) ? "saw" : "bought");
    english_np(b, b.any_of(kNouns, [](const Noun& n) { return n.kind == kThing; }), b.chance(50));
    b.word(".");
    b.word("then");
    return p;
}

// NAME and NAME saw|bought THE-THING . then he|she HABIT .: two names joined, a noun nearer, a break.
void en_coreference_after_break(Builder& b) {
    const TwoPeople p = english_two_people_then(b);
    const bool about_first = b.chance(50);
    english_pronoun(b, about_first ? p.first : p.second, about_first ? p.first_at : p.second_at);
    b.word(".");
}

// NAME bought THE-THING and NAME saw THE-THING because he|she HABIT .: each name followed by
// a thing.
void en_coreference_two_clauses(Builder& b) {
    const auto [first, second] = any_two_people(b, 5);
    const int first_at = english_person(b, first);
    b.word("bought");
    english_np(b, b.any_of(kNouns, [](const Noun& n) { return n.kind == kThing; }), b.chance(50));
    b.word("and");
    const int second_at = english_person(b, second);
    b.word("saw");
    english_np(b, b.any_of(kNouns, [](const Noun& n) { return n.kind == kThing; }), b.chance(50));
    b.word("because");
    const bool about_first = b.chance(50);
    english_pronoun(b, about_first ? first : second, about_first ? first_at : second_at);
    b.word(".");
}

// NAME bought THE-ANIMAL and NAME saw THE-THING . then it VERB .: a name and a thing between.
void en_coreference_it_far(Builder& b) {
    const bool female = b.chance(50);
    english_name(b, female);
    b.word("bought");
    const int animal = b.pick(3);  // the first three nouns are the animals
    const int it = english_np(b, kNouns[animal], false);
    b.word("and");
    english_name(b, !female);
    b.word("saw");
    english_np(b, b.any_of(kNouns, [](const Noun& n) { return n.kind == kThing; }), b.chance(50));
    b.word(".");
    b.word("then");
    b.arc(Relation::Coreference, b.word("it"), it);
    b.word(kAnimalVerbs[animal]);
    b.word(".");
}

// NAME saw the very|really SIZE [COLOUR] N and THE-N .: an intensifier inside the phrase,
// two phrases as objects.
void en_modifier_intensified(Builder& b) {
    english_name(b, b.chance(50));
    b.word("saw");
    const int det = b.word("the");
    b.word(b.chance(50) ? "very" : "really");
    b.word(b.any(kSizes));
    if (b.chance(50)) b.word(b.any(kColours));
    const Noun& n = b.any(kNouns);
    b.arc(Relation::Modifier, b.word(b.chance(50) ? n.plural : n.singular), det);
    b.word("and");
    english_np(b, b.chance(50));
    b.word(".");
}

// NAME said " THE-N PREP THE-N COP PRED " .: a longer quote, with agreement inside.
void en_bracket_long_quote(Builder& b) {
    english_name(b, b.chance(50));
    b.word("said");
    const int open = b.word("\"");
    english_agreeing_clause(b, 1);
    b.arc(Relation::Bracket, b.word("\""), open);
    b.word(".");
}

// THE-N ( NAME said " THE-N is SENT " ) is SENT .: a quote inside brackets.
void en_bracket_quote_inside(Builder& b) {
    english_np(b, false);
    const int open = b.word("(");
    english_name(b, b.chance(50));
    b.word("said");
    const int quote = b.word("\"");
    english_np(b, false);
    b.word("is");
    b.word(b.any(kSentiments));
    b.arc(Relation::Bracket, b.word("\""), quote);
    b.arc(Relation::Bracket, b.word(")"), open);
    b.word("is");
    b.word(b.any(kSentiments));
    b.word(".");
}

// NAME arrived on DATE and moved in|on DATE .: a second date, whose parts must not point back
// into the first.
void en_date_two(Builder& b) {
    english_name(b, b.chance(50));
    b.word("arrived");
    b.word("on");
    english_date_parts(b, b.chance(50) ? 0 : 2);
    b.word("and");
    b.word("moved");
    const int second_form = b.chance(50) ? 1 : 2;  // in MONTH YEAR | on DAY MONTH YEAR
    b.word(second_form == 1 ? "in" : "on");
    english_date_parts(b, second_form);
    b.word(".");
}

// on|in DATE NAME arrived|moved .: the date first.
void en_date_first(Builder& b) {
    const int form = b.pick(3);
    b.word(form == 1 ? "in" : "on");
    english_date_parts(b, form);
    english_name(b, b.chance(50));
    b.word(form == 1 ? "moved" : "arrived");
    b.word(".");
}

// THE-N PREP THE-N COP not|never [very|really] SENT . | NAME said " THE-N COP not … SENT " .
void en_negation_far(Builder& b) {
    const bool quoted = b.chance(50);
    int open = -1;
    if (quoted) {
        english_name(b, b.chance(50));
        b.word("said");
        open = b.word("\"");
    }
    const bool plural = b.chance(50);
    english_np(b, plural);
    if (!quoted) {
        b.word(b.any(kPrepositions));
        english_np(b, b.chance(50));
    }
    b.word(b.any(kCopulas)[plural ? 1 : 0]);
    const int negation = b.word(b.chance(70) ? "not" : "never");
    if (b.chance(70)) b.word(b.chance(50) ? "very" : "really");
    b.arc(Relation::Negation, b.word(b.any(kSentiments)), negation);
    if (quoted) b.arc(Relation::Bracket, b.word("\""), open);
    b.word(".");
}

// NAME and NAME saw|bought THE-THING . then NAME VERB .: the second name repeats (the training
// pattern of this shape always repeats the first).
void en_repetition_second(Builder& b) {
    const TwoPeople p = english_two_people_then(b);
    b.arc(Relation::Repetition, english_person(b, p.second), p.second_at);
    b.word(b.any(kVerbs)[0]);
    b.word(".");
}

// THE-N saw NAME and NAME . then NAME VERB .: the names after a noun phrase (an animal or
// a person).
void en_repetition_after_noun(Builder& b) {
    english_np(b, b.any_of(kNouns, [](const Noun& n) { return n.kind != kThing; }), false);
    b.word("saw");
    const auto [first, second] = any_two_people(b, 5);
    const int first_at = english_person(b, first);
    b.word("and");
    const int second_at = english_person(b, second);
    b.word(".");
    b.word("then");
    const bool repeat_second = b.chance(50);
    b.arc(Relation::Repetition, english_person(b, repeat_second ? second : first), repeat_second ? second_at : first_at);
    b.word(b.any(kVerbs)[0]);
    b.word(".");
}

// -- Chinese families ---------------------------------------------------------------------

// 这|那 MEASURE NOUN: a demonstrative's noun phrase, modifier arc noun → its measure word.
Span zh_demonstrative_np(Builder& b, const ZhNoun& n) {
    b.chars(b.chance(50) ? "这" : "那");
    const Span measure = b.chars(n.measure);
    const Span noun = b.chars(n.noun);
    b.arc(Relation::Modifier, noun.begin, measure);
    return noun;
}
// SUBJECT 在 OTHER PLACE 很 PRED: agreement arc 很 → the subject noun, whose phrase
// `subject_np` writes (a counted or demonstrative phrase).
template <class SubjectNp>
void chinese_agreeing_clause(Builder& b, SubjectNp subject_np) {
    const ZhNoun& subject_noun = b.any(kZhNouns);
    const ZhNoun& other = b.any_of(kZhNouns, [&](const ZhNoun& n) { return n.kind != subject_noun.kind; });
    const Span subject = subject_np(subject_noun);
    b.chars("在");
    b.chars(other.noun);
    b.chars(other.kind == kThing ? b.any(kZhPlaces) : "旁边");
    b.arc(Relation::Agreement, b.chars("很").begin, subject);
    b.chars(b.any(kZhPredicates[subject_noun.kind]));
}

// 这|那 MEASURE NOUN 在 … 很 PRED。 | NUM MEASURE [ADJ 的] NOUN 在 … 很 PRED。: subjects
// with a measure word (the grammar's own subjects are 那些 N and NAME 的 N).
void zh_agreement_measured(Builder& b) {
    if (b.chance(50)) chinese_agreeing_clause(b, [&](const ZhNoun& n) { return zh_demonstrative_np(b, n); });
    else chinese_agreeing_clause(b, [&](const ZhNoun& n) { return zh_counted_np(b, n); });
    b.chars("。");
}

// NAME 认识 NAME，那些 NOUN 在 … 很 PRED。: the subject in a second clause.
void zh_agreement_second_clause(Builder& b) {
    const bool female = b.chance(50);
    zh_name(b, female);
    b.chars(b.any(kZhMet));
    zh_name(b, !female);
    b.chars("，");
    chinese_agreeing_clause(b, [&](const ZhNoun& n) {
        b.chars("那些");
        return b.chars(n.noun);
    });
    b.chars("。");
}

// NAME 和 NAME 去了公园|学校。后来 他|她 HABIT。: two names joined, a sentence break.
void zh_coreference_after_break(Builder& b) {
    const auto [first, second] = any_two_people(b, 4);
    const Span first_at = chinese_person(b, first);
    b.chars("和");
    const Span second_at = chinese_person(b, second);
    b.chars(b.chance(50) ? "去了公园" : "去了学校");
    b.chars("。后来");
    const bool about_first = b.chance(50);
    chinese_pronoun(b, about_first ? first : second, about_first ? first_at : second_at);
    b.chars("。");
}

// NAME 买了一只 ANIMAL，NAME 买了 NUM MEASURE THING，所以它 VERB。: a name and a thing between.
void zh_coreference_it_far(Builder& b) {
    const bool female = b.chance(50);
    zh_name(b, female);
    b.chars("买了");
    const int animal = b.pick(3);  // the first three nouns are the animals
    const Span it = zh_counted_np(b, kZhNouns[animal], true);
    b.chars("，");
    zh_name(b, !female);  // another person (one name twice would be a repetition without its arc)
    b.chars("买了");
    zh_counted_np(b, b.any_of(kZhNouns, [](const ZhNoun& n) { return n.kind == kThing; }));
    b.chars("，所以");
    b.arc(Relation::Coreference, b.chars("它").begin, it);
    b.chars(kZhAnimalVerbs[animal]);
    b.chars("。");
}

// NAME 买了 NP，后来 NAME 见了 NP，所以 他|她 HABIT。: each name followed by a noun, the
// pronoun's antecedent the subject of either clause (the two differ in gender).
void zh_coreference_two_clauses(Builder& b) {
    const auto [first, second] = any_two_people(b, 4);
    const Span first_at = chinese_person(b, first);
    b.chars("买了");
    zh_counted_np(b, zh_bought(b));
    b.chars("，后来");
    const Span second_at = chinese_person(b, second);
    b.chars("见了");
    zh_counted_np(b, zh_bought(b));
    b.chars("，所以");
    const bool about_first = b.chance(50);
    chinese_pronoun(b, about_first ? first : second, about_first ? first_at : second_at);
    b.chars("。");
}

// NAME 说：「SUBJECT 在 … 很 PRED」。: a longer quote, with agreement inside.
void zh_bracket_long_quote(Builder& b) {
    zh_name(b, b.chance(50));
    b.chars("说：");
    const Span open = b.chars("「");
    chinese_agreeing_clause(b, [&](const ZhNoun& n) { return zh_demonstrative_np(b, n); });
    b.arc(Relation::Bracket, b.chars("」").begin, open);
    b.chars("。");
}

// NAME 买了 NP（NAME 说：「很 SENT」）。: a quote inside brackets.
void zh_bracket_quote_inside(Builder& b) {
    const bool female = b.chance(50);
    zh_name(b, female);
    b.chars("买了");
    zh_counted_np(b, zh_bought(b));
    const Span open = b.chars("（");
    zh_name(b, !female);
    b.chars("说：");
    const Span quote = b.chars("「");
    b.chars("很");
    b.chars(b.any(kZhSentiments));
    b.arc(Relation::Bracket, b.chars("」").begin, quote);
    b.arc(Relation::Bracket, b.chars("）").begin, open);
    b.chars("。");
}

// NAME 在 DATE 和 DATE 回家。: a second date, whose numbers must not point into the first.
void zh_date_two(Builder& b) {
    zh_name(b, b.chance(50));
    b.chars("在");
    chinese_date_parts(b, b.pick(3));
    b.chars("和");
    chinese_date_parts(b, b.pick(3));
    b.chars("回家");  // one is born once
    b.chars("。");
}

// DATE，NAME 回家|出生。: the date first.
void zh_date_first(Builder& b) {
    chinese_date_parts(b, b.pick(3));
    b.chars("，");
    zh_name(b, b.chance(50));
    b.chars(b.chance(50) ? "回家" : "出生");
    b.chars("。");
}

// NAME 说：「这|那 MEASURE NOUN 不[太] SENT」。 | NUM MEASURE NOUN 不[太] SENT。
void zh_negation_other_subjects(Builder& b) {
    const bool quoted = b.chance(50);
    Span open{};
    if (quoted) {
        zh_name(b, b.chance(50));
        b.chars("说：");
        open = b.chars("「");
        zh_demonstrative_np(b, b.any(kZhNouns));
    } else {
        zh_counted_np(b, b.any(kZhNouns));
    }
    const int negation = b.chars("不").begin;
    if (b.chance(50)) b.chars("太");
    b.arc(Relation::Negation, b.chars(b.any(kZhSentiments)).begin, negation);
    if (quoted) b.arc(Relation::Bracket, b.chars("」").begin, open);
    b.chars("。");
}

// NAME 和 NAME 去了公园|买了 NP。后来 NAME₂ 回家了。 (the training pattern of this shape always
// repeats the first name) | NAME 认识 NAME，后来 NAME 回家了。 (either name repeats).
void zh_repetition_either(Builder& b) {
    const auto [first, second] = any_two_people(b, 4);
    const Span first_at = chinese_person(b, first);
    const bool joined = b.chance(50);
    b.chars(joined ? "和" : b.any(kZhMet));
    const Span second_at = chinese_person(b, second);
    if (joined) {  // what they did, of varying length: 去了公园 | 去了学校 | 买了 NUM MEASURE [ADJ 的] NOUN
        if (b.chance(50)) {
            b.chars(b.chance(50) ? "去了公园" : "去了学校");
        } else {
            b.chars("买了");
            zh_counted_np(b, zh_bought(b));
        }
        b.chars("。后来");
    } else {
        b.chars("，后来");
    }
    const bool repeat_second = joined || b.chance(50);
    b.arc(Relation::Repetition, chinese_person(b, repeat_second ? second : first).begin,
          repeat_second ? second_at : first_at);
    b.chars("回家了。");
}

}  // namespace

AnnotatedSentence generate_held_out_sentence(const std::string& lang, std::uint64_t seed, long long index) {
    if (lang != "en" && lang != "zh") throw Error("the grammar writes en or zh, not '" + lang + "'");
    // A stream of its own, apart from generate_sentence's for the same (seed, index).
    std::uint64_t z = seed ^ (static_cast<std::uint64_t>(index) * 0xD1B54A32D192ED03ULL) ^ (lang == "zh" ? 0x48CAULL : 0x48EAULL);
    Builder b(lang, z);
    using Family = void (*)(Builder&);
    constexpr Family kEnglish[] = {en_agreement_after_clause, en_agreement_two_attractors, en_coreference_after_break,
                                   en_coreference_two_clauses, en_coreference_it_far,      en_modifier_intensified,
                                   en_bracket_long_quote,      en_bracket_quote_inside,    en_date_two,
                                   en_date_first,              en_negation_far,            en_repetition_second,
                                   en_repetition_after_noun};
    constexpr Family kChinese[] = {zh_agreement_measured,   zh_agreement_second_clause, zh_coreference_after_break,
                                   zh_coreference_it_far,   zh_coreference_two_clauses, zh_bracket_long_quote,
                                   zh_bracket_quote_inside, zh_date_two,                zh_date_first,
                                   zh_negation_other_subjects, zh_repetition_either};
    if (lang == "en") kEnglish[b.pick(static_cast<int>(std::size(kEnglish)))](b);
    else kChinese[b.pick(static_cast<int>(std::size(kChinese)))](b);
    return b.take();
}

std::vector<AnnotatedSentence> held_out_corpus(const std::string& lang, long long count, std::uint64_t seed) {
    if (lang != "en" && lang != "zh" && lang != "both") throw Error("the grammar writes en, zh or both, not '" + lang + "'");
    std::vector<AnnotatedSentence> out;
    for (long long i = 0; i < count; ++i)
        out.push_back(lang == "both" ? generate_held_out_sentence(i % 2 ? "zh" : "en", seed, i / 2)
                                     : generate_held_out_sentence(lang, seed, i));
    return out;
}

std::vector<AnnotatedSentence> held_out_probe_corpus() { return held_out_corpus("both", 600, 99); }

}  // namespace hs::corpus
