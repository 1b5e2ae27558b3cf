#include "core/corpus/grammar.h"

#include <algorithm>
#include <array>
#include <set>
#include <string_view>

#include "core/error.h"
#include "core/rng.h"

namespace hs::corpus {

namespace {

// -- lexicon -------------------------------------------------------------------------

struct Noun {
    const char* singular;
    const char* plural;
};
constexpr Noun kNouns[] = {{"dog", "dogs"},         {"cat", "cats"},       {"key", "keys"},
                           {"book", "books"},       {"car", "cars"},       {"teacher", "teachers"},
                           {"student", "students"}, {"box", "boxes"},      {"bird", "birds"},
                           {"friend", "friends"},   {"letter", "letters"}, {"window", "windows"}};
// Adjectives come in English order: a size or age one, then a colour.
constexpr const char* kSizes[] = {"big", "small", "old", "new", "heavy"};
constexpr const char* kColours[] = {"red", "green", "blue", "brown"};
constexpr const char* kStates[] = {"happy", "tired", "late", "ready", "busy", "sad"};
constexpr const char* kSentiments[] = {"good", "bad", "nice", "great", "boring", "funny"};
constexpr const char* kPrepositions[] = {"near", "behind", "under", "with", "beside"};
constexpr const char* kMaleNames[] = {"John", "Tom", "Peter", "David", "James"};
constexpr const char* kFemaleNames[] = {"Mary", "Alice", "Anna", "Emma", "Lucy"};
constexpr const char* kMonths[] = {"January", "February", "March",     "April",   "May",      "June",
                                   "July",    "August",   "September", "October", "November", "December"};
// (singular, plural) verb forms that must agree with their subject.
constexpr std::array<const char*, 2> kVerbs[] = {{"sleeps", "sleep"}, {"runs", "run"}, {"waits", "wait"}, {"sings", "sing"}};
constexpr std::array<const char*, 2> kCopulas[] = {{"is", "are"}, {"was", "were"}};
constexpr const char* kPastVerbs[] = {"met", "called", "helped", "visited", "saw"};

struct ZhNoun {
    const char* noun;
    const char* measure;  // its measure word (量词)
};
constexpr ZhNoun kZhNouns[] = {{"书", "本"}, {"猫", "只"}, {"狗", "只"}, {"车", "辆"}, {"笔", "支"},
                               {"桌子", "张"}, {"苹果", "个"}, {"花", "朵"}, {"椅子", "把"}, {"信", "封"}};
constexpr const char* kZhAdjectives[] = {"红色", "新", "旧", "大", "小", "漂亮", "可爱", "便宜"};
constexpr const char* kZhStates[] = {"累", "忙", "高兴", "难过"};
constexpr const char* kZhSentiments[] = {"好", "好看", "有趣"};
constexpr const char* kZhMaleNames[] = {"小明", "张伟", "李雷", "王强"};
constexpr const char* kZhFemaleNames[] = {"小红", "韩梅", "李娜", "王芳"};
constexpr const char* kZhNumbers[] = {"一", "两", "三", "几"};

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

// -- English ---------------------------------------------------------------------------

// "the [adj [adj]] noun": the noun's position; modifier arc noun → the.
int english_np(Builder& b, bool plural) {
    const int det = b.word("the");
    const int adjectives = b.pick(3);
    const bool sized = adjectives == 2 || (adjectives == 1 && b.chance(50));
    if (sized) b.word(b.any(kSizes));
    if (adjectives == 2 || (adjectives == 1 && !sized)) b.word(b.any(kColours));
    const Noun& n = b.any(kNouns);
    const int noun = b.word(plural ? n.plural : n.singular);
    b.arc(Relation::Modifier, noun, det);
    return noun;
}

// A name of either gender; returns its position.
int english_name(Builder& b, bool female) { return b.word(female ? b.any(kFemaleNames) : b.any(kMaleNames)); }

// The subject, an attractor (prepositional phrase or relative clause with a noun of the
// other number), the verb agreeing with the subject.
void english_agreement(Builder& b) {
    const bool plural = b.chance(50);
    const int subject = english_np(b, plural);
    if (b.chance(50)) {
        b.word(b.any(kPrepositions));
        english_np(b, b.chance(75) ? !plural : plural);
    } else {
        b.word("that");
        const bool other = b.chance(75) ? !plural : plural;
        const int noun = english_np(b, other);
        const int verb = b.word(b.any(kVerbs)[other ? 1 : 0]);
        b.arc(Relation::Agreement, verb, noun);
    }
    if (b.chance(50)) {
        const int verb = b.word(b.any(kCopulas)[plural ? 1 : 0]);
        b.arc(Relation::Agreement, verb, subject);
        b.word(b.any(kStates));
    } else {
        b.arc(Relation::Agreement, b.word(b.any(kVerbs)[plural ? 1 : 0]), subject);
    }
    b.word(".");
}

// Two people of different genders (or a person and a thing); the pronoun names one.
void english_coreference(Builder& b) {
    if (b.chance(30)) {  // it → a thing
        english_name(b, b.chance(50));
        b.word("bought");
        const int thing = english_np(b, false);
        b.word("because");
        b.arc(Relation::Coreference, b.word("it"), thing);
        b.word("was");
        b.word(b.any(kSentiments));
        b.word(".");
        return;
    }
    const bool first_female = b.chance(50);
    const int first = english_name(b, first_female);
    b.word(b.any(kPastVerbs));
    const int second = english_name(b, !first_female);
    if (b.chance(50)) {
        b.word("at");
        english_np(b, false);
    }
    b.word(b.chance(50) ? "because" : "and");
    const bool about_first = b.chance(50);
    const bool female = about_first ? first_female : !first_female;
    b.arc(Relation::Coreference, b.word(female ? "she" : "he"), about_first ? first : second);
    b.word("was");
    b.word(b.any(kStates));
    b.word(".");
}

void english_brackets(Builder& b) {
    if (b.chance(50)) {  // NAME said " the N is ADJ " .
        english_name(b, b.chance(50));
        b.word("said");
        const int open = b.word("\"");
        const int noun = english_np(b, false);
        b.arc(Relation::Agreement, b.word("is"), noun);
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
    b.word(b.any(kStates));
    b.word(".");
}

// Dates: MONTH DAY , YEAR | MONTH YEAR | DAY MONTH YEAR; later parts → the first part.
void english_date(Builder& b) {
    english_name(b, b.chance(50));
    const int form = b.pick(3);
    b.word(form == 1 ? "moved" : "arrived");
    b.word(form == 1 ? "in" : "on");
    const std::string month = b.any(kMonths), day = std::to_string(1 + b.pick(28)),
                      year = std::to_string(1980 + b.pick(45));
    if (form == 0) {
        const int first = b.word(month);
        b.arc(Relation::Date, b.word(day), first);
        b.word(",");
        b.arc(Relation::Date, b.word(year), first);
    } else if (form == 1) {
        const int first = b.word(month);
        b.arc(Relation::Date, b.word(year), first);
    } else {
        const int first = b.word(day);
        b.arc(Relation::Date, b.word(month), first);
        b.arc(Relation::Date, b.word(year), first);
    }
    b.word(".");
}

void english_negation(Builder& b) {
    const bool plural = b.chance(50);
    const int subject = english_np(b, plural);
    b.arc(Relation::Agreement, b.word(b.any(kCopulas)[plural ? 1 : 0]), subject);
    const int negation = b.chance(75) ? b.word(b.chance(70) ? "not" : "never") : -1;
    if (b.chance(50)) b.word(b.chance(50) ? "very" : "really");
    const int sentiment = b.word(b.any(kSentiments));
    if (negation >= 0) b.arc(Relation::Negation, sentiment, negation);
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

Span zh_name(Builder& b, bool female) { return b.chars(female ? b.any(kZhFemaleNames) : b.any(kZhMaleNames)); }

// NUM MEASURE [很? ADJ 的] NOUN: agreement noun → measure word, modifier noun → adjective.
// `one`: the number is 一 (a thing 它 can refer to).
Span zh_counted_np(Builder& b, bool one = false) {
    b.chars(one ? "一" : b.any(kZhNumbers));
    const ZhNoun& n = b.any(kZhNouns);
    const Span measure = b.chars(n.measure);
    Span adjective{-1, -1};
    if (b.chance(60)) {
        if (b.chance(40)) b.chars("很");
        adjective = b.chars(b.any(kZhAdjectives));
        b.chars("的");
    }
    const Span noun = b.chars(n.noun);
    b.arc(Relation::Agreement, noun.begin, measure);
    if (adjective.begin >= 0) b.arc(Relation::Modifier, noun.begin, adjective);
    return noun;
}

void chinese_agreement(Builder& b) {
    zh_name(b, b.chance(50));
    b.chars(b.chance(50) ? "买了" : "看见了");
    zh_counted_np(b);
    b.chars("。");
}

void chinese_coreference(Builder& b) {
    if (b.chance(30)) {  // 它 → an animal or thing
        zh_name(b, b.chance(50));
        b.chars("买了");
        const Span thing = zh_counted_np(b, true);
        b.chars("，");
        b.arc(Relation::Coreference, b.chars("它").begin, thing);
        b.chars("很");
        b.chars(b.any(kZhSentiments));
        b.chars("。");
        return;
    }
    const bool first_female = b.chance(50);
    const Span first = zh_name(b, first_female);
    const bool told = b.chance(50);  // NAME 告诉 NAME … | NAME 对 NAME 说 …
    b.chars(told ? "告诉" : "对");
    const Span second = zh_name(b, !first_female);
    if (!told) b.chars("说");
    const bool about_first = b.chance(50);
    const bool female = about_first ? first_female : !first_female;
    b.arc(Relation::Coreference, b.chars(female ? "她" : "他").begin, about_first ? first : second);
    b.chars("很");
    b.chars(b.any(kZhStates));
    b.chars("。");
}

void chinese_brackets(Builder& b) {
    const bool female = b.chance(50);
    zh_name(b, female);
    if (b.chance(50)) {  // NAME 说：「这 MEASURE NOUN 很 SENTIMENT」。
        b.chars("说：");
        const Span open = b.chars("「");
        b.chars("这");
        const ZhNoun& n = b.any(kZhNouns);
        const Span measure = b.chars(n.measure);
        b.arc(Relation::Agreement, b.chars(n.noun).begin, measure);
        b.chars("很");
        b.chars(b.any(kZhSentiments));
        b.arc(Relation::Bracket, b.chars("」").begin, open);
        b.chars("。");
        return;
    }
    b.chars("买了");  // NAME 买了 NP（OTHER [（她的朋友）] 送的）。
    zh_counted_np(b);
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
    const int form = b.pick(3);
    const std::string year = std::to_string(1980 + b.pick(45)), month = std::to_string(1 + b.pick(12)),
                      day = std::to_string(1 + b.pick(28));
    int first = -1;
    const auto part = [&](const std::string& number, const char* unit) {
        const int at = b.word(number);
        if (first < 0) first = at;
        else b.arc(Relation::Date, at, first);
        b.chars(unit);
    };
    if (form != 1) part(year, "年");
    part(month, "月");
    if (form != 2) part(day, "日");
    b.chars(b.chance(50) ? "出生" : "回家");
    b.chars("。");
}

void chinese_negation(Builder& b) {
    b.chars("这");
    const ZhNoun& n = b.any(kZhNouns);
    const Span measure = b.chars(n.measure);
    b.arc(Relation::Agreement, b.chars(n.noun).begin, measure);
    const int negation = b.chance(75) ? b.chars("不").begin : -1;
    if (negation >= 0 ? b.chance(50) : true) b.chars(negation >= 0 ? "太" : "很");
    const int sentiment = b.chars(b.any(kZhSentiments)).begin;
    if (negation >= 0) b.arc(Relation::Negation, sentiment, negation);
    b.chars("。");
}

void chinese_repetition(Builder& b) {
    const bool female = b.chance(50);
    const std::string name = female ? b.any(kZhFemaleNames) : b.any(kZhMaleNames);
    const Span first = b.chars(name);
    b.chars("和");
    zh_name(b, !female);
    b.chars("去了公园。后来");
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
    constexpr Pattern kEnglish[] = {english_agreement, english_coreference, english_brackets,
                                    english_date,      english_negation,    english_repetition};
    constexpr Pattern kChinese[] = {chinese_agreement, chinese_coreference, chinese_brackets,
                                    chinese_date,      chinese_negation,    chinese_repetition};
    (lang == "en" ? kEnglish : kChinese)[b.pick(6)](b);
    return b.take();
}

std::vector<std::string> grammar_vocabulary() {
    // Every sentence of a long prefix of both streams covers every choice the patterns
    // make: the vocabulary is what they wrote (checked against the lexicon in the tests).
    std::set<std::string> tokens;
    for (const char* lang : {"en", "zh"})
        for (long long i = 0; i < 20000; ++i)
            for (const std::string& t : generate_sentence(lang, 0, i).tokens) tokens.insert(t);
    return {tokens.begin(), tokens.end()};
}

}  // namespace hs::corpus
