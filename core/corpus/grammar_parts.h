#pragma once
// The grammar's lexicon, its sentence builder and the phrases every pattern writes, shared
// by the patterns the default model trains on (grammar.cpp) and the structure families it
// never sees (held_out_grammar.cpp). Internal to core/corpus: nothing outside includes it.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/corpus/annotated.h"
#include "core/rng.h"

namespace hs::corpus::grammar_parts {

// -- lexicon -------------------------------------------------------------------------


// Nouns come in three kinds; a predicate fits one kind ("hungry" an animal, "busy" a
// person, "heavy" a thing), so the word after the verb depends on which noun is the subject.
enum Kind { kAnimal, kPerson, kThing };
struct Noun {
    const char* singular;
    const char* plural;
    Kind kind;
};
inline constexpr Noun kNouns[] = {{"dog", "dogs", kAnimal},        {"cat", "cats", kAnimal},         {"bird", "birds", kAnimal},
                           {"teacher", "teachers", kPerson}, {"student", "students", kPerson}, {"friend", "friends", kPerson},
                           {"key", "keys", kThing},          {"book", "books", kThing},        {"car", "cars", kThing},
                           {"box", "boxes", kThing},         {"letter", "letters", kThing},    {"window", "windows", kThing}};
inline constexpr const char* kPredicates[3][3] = {{"hungry", "asleep", "wet"}, {"happy", "busy", "tired"}, {"heavy", "cheap", "broken"}};
// What each animal does (after "it"), indexed like the animals of kNouns.
inline constexpr const char* kAnimalVerbs[] = {"barks", "purrs", "sings"};
// What each person habitually does (after "he" / "she"), indexed like their names: the
// word after a pronoun names its antecedent.
inline constexpr const char* kMaleHabits[] = {"cooks", "drives", "swims", "reads", "paints"};
inline constexpr const char* kFemaleHabits[] = {"sings", "dances", "writes", "runs", "teaches"};
// Adjectives come in English order: a size or age one, then a colour.
inline constexpr const char* kSizes[] = {"big", "small", "old", "new", "long"};
inline constexpr const char* kColours[] = {"red", "green", "blue", "brown"};
inline constexpr const char* kSentiments[] = {"good", "bad", "nice", "great", "boring", "funny"};
inline constexpr const char* kPrepositions[] = {"near", "behind", "under", "with", "beside"};
inline constexpr const char* kMaleNames[] = {"John", "Tom", "Peter", "David", "James"};
inline constexpr const char* kFemaleNames[] = {"Mary", "Alice", "Anna", "Emma", "Lucy"};
inline constexpr const char* kMonths[] = {"January", "February", "March",     "April",   "May",      "June",
                                   "July",    "August",   "September", "October", "November", "December"};
// (singular, plural) verb forms that must agree with their subject.
inline constexpr std::array<const char*, 2> kVerbs[] = {{"sleeps", "sleep"}, {"runs", "run"}, {"waits", "wait"}};
inline constexpr std::array<const char*, 2> kTransitiveVerbs[] = {{"likes", "like"}, {"sees", "see"}, {"follows", "follow"}};
inline constexpr std::array<const char*, 2> kCopulas[] = {{"is", "are"}, {"was", "were"}};
inline constexpr const char* kPastVerbs[] = {"met", "called", "helped", "visited", "saw"};

struct ZhNoun {
    const char* noun;
    const char* measure;  // its measure word (量词)
    Kind kind;
};
inline constexpr ZhNoun kZhNouns[] = {{"猫", "只", kAnimal},   {"狗", "只", kAnimal},   {"鸟", "只", kAnimal},  {"老师", "位", kPerson},
                               {"学生", "个", kPerson}, {"孩子", "个", kPerson}, {"书", "本", kThing},   {"车", "辆", kThing},
                               {"桌子", "张", kThing},  {"椅子", "把", kThing},  {"信", "封", kThing},   {"笔", "支", kThing}};
inline constexpr const char* kZhPredicates[3][3] = {{"饿", "安静", "困"}, {"忙", "累", "高兴"}, {"旧", "贵", "重"}};
inline constexpr const char* kZhAnimalVerbs[] = {"睡了", "叫了", "飞了"};  // 猫, 狗, 鸟 (as kZhNouns)
// What each person habitually does (after 他 / 她), indexed like their names.
inline constexpr const char* kZhMaleHabits[] = {"踢球", "开车", "游泳", "看书"};
inline constexpr const char* kZhFemaleHabits[] = {"唱歌", "跳舞", "画画", "写字"};
inline constexpr const char* kZhPlaces[] = {"里", "上", "旁边"};  // in, on, beside
inline constexpr const char* kZhMet[] = {"认识", "见了", "帮了"};  // met, saw, helped
inline constexpr const char* kZhAdjectives[] = {"红色", "新", "旧", "大", "小", "漂亮", "可爱", "便宜"};
inline constexpr const char* kZhSentiments[] = {"好", "好看", "有趣"};
inline constexpr const char* kZhMaleNames[] = {"小明", "张伟", "李雷", "王强"};
inline constexpr const char* kZhFemaleNames[] = {"小红", "韩梅", "李娜", "王芳"};
inline constexpr const char* kZhNumbers[] = {"一", "两", "三", "几"};


// -- building a sentence ---------------------------------------------------------------


struct Span {
    int begin = 0, end = 0;
};

class Builder {
public:
    Builder(std::string lang, std::uint64_t seed) : rng_(seed) { s_.lang = std::move(lang); }

    int pick(int n) { return static_cast<int>(rng_.next_u64() % static_cast<std::uint64_t>(n)); }
    bool chance(int percent) { return pick(100) < percent; }
    template <class T, std::size_t N>
    const T& any(const T (&items)[N]) { return items[pick(static_cast<int>(N))]; }
    // One of the items `keep` accepts (at least one must).
    template <class T, std::size_t N, class Keep>
    const T& any_of(const T (&items)[N], Keep keep) {
        std::vector<const T*> kept;
        for (const T& item : items)
            if (keep(item)) kept.push_back(&item);
        return *kept[static_cast<std::size_t>(pick(static_cast<int>(kept.size())))];
    }

    // One token (English word, number or mark): its position.
    int word(const std::string& token) {
        s_.tokens.push_back(token);
        return static_cast<int>(s_.tokens.size()) - 1;
    }
    // A Chinese word: one token per character (as the playground tokenizer reads it).
    Span chars(std::string_view text) {
        const int begin = size();
        for (std::size_t i = 0; i < text.size();) {
            const unsigned char lead = static_cast<unsigned char>(text[i]);
            const std::size_t n = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
            s_.tokens.emplace_back(text.substr(i, n));
            i += n;
        }
        return {begin, size()};
    }
    void arc(Relation r, int dependent, Span partner) { s_.arcs.push_back({r, dependent, partner.begin, partner.end}); }
    void arc(Relation r, int dependent, int partner) { arc(r, dependent, Span{partner, partner + 1}); }
    int size() const { return static_cast<int>(s_.tokens.size()); }
    AnnotatedSentence take() { return std::move(s_); }

private:
    Rng rng_;
    AnnotatedSentence s_;
};


// -- phrases (grammar_parts.cpp) ---------------------------------------------------------

// "the [adj [adj]] noun": the noun's position; modifier arc noun → the.
int english_np(Builder& b, const Noun& n, bool plural);
int english_np(Builder& b, bool plural);  // any noun
// A name of either gender; returns its position.
int english_name(Builder& b, bool female);
// "and", "because", "and then" or "but later": between the clauses, of varying length.
void english_connective(Builder& b);

Span zh_name(Builder& b, bool female);
// NUM MEASURE [很? ADJ 的] NOUN: modifier arc noun → its measure word (the classifier
// phrase that counts it, as "the" determines an English noun), across the 的-phrase.
// `one`: the number is 一.
Span zh_counted_np(Builder& b, const ZhNoun& n, bool one = false);
// Something one buys: an animal or a thing.
const ZhNoun& zh_bought(Builder& b);
// "，", "，后来" (later) or "，所以" (so): between the clauses, of varying length.
void chinese_connective(Builder& b);

// A person a sentence names, so that a pronoun's next word can be what they do.
struct Person {
    bool female = false;
    int index = 0;  // into the names of their gender
};
// Two people of different genders, each one of the first `names` names of their gender
// (drawn: the first one's gender, then the two indices).
struct PersonPair {
    Person first, second;
};
PersonPair any_two_people(Builder& b, int names);
// The person's name (a word; in Chinese its characters).
int english_person(Builder& b, Person p);
Span chinese_person(Builder& b, Person p);
// he|she HABIT, 他|她 HABIT: coreference arc pronoun → the person's name.
void english_pronoun(Builder& b, Person p, int name_at);
void chinese_pronoun(Builder& b, Person p, Span name);

// One date, form 0 MONTH DAY , YEAR | 1 MONTH YEAR | 2 DAY MONTH YEAR: date arcs from its
// later parts to its first part.
void english_date_parts(Builder& b, int form);
// One date, form 0 YEAR年MONTH月DAY日 | 1 MONTH月DAY日 | 2 YEAR年MONTH月: date arcs from its
// later numbers to its first number.
void chinese_date_parts(Builder& b, int form);

// -- training patterns that vary the partner's place (grammar_variety.cpp) ---------------

// NAME said that THE-N [PREP THE-N] COP PRED .: the subject after a reporting clause.
void english_agreement_reported(Builder& b);
// NAME PAST NAME PREP THE-THING . he|she HABIT . | NAME bought THE-ANIMAL PREP THE-THING
// because it VERB .: a noun between the pronoun and its antecedent.
void english_coreference_distractor(Builder& b);
// NAME PAST NAME at THE-THING . then NAME VERB .: either name repeats.
void english_repetition_any(Builder& b);
// NAME 说那些 [ADJ 的] NOUN | NAME 的 [ADJ 的] NOUN 在 … 很 PRED。: the subject after 说 or an adjective.
void chinese_agreement_reported(Builder& b);
// NAME 在 THING 旁边见了 NAME，所以 他|她 HABIT。 | NAME 买了一只 ANIMAL 和 NP，它 VERB。
void chinese_coreference_distractor(Builder& b);
// NAME 在学校|公园 见了 NAME。后来 NAME 回家了。: either name repeats.
void chinese_repetition_any(Builder& b);

}  // namespace hs::corpus::grammar_parts
