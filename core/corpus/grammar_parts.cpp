#include "core/corpus/grammar_parts.h"

namespace hs::corpus::grammar_parts {

int english_np(Builder& b, const Noun& n, bool plural) {
    const int det = b.word("the");
    const int adjectives = b.pick(3);
    const bool sized = adjectives == 2 || (adjectives == 1 && b.chance(50));
    if (sized) b.word(b.any(kSizes));
    if (adjectives == 2 || (adjectives == 1 && !sized)) b.word(b.any(kColours));
    const int noun = b.word(plural ? n.plural : n.singular);
    b.arc(Relation::Modifier, noun, det);
    return noun;
}
int english_np(Builder& b, bool plural) { return english_np(b, b.any(kNouns), plural); }

int english_name(Builder& b, bool female) { return b.word(female ? b.any(kFemaleNames) : b.any(kMaleNames)); }

void english_connective(Builder& b) {
    const int form = b.pick(4);
    b.word(form == 0 || form == 2 ? "and" : form == 1 ? "because" : "but");
    if (form >= 2) b.word(form == 2 ? "then" : "later");
}

Span zh_name(Builder& b, bool female) { return b.chars(female ? b.any(kZhFemaleNames) : b.any(kZhMaleNames)); }

Span zh_counted_np(Builder& b, const ZhNoun& n, bool one) {
    b.chars(one ? "一" : b.any(kZhNumbers));
    const Span measure = b.chars(n.measure);
    if (b.chance(60)) {
        if (b.chance(40)) b.chars("很");
        b.chars(b.any(kZhAdjectives));
        b.chars("的");
    }
    const Span noun = b.chars(n.noun);
    b.arc(Relation::Modifier, noun.begin, measure);
    return noun;
}
const ZhNoun& zh_bought(Builder& b) {
    return b.any_of(kZhNouns, [](const ZhNoun& n) { return n.kind != kPerson; });
}

void chinese_connective(Builder& b) {
    const int form = b.pick(3);
    b.chars(form == 0 ? "，" : form == 1 ? "，后来" : "，所以");
}

void english_date_parts(Builder& b, int form) {
    const std::string month = b.any(kMonths), day = std::to_string(1 + b.pick(28)), year = std::to_string(1980 + b.pick(45));
    const int first = b.word(form == 2 ? day : month);
    if (form == 0) {
        b.arc(Relation::Date, b.word(day), first);
        b.word(",");
    }
    if (form == 2) b.arc(Relation::Date, b.word(month), first);
    b.arc(Relation::Date, b.word(year), first);
}

void chinese_date_parts(Builder& b, int form) {
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
}

PersonPair any_two_people(Builder& b, int names) {
    const bool first_female = b.chance(50);
    const Person first{first_female, b.pick(names)};
    const Person second{!first_female, b.pick(names)};
    return {first, second};
}

int english_person(Builder& b, Person p) { return b.word(p.female ? kFemaleNames[p.index] : kMaleNames[p.index]); }
Span chinese_person(Builder& b, Person p) { return b.chars(p.female ? kZhFemaleNames[p.index] : kZhMaleNames[p.index]); }

void english_pronoun(Builder& b, Person p, int name_at) {
    b.arc(Relation::Coreference, b.word(p.female ? "she" : "he"), name_at);
    b.word(p.female ? kFemaleHabits[p.index] : kMaleHabits[p.index]);
}
void chinese_pronoun(Builder& b, Person p, Span name) {
    b.arc(Relation::Coreference, b.chars(p.female ? "她" : "他").begin, name);
    b.chars(p.female ? kZhFemaleHabits[p.index] : kZhMaleHabits[p.index]);
}

}  // namespace hs::corpus::grammar_parts
