#include "core/corpus/grammar.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "core/corpus/grammar_parts.h"
#include "core/error.h"

namespace hs::corpus {

namespace {

using namespace grammar_parts;

// -- English ---------------------------------------------------------------------------

// The subject, an attractor (prepositional phrase or relative clause with a noun of
// another kind, mostly of the other number), the copula agreeing with the subject in
// number, and a predicate that fits the subject's kind: agreement arc copula → subject.
void english_agreement(Builder& b) {
    const bool plural = b.chance(50);
    const Noun& subject_noun = b.any(kNouns);
    const Noun& other = b.any_of(kNouns, [&](const Noun& n) { return n.kind != subject_noun.kind; });
    const int subject = english_np(b, subject_noun, plural);
    const bool other_plural = b.chance(75) ? !plural : plural;
    if (b.chance(50)) {
        b.word(b.any(kPrepositions));
        english_np(b, other, other_plural);
    } else {
        b.word("that");
        english_np(b, other, other_plural);
        b.word(b.any(kTransitiveVerbs)[other_plural ? 1 : 0]);
    }
    b.arc(Relation::Agreement, b.word(b.any(kCopulas)[plural ? 1 : 0]), subject);
    b.word(b.any(kPredicates[subject_noun.kind]));
    b.word(".");
}

// The pronoun names one of two people of different genders (or an animal); what follows
// it is what its antecedent does, so a model must resolve it to predict the next word.
void english_coreference(Builder& b) {
    if (b.chance(30)) {  // NAME bought the ANIMAL and it VERB .
        english_name(b, b.chance(50));
        b.word("bought");
        const int animal = b.pick(3);  // the first three nouns are the animals
        const int thing = english_np(b, kNouns[animal], false);
        if (b.chance(50)) {  // a name between: "it" must skip it
            b.word("for");
            english_name(b, b.chance(50));
        }
        english_connective(b);
        b.arc(Relation::Coreference, b.word("it"), thing);
        b.word(kAnimalVerbs[animal]);
        b.word(".");
        return;
    }
    // NAME met NAME [at the N] CONNECTIVE she|he DOES . (two genders: the pronoun names one)
    const auto [first, second] = any_two_people(b, 5);
    const int first_at = english_person(b, first);
    b.word(b.any(kPastVerbs));
    const int second_at = english_person(b, second);
    if (b.chance(50)) {
        b.word("at");
        english_np(b, b.any_of(kNouns, [](const Noun& n) { return n.kind == kThing; }), false);
    }
    english_connective(b);
    const bool about_first = b.chance(50);
    english_pronoun(b, about_first ? first : second, about_first ? first_at : second_at);
    b.word(".");
}

void english_brackets(Builder& b) {
    if (b.chance(50)) {  // NAME said " the N is ADJ " .
        english_name(b, b.chance(50));
        b.word("said");
        const int open = b.word("\"");
        english_np(b, false);
        b.word("is");
        b.word(b.any(kSentiments));
        b.arc(Relation::Bracket, b.word("\""), open);
        b.word(".");
        return;
    }
    // the N ( and the N [( NAME 's )] ) ADJ .
    english_np(b, false);
    const int open = b.word("(");
    b.word("and");
    english_np(b, false);
    if (b.chance(40)) {
        const int inner = b.word("(");
        english_name(b, b.chance(50));
        b.arc(Relation::Bracket, b.word(")"), inner);
    }
    b.arc(Relation::Bracket, b.word(")"), open);
    b.word("are");
    b.word(b.any(kSentiments));
    b.word(".");
}

// Dates: MONTH DAY , YEAR | MONTH YEAR | DAY MONTH YEAR; later parts → the first part.
void english_date(Builder& b) {
    english_name(b, b.chance(50));
    const int form = b.pick(3);
    b.word(form == 1 ? "moved" : "arrived");
    b.word(form == 1 ? "in" : "on");
    english_date_parts(b, form);
    b.word(".");
}

void english_negation(Builder& b) {
    const bool plural = b.chance(50);
    english_np(b, plural);
    b.word(b.any(kCopulas)[plural ? 1 : 0]);
    const int negation = b.chance(75) ? b.word(b.chance(70) ? "not" : "never") : -1;
    if (b.chance(50)) b.word(b.chance(50) ? "very" : "really");
    const int sentiment = b.word(b.any(kSentiments));
    if (negation >= 0) b.arc(Relation::Negation, sentiment, negation);
    if (negation >= 0 && b.chance(60)) {  // only a negated word goes on with "at all"
        b.word("at");
        b.word("all");
    }
    b.word(".");
}

void english_repetition(Builder& b) {
    const bool female = b.chance(50);
    const std::string first_name = female ? b.any(kFemaleNames) : b.any(kMaleNames);
    const int first = b.word(first_name);
    b.word("and");
    english_name(b, !female);
    b.word(b.any(kPastVerbs));
    english_np(b, b.chance(50));
    b.word(".");
    b.word("then");
    b.arc(Relation::Repetition, b.word(first_name), first);
    b.word(b.any(kVerbs)[0]);
    b.word(".");
}

// -- Chinese ---------------------------------------------------------------------------
// Chinese has no number agreement; its predicate must fit the subject's kind across a
// place phrase whose noun is of another kind (the attractor):
// 那些 NOUN | NAME 的 NOUN, 在 OTHER 里|上|旁边, 很 PREDICATE: agreement arc 很 → NOUN.
void chinese_agreement(Builder& b) {
    const ZhNoun& subject_noun = b.any(kZhNouns);
    const ZhNoun& other = b.any_of(kZhNouns, [&](const ZhNoun& n) { return n.kind != subject_noun.kind; });
    if (b.chance(50)) {
        b.chars("那些");  // those (no measure word: only the noun says what it is)
    } else {
        zh_name(b, b.chance(50));
        b.chars("的");
    }
    const Span subject = b.chars(subject_noun.noun);
    b.chars("在");
    b.chars(other.noun);
    b.chars(other.kind == kThing ? b.any(kZhPlaces) : "旁边");  // in or on a thing, beside anything
    b.arc(Relation::Agreement, b.chars("很").begin, subject);
    b.chars(b.any(kZhPredicates[subject_noun.kind]));
    b.chars("。");
}

// As in English, what follows the pronoun is what its antecedent does.
void chinese_coreference(Builder& b) {
    if (b.chance(30)) {  // NAME 买了一只 [ADJ 的] ANIMAL，它 VERB。
        zh_name(b, b.chance(50));
        b.chars("买了");
        const int animal = b.pick(3);  // the first three nouns are the animals
        const Span thing = zh_counted_np(b, kZhNouns[animal], true);
        chinese_connective(b);
        b.arc(Relation::Coreference, b.chars("它").begin, thing);
        b.chars(kZhAnimalVerbs[animal]);
        b.chars("。");
        return;
    }
    // NAME 认识|见了|帮了 NAME CONNECTIVE 她|他 DOES。
    const auto [first, second] = any_two_people(b, 4);
    const Span first_at = chinese_person(b, first);
    b.chars(b.any(kZhMet));
    const Span second_at = chinese_person(b, second);
    chinese_connective(b);
    const bool about_first = b.chance(50);
    chinese_pronoun(b, about_first ? first : second, about_first ? first_at : second_at);
    b.chars("。");
}

void chinese_brackets(Builder& b) {
    const bool female = b.chance(50);
    zh_name(b, female);
    if (b.chance(50)) {  // NAME 说：「这 MEASURE NOUN 很 SENTIMENT」。
        b.chars("说：");
        const Span open = b.chars("「");
        b.chars("这");
        const ZhNoun& n = zh_bought(b);
        b.chars(n.measure);
        b.chars(n.noun);
        b.chars("很");
        b.chars(b.any(kZhSentiments));
        b.arc(Relation::Bracket, b.chars("」").begin, open);
        b.chars("。");
        return;
    }
    b.chars("买了");  // NAME 买了 NP（OTHER [（她的朋友）] 送的）。
    zh_counted_np(b, zh_bought(b));
    const Span open = b.chars("（");
    zh_name(b, !female);
    if (b.chance(40)) {
        const Span inner = b.chars("（");
        b.chars(female ? "她的朋友" : "他的朋友");
        b.arc(Relation::Bracket, b.chars("）").begin, inner);
    }
    b.chars("送的");
    b.arc(Relation::Bracket, b.chars("）").begin, open);
    b.chars("。");
}

// YEAR年MONTH月DAY日 | MONTH月DAY日 | YEAR年MONTH月: later numbers → the first number.
void chinese_date(Builder& b) {
    zh_name(b, b.chance(50));
    b.chars("在");
    chinese_date_parts(b, b.pick(3));
    b.chars(b.chance(50) ? "出生" : "回家");
    b.chars("。");
}

void chinese_negation(Builder& b) {
    b.chars("这");
    const ZhNoun& n = b.any(kZhNouns);
    b.chars(n.measure);
    b.chars(n.noun);
    const int negation = b.chance(75) ? b.chars("不").begin : -1;
    if (negation >= 0 ? b.chance(50) : true) b.chars(negation >= 0 ? "太" : "很");
    const int sentiment = b.chars(b.any(kZhSentiments)).begin;
    if (negation >= 0) b.arc(Relation::Negation, sentiment, negation);
    if (negation < 0 && b.chance(60)) b.chars("啊");  // only a word said without 不 ends in 啊
    b.chars("。");
}

void chinese_repetition(Builder& b) {
    const bool female = b.chance(50);
    const std::string name = female ? b.any(kZhFemaleNames) : b.any(kZhMaleNames);
    const Span first = b.chars(name);
    b.chars("和");
    zh_name(b, !female);
    const int middle = b.pick(3);  // went to the park | to school | bought …
    if (middle == 2) {
        b.chars("买了");
        zh_counted_np(b, zh_bought(b));
    } else {
        b.chars(middle == 0 ? "去了公园" : "去了学校");
    }
    b.chars("。后来");
    b.arc(Relation::Repetition, b.chars(name).begin, first);
    b.chars("回家了。");
}

}  // namespace

AnnotatedSentence generate_sentence(const std::string& lang, std::uint64_t seed, long long index) {
    if (lang != "en" && lang != "zh") throw Error("the grammar writes en or zh, not '" + lang + "'");
    // Sentence `index` has its own stream: any sentence is made without the ones before it.
    std::uint64_t z = seed ^ (static_cast<std::uint64_t>(index) * 0x9E3779B97F4A7C15ULL) ^ (lang == "zh" ? 0x5A48ULL : 0);
    Builder b(lang, z);
    using Pattern = void (*)(Builder&);
    constexpr Pattern kEnglish[] = {english_agreement,          english_coreference,            english_brackets,
                                    english_date,               english_negation,               english_repetition,
                                    english_agreement_reported, english_coreference_distractor, english_repetition_any};
    constexpr Pattern kChinese[] = {chinese_agreement,          chinese_coreference,            chinese_brackets,
                                    chinese_date,               chinese_negation,               chinese_repetition,
                                    chinese_agreement_reported, chinese_coreference_distractor, chinese_repetition_any};
    (lang == "en" ? kEnglish : kChinese)[b.pick(static_cast<int>(std::size(kEnglish)))](b);
    return b.take();
}

std::vector<AnnotatedSentence> grammar_corpus(const std::string& lang, long long count, std::uint64_t seed) {
    if (lang != "en" && lang != "zh" && lang != "both") throw Error("the grammar writes en, zh or both, not '" + lang + "'");
    std::vector<AnnotatedSentence> out;
    for (long long i = 0; i < count; ++i)
        out.push_back(lang == "both" ? generate_sentence(i % 2 ? "zh" : "en", seed, i / 2) : generate_sentence(lang, seed, i));
    return out;
}

std::vector<AnnotatedSentence> probe_corpus() { return grammar_corpus("both", 600, 99); }

std::vector<std::string> grammar_vocabulary() {
    // Every sentence of a long prefix of both streams covers every choice the patterns
    // make: the vocabulary is what they wrote (checked against the lexicon in the tests).
    // Collected in a hash set and sorted once: 600 k inserts into a std::set compared
    // strings ~9 times each, half of the default model's load time.
    std::unordered_set<std::string> tokens;
    for (const char* lang : {"en", "zh"})
        for (long long i = 0; i < 20000; ++i)
            for (std::string& t : generate_sentence(lang, 0, i).tokens) tokens.insert(std::move(t));
    std::vector<std::string> sorted(tokens.begin(), tokens.end());
    std::sort(sorted.begin(), sorted.end());
    return sorted;
}

std::vector<std::string> grammar_names(const std::string& lang) {
    std::vector<std::string> out;
    if (lang == "en") {
        out.insert(out.end(), std::begin(kMaleNames), std::end(kMaleNames));
        out.insert(out.end(), std::begin(kFemaleNames), std::end(kFemaleNames));
    } else if (lang == "zh") {
        out.insert(out.end(), std::begin(kZhMaleNames), std::end(kZhMaleNames));
        out.insert(out.end(), std::begin(kZhFemaleNames), std::end(kZhFemaleNames));
    }
    return out;
}

std::vector<std::string> grammar_nouns(const std::string& lang) {
    std::vector<std::string> out;
    if (lang == "en")
        for (const Noun& n : kNouns) out.insert(out.end(), {n.singular, n.plural});
    else if (lang == "zh")
        for (const ZhNoun& n : kZhNouns) out.emplace_back(n.noun);
    return out;
}

std::vector<std::string> grammar_chinese_words() {
    std::vector<std::string> words;
    auto add = [&words](const auto& list) {
        for (std::string_view w : list)  // two or more characters: more than one lead byte
            if (std::count_if(w.begin(), w.end(), [](char c) { return (c & 0xC0) != 0x80; }) >= 2)
                words.emplace_back(w);
    };
    // The words the sentence patterns write themselves (b.chars("买了"), "她的朋友", …).
    constexpr const char* kPatternWords[] = {"那些", "后来", "所以", "买了", "朋友", "送的",
                                             "出生", "回家", "公园", "学校"};
    add(kPatternWords);
    for (const ZhNoun& n : kZhNouns) add(std::initializer_list<const char*>{n.noun});
    for (const auto& row : kZhPredicates) add(row);
    add(kZhAnimalVerbs);
    add(kZhMaleHabits);
    add(kZhFemaleHabits);
    add(kZhPlaces);
    add(kZhMet);
    add(kZhAdjectives);
    add(kZhSentiments);
    add(kZhMaleNames);
    add(kZhFemaleNames);
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
    return words;
}

}  // namespace hs::corpus
