// The bilingual grammar corpus (core/corpus/) and the relation probes
// (core/analysis/relation_probe.h).
#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/analysis/relation_probe.h"
#include "core/corpus/annotated.h"
#include "core/corpus/candidates.h"
#include "core/corpus/annotated_json.h"
#include "core/corpus/grammar.h"
#include "core/error.h"
#include "core/tokenize/chinese_words.h"
#include "core/tokenize/playground_tokenizer.h"

namespace hs {
namespace {

using corpus::AnnotatedSentence;
using corpus::Arc;
using corpus::Relation;

// The arcs of a sentence as "relation: dependent → partner" strings, for readable checks.
std::vector<std::string> arcs_of(const AnnotatedSentence& s) {
    std::vector<std::string> out;
    for (const Arc& a : s.arcs) {
        std::string partner;
        for (int i = a.partner_begin; i < a.partner_end; ++i) partner += s.tokens[static_cast<std::size_t>(i)];
        out.push_back(std::string(corpus::relation_name(a.relation)) + ": " + s.tokens[static_cast<std::size_t>(a.dependent)] +
                      " → " + partner);
    }
    return out;
}

TEST(Grammar, IsAFunctionOfSeedAndIndex) {
    for (const char* lang : {"en", "zh"}) {
        const AnnotatedSentence a = corpus::generate_sentence(lang, 7, 123), b = corpus::generate_sentence(lang, 7, 123);
        EXPECT_EQ(a.tokens, b.tokens);
        EXPECT_EQ(a.arcs, b.arcs);
        EXPECT_NE(corpus::generate_sentence(lang, 7, 124).tokens, a.tokens);
        EXPECT_NE(corpus::generate_sentence(lang, 8, 123).tokens, a.tokens);
    }
    EXPECT_THROW((void)corpus::generate_sentence("fr", 1, 0), Error);
}

// Every sentence: the text reads back as its tokens through the playground tokenizer,
// every arc points back inside it, and across many sentences every relation appears in
// English and every one but agreement's verb form … in Chinese too.
TEST(Grammar, TextReadsBackAsItsTokensAndArcsPointBack) {
    const PlaygroundTokenizer tokenizer(100000);
    for (const char* lang : {"en", "zh"}) {
        std::set<Relation> seen;
        for (long long i = 0; i < 3000; ++i) {
            const AnnotatedSentence s = corpus::generate_sentence(lang, 1, i);
            ASSERT_GE(s.tokens.size(), 4u);
            ASSERT_LE(s.tokens.size(), 32u);
            ASSERT_EQ(tokenizer.encode(corpus::text_of(s)).text, s.tokens) << corpus::text_of(s);
            for (const Arc& a : s.arcs) {
                ASSERT_LT(a.partner_begin, a.partner_end);
                ASSERT_LE(a.partner_end, a.dependent);
                ASSERT_LT(a.dependent, static_cast<int>(s.tokens.size()));
                seen.insert(a.relation);
            }
        }
        EXPECT_EQ(seen.size(), static_cast<std::size_t>(corpus::kRelationCount)) << lang;
    }
}

// Hand-checked sentences (seed 3): the text a person reads and the arcs they would draw,
// positions included.
TEST(Grammar, GoldRelationsOfHandCheckedSentences) {
    const auto sentence = [](const char* lang, long long i) { return corpus::generate_sentence(lang, 3, i); };
    AnnotatedSentence s = sentence("en", 0);
    EXPECT_EQ(corpus::text_of(s), "Anna said \" the new blue bird is funny \" .");
    EXPECT_EQ(arcs_of(s), (std::vector<std::string>{"modifier: bird → the", "bracket: \" → \""}));
    s = sentence("en", 40);  // the ) closes the ( three tokens in
    EXPECT_EQ(corpus::text_of(s), "the red letter ( and the new blue teacher ) are great .");
    EXPECT_EQ(s.arcs[2], (Arc{Relation::Bracket, 9, 3, 4}));
    s = sentence("en", 6);  // he → Peter (the man), past a noun, and what follows is what Peter does
    EXPECT_EQ(corpus::text_of(s), "Lucy met Peter beside the red boxes . he swims .");
    EXPECT_EQ(s.arcs[1], (Arc{Relation::Coreference, 8, 2, 3}));
    s = sentence("en", 28);  // the copula agrees with "box" across "with the friends"
    EXPECT_EQ(corpus::text_of(s), "the big box with the friends is broken .");
    EXPECT_EQ(arcs_of(s), (std::vector<std::string>{"modifier: box → the", "modifier: friends → the", "agreement: is → box"}));
    s = sentence("en", 30);  // the subject after a reporting clause, an attractor of the other number
    EXPECT_EQ(corpus::text_of(s), "Peter said that the new brown cars behind the old green teacher are cheap .");
    EXPECT_EQ(s.arcs[2], (Arc{Relation::Agreement, 12, 6, 7}));
    s = sentence("en", 53);
    EXPECT_EQ(arcs_of(s), (std::vector<std::string>{"modifier: dog → the", "modifier: key → the", "coreference: it → dog"}));
    s = sentence("en", 16);  // the second name repeats
    EXPECT_EQ(corpus::text_of(s), "Alice helped Peter at the new window . then Peter waits .");
    EXPECT_EQ(s.arcs[1], (Arc{Relation::Repetition, 9, 2, 3}));
    s = sentence("en", 24);
    EXPECT_EQ(corpus::text_of(s), "James arrived on 4 October 1997 .");
    EXPECT_EQ(arcs_of(s), (std::vector<std::string>{"date: October → 4", "date: 1997 → 4"}));
    s = sentence("zh", 0);  // 她 → 李娜 (both characters), past 车
    EXPECT_EQ(corpus::text_of(s), "李雷在车旁边帮了李娜，所以她画画。");
    EXPECT_EQ(s.arcs, (std::vector<Arc>{{Relation::Coreference, 13, 8, 10}}));
    s = sentence("zh", 5);  // 它 → 鸟, past 椅子
    EXPECT_EQ(corpus::text_of(s), "小红买了一只很大的鸟和一把新的椅子，它飞了。");
    EXPECT_EQ(arcs_of(s), (std::vector<std::string>{"modifier: 鸟 → 只", "modifier: 椅 → 把", "coreference: 它 → 鸟"}));
    s = sentence("zh", 7);  // the predicate fits 椅子 (a thing), not 学生 in the place phrase
    EXPECT_EQ(corpus::text_of(s), "那些椅子在学生旁边很重。");
    EXPECT_EQ(s.arcs, (std::vector<Arc>{{Relation::Agreement, 9, 2, 4}}));
    s = sentence("zh", 26);  // the subject after 说
    EXPECT_EQ(corpus::text_of(s), "王芳说那些学生在鸟旁边很累。");
    EXPECT_EQ(s.arcs, (std::vector<Arc>{{Relation::Agreement, 11, 5, 7}}));
    s = sentence("zh", 38);  // the second name repeats
    EXPECT_EQ(corpus::text_of(s), "张伟在学校认识李娜。后来李娜回家了。");
    EXPECT_EQ(s.arcs, (std::vector<Arc>{{Relation::Repetition, 12, 7, 9}}));
    s = sentence("zh", 17);
    EXPECT_EQ(corpus::text_of(s), "韩梅在2011年3月28日出生。");
    EXPECT_EQ(arcs_of(s), (std::vector<std::string>{"date: 3 → 2011", "date: 28 → 2011"}));
    s = sentence("zh", 24);
    EXPECT_EQ(corpus::text_of(s), "王强买了几张桌子（韩梅（他的朋友）送的）。");
    EXPECT_EQ(s.arcs[0], (Arc{Relation::Modifier, 6, 5, 6}));     // 桌 → 张, its measure word
    EXPECT_EQ(s.arcs[1], (Arc{Relation::Bracket, 16, 11, 12}));  // the inner ） closes the inner （
    EXPECT_EQ(s.arcs[2], (Arc{Relation::Bracket, 19, 8, 9}));
}

// Over thousands of sentences, every arc is right by rules written here from the lexicon
// (not from the generator's code): the copula's number and the predicate's kind follow the
// subject (English), the predicate's kind follows the subject (Chinese), a pronoun's
// gender and what follows it match its antecedent, a Chinese noun's measure word, the
// matching bracket, a negation word, the same name.
using SentenceMaker = AnnotatedSentence (*)(const std::string& lang, std::uint64_t seed, long long index);

// The number of arcs checked over 2000 sentences of each language `make` writes.
int check_arc_rules(SentenceMaker make) {
    const std::set<std::string> male = {"John", "Tom", "Peter", "David", "James", "小明", "张伟", "李雷", "王强"};
    const std::set<std::string> female = {"Mary", "Alice", "Anna", "Emma", "Lucy", "小红", "韩梅", "李娜", "王芳"};
    const std::set<std::string> plural_verbs = {"are", "were"};
    // noun → the predicates that fit it
    const std::set<std::string> animal = {"hungry", "asleep", "wet", "饿", "安", "困"},
                                person = {"happy", "busy", "tired", "忙", "累", "高"},
                                thing = {"heavy", "cheap", "broken", "旧", "贵", "重"};
    const auto kind_of = [&](std::string noun) -> const std::set<std::string>* {
        if (noun.size() > 1 && noun.back() == 's') noun.pop_back();
        if (noun == "boxe") noun = "box";
        for (const char* a : {"dog", "cat", "bird", "猫", "狗", "鸟"})
            if (noun == a) return &animal;
        for (const char* p : {"teacher", "student", "friend", "老师", "学生", "孩子"})
            if (noun == p) return &person;
        return &thing;
    };
    // each name → what follows a pronoun naming them
    const std::map<std::string, std::string> does = {
        {"John", "cooks"}, {"Tom", "drives"},   {"Peter", "swims"}, {"David", "reads"}, {"James", "paints"},
        {"Mary", "sings"}, {"Alice", "dances"}, {"Anna", "writes"}, {"Emma", "runs"},   {"Lucy", "teaches"},
        {"小明", "踢"},    {"张伟", "开"},      {"李雷", "游"},     {"王强", "看"},     {"小红", "唱"},
        {"韩梅", "跳"},    {"李娜", "画"},      {"王芳", "写"}};
    const std::set<std::pair<std::string, std::string>> measure = {{"书", "本"}, {"猫", "只"}, {"狗", "只"}, {"鸟", "只"},
                                                                   {"车", "辆"}, {"笔", "支"}, {"桌", "张"}, {"椅", "把"},
                                                                   {"信", "封"}, {"老", "位"}, {"学", "个"}, {"孩", "个"}};
    const std::map<std::string, std::string> animal_does = {{"dog", "barks"}, {"cat", "purrs"}, {"bird", "sings"},
                                                            {"狗", "叫"},     {"猫", "睡"},     {"鸟", "飞"}};
    const std::set<std::pair<std::string, std::string>> brackets = {{")", "("}, {"\"", "\""}, {"）", "（"}, {"」", "「"}};
    int checked = 0;
    for (const char* lang : {"en", "zh"})
        for (long long i = 0; i < 2000; ++i) {
            const AnnotatedSentence s = make(lang, 11, i);
            const auto at = [&](int k) { return s.tokens[static_cast<std::size_t>(k)]; };
            for (const Arc& a : s.arcs) {
                const std::string& dep = at(a.dependent);
                const std::string& first = at(a.partner_begin);
                const std::string& next = at(a.dependent + 1);
                std::string partner;
                for (int k = a.partner_begin; k < a.partner_end; ++k) partner += at(k);
                SCOPED_TRACE(corpus::text_of(s) + "  " + corpus::relation_name(a.relation) + ": " + dep + " → " + partner);
                switch (a.relation) {
                    case Relation::Agreement:
                        if (std::string(lang) == "en") EXPECT_EQ(plural_verbs.count(dep) == 1, partner.back() == 's');
                        else EXPECT_EQ(dep, "很");
                        EXPECT_EQ(kind_of(partner)->count(next), 1u);
                        break;
                    case Relation::Coreference:
                        if (dep == "he" || dep == "他") EXPECT_EQ(male.count(partner), 1u);
                        else if (dep == "she" || dep == "她") EXPECT_EQ(female.count(partner), 1u);
                        else EXPECT_TRUE((dep == "it" || dep == "它") && !male.count(partner) && !female.count(partner));
                        if (dep == "it" || dep == "它") EXPECT_EQ(animal_does.at(partner), next);
                        else EXPECT_EQ(does.at(partner), next);
                        break;
                    case Relation::Bracket: EXPECT_EQ(brackets.count({dep, partner}), 1u); break;
                    case Relation::Negation: EXPECT_TRUE(partner == "not" || partner == "never" || partner == "不"); break;
                    case Relation::Repetition: EXPECT_EQ(dep, first); break;
                    case Relation::Modifier:
                        if (std::string(lang) == "en") EXPECT_EQ(partner, "the");
                        else EXPECT_EQ(measure.count({dep, partner}), 1u);
                        break;
                    case Relation::Date: EXPECT_TRUE(std::isdigit(static_cast<unsigned char>(dep[0])) || std::isupper(static_cast<unsigned char>(dep[0]))); break;
                }
                ++checked;
            }
        }
    return checked;
}

TEST(Grammar, EveryArcFollowsTheRulesOfItsRelation) { EXPECT_GT(check_arc_rules(corpus::generate_sentence), 6000); }
TEST(HeldOutGrammar, EveryArcFollowsTheRulesOfItsRelation) {
    EXPECT_GT(check_arc_rules(corpus::generate_held_out_sentence), 6000);
}

TEST(Grammar, VocabularyHoldsEveryTokenOfBothLanguages) {
    const std::vector<std::string> vocab = corpus::grammar_vocabulary();
    EXPECT_TRUE(std::is_sorted(vocab.begin(), vocab.end()));
    for (const char* t : {"the", "keys", "are", "she", "\"", "(", "May", "1998", "not", "书", "本", "她", "「", "年", "不", "。"})
        EXPECT_TRUE(std::binary_search(vocab.begin(), vocab.end(), t)) << t;
    EXPECT_LT(vocab.size(), 600u);
    for (long long i = 0; i < 500; ++i)
        for (const char* lang : {"en", "zh"})
            for (const std::string& t : corpus::generate_sentence(lang, 99, i).tokens)
                ASSERT_TRUE(std::binary_search(vocab.begin(), vocab.end(), t)) << t;
}

TEST(HeldOutGrammar, IsAFunctionOfSeedAndIndexApartFromTheTrainingStream) {
    for (const char* lang : {"en", "zh"}) {
        const AnnotatedSentence a = corpus::generate_held_out_sentence(lang, 7, 123);
        EXPECT_EQ(a.tokens, corpus::generate_held_out_sentence(lang, 7, 123).tokens);
        EXPECT_EQ(a.arcs, corpus::generate_held_out_sentence(lang, 7, 123).arcs);
        EXPECT_NE(corpus::generate_held_out_sentence(lang, 7, 124).tokens, a.tokens);
        EXPECT_NE(corpus::generate_sentence(lang, 7, 123).tokens, a.tokens);
    }
    EXPECT_THROW((void)corpus::generate_held_out_sentence("fr", 1, 0), Error);
    EXPECT_THROW((void)corpus::held_out_corpus("de", 3, 1), Error);
    const std::vector<AnnotatedSentence> both = corpus::held_out_corpus("both", 4, 5);
    ASSERT_EQ(both.size(), 4u);
    EXPECT_EQ(both[3].tokens, corpus::generate_held_out_sentence("zh", 5, 1).tokens);
    EXPECT_EQ(corpus::held_out_probe_corpus().size(), 600u);
}

// The held-out families read back as their tokens, use only words the default model knows
// (the grammar's vocabulary), fit its 64 positions after a BOS, and hold every relation
// in both languages.
TEST(HeldOutGrammar, ReadsBackInTheGrammarsWordsWithEveryRelation) {
    const PlaygroundTokenizer tokenizer(100000);
    const std::vector<std::string> vocab = corpus::grammar_vocabulary();
    for (const char* lang : {"en", "zh"}) {
        std::set<Relation> seen;
        for (long long i = 0; i < 3000; ++i) {
            const AnnotatedSentence s = corpus::generate_held_out_sentence(lang, 2, i);
            ASSERT_GE(s.tokens.size(), 5u);
            ASSERT_LE(s.tokens.size(), 40u) << corpus::text_of(s);
            ASSERT_EQ(tokenizer.encode(corpus::text_of(s)).text, s.tokens) << corpus::text_of(s);
            for (const std::string& t : s.tokens)
                ASSERT_TRUE(std::binary_search(vocab.begin(), vocab.end(), t)) << t << " in " << corpus::text_of(s);
            for (const Arc& a : s.arcs) {
                ASSERT_LT(a.partner_begin, a.partner_end);
                ASSERT_LE(a.partner_end, a.dependent);
                seen.insert(a.relation);
            }
        }
        EXPECT_EQ(seen.size(), static_cast<std::size_t>(corpus::kRelationCount)) << lang;
    }
}

// What the held-out families are for: on them a template does not give the answer. The
// repeated name is often not the sentence's first word (the first six training patterns
// always repeat it), and the nearest earlier name or noun is often not a pronoun's
// antecedent or a verb's subject.
TEST(HeldOutGrammar, PositionAndNearestWordDoNotGiveTheAnswer) {
    std::map<Relation, std::pair<int, int>> off_template;  // relation → (arcs a template misses, arcs)
    for (const AnnotatedSentence& s : corpus::held_out_corpus("both", 2000, 3))
        for (const Arc& a : s.arcs) {
            auto& [missed, arcs] = off_template[a.relation];
            if (a.relation == Relation::Repetition) {
                ++arcs;
                missed += a.partner_begin > 1;  // past the first word (a Chinese name's two characters)
            } else if (a.relation == Relation::Coreference || a.relation == Relation::Agreement) {
                int nearest = -1;
                for (const corpus::WordSpan& w : corpus::candidate_words(s, a))
                    if (w.end <= a.dependent) nearest = w.begin;
                ++arcs;
                missed += nearest != a.partner_begin;
            }
        }
    for (const Relation r : {Relation::Repetition, Relation::Coreference, Relation::Agreement}) {
        SCOPED_TRACE(corpus::relation_name(r));
        const auto [missed, arcs] = off_template[r];
        ASSERT_GT(arcs, 100);
        EXPECT_GT(static_cast<double>(missed) / arcs, 0.5);
    }
}

// Hand-built maps with known answers: one layer, three heads over "a b c d" (no BOS).
// Arc: d (3) → b (1). Head 0 looks at b from d (right), head 1 at a (wrong: offset 3),
// head 2 at d itself (not a key before d: its best earlier key is c, wrong).
TEST(RelationProbe, AccuracyOnHandBuiltMapsWithKnownAnswers) {
    AnnotatedSentence s;
    s.lang = "en";
    s.tokens = {"a", "b", "c", "d"};
    s.arcs = {{Relation::Coreference, 3, 1, 2}, {Relation::Coreference, 2, 0, 1}};  // d → b, c → a
    std::vector<Matrix> maps(3, Matrix::Zero(4, 4));
    maps[0](3, 1) = 0.9f, maps[0](3, 0) = 0.1f, maps[0](2, 1) = 1.0f;  // d → b right, c → b wrong
    maps[1](3, 0) = 0.8f, maps[1](3, 2) = 0.2f, maps[1](2, 0) = 0.7f;  // d → a wrong, c → a right
    maps[2](3, 3) = 0.7f, maps[2](3, 2) = 0.2f, maps[2](3, 1) = 0.1f, maps[2](2, 0) = 0.6f;  // d → c wrong, c → a right
    RelationProbe probe(1, 3);
    probe.add(maps, s, 0);
    const std::vector<RelationScore> scores = probe.scores();
    ASSERT_EQ(scores.size(), 1u);
    const RelationScore& r = scores[0];
    EXPECT_EQ(r.relation, Relation::Coreference);
    EXPECT_EQ(r.arcs, 2);
    EXPECT_EQ(r.head_accuracy, (std::vector<double>{0.5, 0.5, 0.5}));
    EXPECT_EQ(r.best_head, 0);
    // Offsets: d → b is 2 back, c → a is 2 back: offset 2 is right for both.
    EXPECT_EQ(r.offset_baseline, 2);
    EXPECT_DOUBLE_EQ(r.offset_accuracy, 1.0);
    // Positions: b (1) is right for d, a (0) for c: one each, position 0 first.
    EXPECT_EQ(r.position_baseline, 0);
    EXPECT_DOUBLE_EQ(r.position_accuracy, 0.5);
    // No word of the grammar's lexicon: no candidate, never right.
    EXPECT_TRUE(r.has_candidate_baseline);
    EXPECT_DOUBLE_EQ(r.candidate_accuracy, 0.0);
    EXPECT_EQ(r.best_baseline(), Baseline::Offset);
    EXPECT_DOUBLE_EQ(r.margin(), -0.5);
    EXPECT_FALSE(r.claimed());
    // With a BOS in front (offset 1) the same maps shifted give the same answers.
    std::vector<Matrix> shifted(3, Matrix::Zero(5, 5));
    for (int k = 0; k < 3; ++k) shifted[static_cast<std::size_t>(k)].bottomRightCorner(4, 4) = maps[static_cast<std::size_t>(k)];
    for (Matrix& m : shifted) m(4, 0) = 5.0f;  // the BOS column is never a candidate
    RelationProbe with_bos(1, 3);
    with_bos.add(shifted, s, 1);
    EXPECT_EQ(with_bos.scores()[0].head_accuracy, r.head_accuracy);
}

TEST(RelationProbe, SpansCountAnyTokenOfThePartnerAndBadInputIsNamed) {
    AnnotatedSentence s;
    s.lang = "zh";
    s.tokens = {"小", "明", "说", "他"};
    s.arcs = {{Relation::Coreference, 3, 0, 2}};  // 他 → 小明
    std::vector<Matrix> maps(2, Matrix::Zero(4, 4));
    maps[0](3, 1) = 1.0f;  // 明: inside the span
    maps[1](3, 2) = 1.0f;  // 说: outside
    RelationProbe probe(2, 1);
    probe.add(maps, s, 0);
    EXPECT_EQ(probe.scores()[0].head_accuracy, (std::vector<double>{1.0, 0.0}));
    EXPECT_EQ(probe.scores()[0].offset_baseline, 2);  // offsets 2 and 3 are right; 2 first
    // 小明 is one candidate word (a name) spanning tokens 0 and 1, read as its last token.
    EXPECT_DOUBLE_EQ(probe.scores()[0].candidate_accuracy, 1.0);
    RelationProbe wrong(1, 1);
    EXPECT_THROW(wrong.add(maps, s, 0), Error);  // two maps for one head
    s.arcs = {{Relation::Coreference, 2, 1, 3}};  // partner reaches the dependent
    RelationProbe bad(2, 1);
    EXPECT_THROW(bad.add(maps, s, 0), Error);
}

// Maps whose one head attends from each arc's dependent to key `key` of that arc.
static std::vector<Matrix> one_head_at(const AnnotatedSentence& s, int key) {
    const int n = static_cast<int>(s.tokens.size());
    std::vector<Matrix> maps(1, Matrix::Zero(n, n));
    for (const corpus::Arc& a : s.arcs) maps[0](a.dependent, key) = 1.0f;
    return maps;
}

// The one relation's score of a one-head model that attends key_a in sentence a, key_b in b.
static RelationScore score_of_one_head(const AnnotatedSentence& a, int key_a, const AnnotatedSentence& b, int key_b) {
    RelationProbe probe(1, 1);
    probe.add(one_head_at(a, key_a), a, 0);
    probe.add(one_head_at(b, key_b), b, 0);
    return probe.scores().at(0);
}

// Two pronouns, each resolved by a head that always gets it right. "Mary met John because
// she sings": she (4) → Mary (0), and the nearest name is John (miss); "John saw Mary and
// she sings": she (4) → Mary (2), the nearest name (hit). Offsets 4 and 2, positions 0
// and 2, the nearest candidate: each right once (0.5); the head's 1.0 beats them by 0.5.
TEST(RelationProbe, ThreeBaselinesOnHandBuiltPronouns) {
    AnnotatedSentence a{"en", {"Mary", "met", "John", "because", "she", "sings"}, {{Relation::Coreference, 4, 0, 1}}};
    AnnotatedSentence b{"en", {"John", "saw", "Mary", "and", "she", "sings"}, {{Relation::Coreference, 4, 2, 3}}};
    EXPECT_EQ(corpus::candidate_words(a, a.arcs[0]), (std::vector<corpus::WordSpan>{{0, 1}, {2, 3}}));
    const RelationScore r = score_of_one_head(a, 0, b, 2);
    EXPECT_DOUBLE_EQ(r.best_accuracy, 1.0);
    EXPECT_EQ(r.offset_baseline, 2);
    EXPECT_DOUBLE_EQ(r.offset_accuracy, 0.5);
    EXPECT_EQ(r.position_baseline, 0);
    EXPECT_DOUBLE_EQ(r.position_accuracy, 0.5);
    EXPECT_DOUBLE_EQ(r.candidate_accuracy, 0.5);
    EXPECT_EQ(r.best_baseline(), Baseline::Offset);  // a tie: the first of the three
    EXPECT_DOUBLE_EQ(r.margin(), 0.5);
    EXPECT_TRUE(r.claimed());
}

// "John x he" and "John x Tom he": the antecedent always stands first. Offsets 2 and 3
// are right once each, the nearest name once (Tom is nearer in the second), position 0
// always: a head that always attends the first word explains nothing beyond position.
TEST(RelationProbe, AHeadOnAFixedPositionIsNotClaimed) {
    AnnotatedSentence a{"en", {"John", "met", "he"}, {{Relation::Coreference, 2, 0, 1}}};
    AnnotatedSentence b{"en", {"John", "met", "Tom", "he"}, {{Relation::Coreference, 3, 0, 1}}};
    const RelationScore r = score_of_one_head(a, 0, b, 0);
    EXPECT_DOUBLE_EQ(r.best_accuracy, 1.0);
    EXPECT_DOUBLE_EQ(r.offset_accuracy, 0.5);
    EXPECT_DOUBLE_EQ(r.candidate_accuracy, 0.5);
    EXPECT_EQ(r.best_baseline(), Baseline::Position);
    EXPECT_EQ(r.best_baseline_text(), "position 0");
    EXPECT_DOUBLE_EQ(r.margin(), 0.0);
    EXPECT_FALSE(r.claimed());
}

// "Beats the best baseline by 0.2" holds at exactly 0.2: 45 of 65 arcs against 32 of 65
// (the Chinese coreference head on the training patterns), whose difference in doubles is
// 0.19999999999999996, is claimed; 44 of 65 is not.
TEST(RelationProbe, AMarginOfExactlyTheRuleIsClaimed) {
    RelationScore r;
    r.best_head = 1;
    r.best_accuracy = 45.0 / 65;
    r.candidate_accuracy = 32.0 / 65;
    r.has_candidate_baseline = true;
    ASSERT_LT(r.margin(), 0.2);
    EXPECT_TRUE(r.claimed());
    r.best_accuracy = 44.0 / 65;
    EXPECT_FALSE(r.claimed());
}

// A language the lexicon does not know has no candidate baseline (not a 0 every head beats).
TEST(RelationProbe, NoCandidateBaselineOutsideTheLexiconsLanguages) {
    AnnotatedSentence a{"de", {"Maria", "traf", "Hans", "weil", "sie", "singt"}, {{Relation::Coreference, 4, 0, 1}}};
    AnnotatedSentence b{"de", {"Hans", "sah", "Maria", "und", "sie", "singt"}, {{Relation::Coreference, 4, 2, 3}}};
    const RelationScore r = score_of_one_head(a, 0, b, 2);
    EXPECT_FALSE(r.has_candidate_baseline);
    EXPECT_EQ(r.best_baseline(), Baseline::Offset);
    EXPECT_DOUBLE_EQ(r.margin(), 0.5);
}

TEST(CandidateWords, NamesAndNounsOfTheLexiconInBothLanguages) {
    // A person's pronoun looks for names, "it" for nouns, agreement for nouns.
    AnnotatedSentence en{"en", {"the", "keys", "near", "Mary", "are", "heavy", "and", "she", "it", "they"}, {}};
    const auto arc = [](Relation r, int dependent) { return Arc{r, dependent, 0, 1}; };
    EXPECT_EQ(corpus::candidate_words(en, arc(Relation::Agreement, 4)), (std::vector<corpus::WordSpan>{{1, 2}}));
    EXPECT_EQ(corpus::candidate_words(en, arc(Relation::Coreference, 7)), (std::vector<corpus::WordSpan>{{3, 4}}));
    EXPECT_EQ(corpus::candidate_words(en, arc(Relation::Coreference, 8)), (std::vector<corpus::WordSpan>{{1, 2}}));
    EXPECT_EQ(corpus::candidate_words(en, arc(Relation::Coreference, 9)), (std::vector<corpus::WordSpan>{{1, 2}, {3, 4}}));
    EXPECT_TRUE(corpus::candidate_words(en, arc(Relation::Modifier, 4)).empty());
    EXPECT_FALSE(corpus::has_candidate_kind(Relation::Repetition));
    AnnotatedSentence zh{"zh", {"那", "位", "老", "师", "和", "小", "红", "说", "她", "它"}, {}};
    EXPECT_EQ(corpus::candidate_words(zh, arc(Relation::Coreference, 8)), (std::vector<corpus::WordSpan>{{5, 7}}));
    EXPECT_EQ(corpus::candidate_words(zh, arc(Relation::Coreference, 9)), (std::vector<corpus::WordSpan>{{2, 4}}));
    EXPECT_EQ(corpus::candidate_words(zh, arc(Relation::Agreement, 7)), (std::vector<corpus::WordSpan>{{2, 4}}));
}

TEST(RelationsJson, RoundTripsAndNamesWhatIsWrong) {
    std::vector<AnnotatedSentence> sentences;
    for (long long i = 0; i < 20; ++i) sentences.push_back(corpus::generate_sentence(i % 2 ? "zh" : "en", 4, i));
    const std::vector<AnnotatedSentence> back = corpus::parse_relations_json(corpus::relations_json(sentences), "f.json");
    ASSERT_EQ(back.size(), sentences.size());
    for (std::size_t i = 0; i < back.size(); ++i) {
        EXPECT_EQ(back[i].lang, sentences[i].lang);
        EXPECT_EQ(back[i].tokens, sentences[i].tokens);
        EXPECT_EQ(back[i].arcs, sentences[i].arcs);
    }
    const auto error_of = [](const std::string& text) {
        try {
            (void)corpus::parse_relations_json(text, "f.json");
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    const std::string head = R"({"format": "headscope-relations", "sentences": [{"lang": "en", "tokens": ["a", "b", "c"], "arcs": [)";
    EXPECT_EQ(error_of("[1, 2").rfind("f.json is not JSON: ", 0), 0u);
    EXPECT_EQ(error_of(R"({"format": "x"})"), "f.json is not a relations file (\"format\": \"headscope-relations\")");
    EXPECT_EQ(error_of(head + R"({"relation": "syntax", "dependent": 2, "partner": [0, 1]}]}]})"),
              "f.json: sentence 0 arc 0: \"syntax\" is not a relation");
    EXPECT_EQ(error_of(head + R"({"relation": "bracket", "dependent": 3, "partner": [0, 1]}]}]})"),
              "f.json: sentence 0 arc 0 dependent is 3, outside 1 … 2");
    EXPECT_EQ(error_of(head + R"({"relation": "bracket", "dependent": 2, "partner": [1, 3]}]}]})"),
              "f.json: sentence 0 arc 0 partner end is 3, outside 2 … 2");
    EXPECT_EQ(error_of(head + R"({"relation": "bracket", "dependent": 2, "partner": [0, 1.5]}]}]})"),
              "f.json: sentence 0 arc 0 partner end must be an integer");
}

}  // namespace
}  // namespace hs

namespace hs {
namespace {

TEST(ChineseWords, CoverTheGrammar) {
    // Label thinning keeps these words whole; every Chinese word of the grammar must be one.
    const std::vector<std::string>& known = known_chinese_words();
    EXPECT_TRUE(std::is_sorted(known.begin(), known.end()));
    const std::vector<std::string> grammar = corpus::grammar_chinese_words();
    EXPECT_GE(grammar.size(), 40u);  // names, nouns, verbs, adjectives, the patterns' own words
    for (const std::string& word : grammar)
        EXPECT_TRUE(std::binary_search(known.begin(), known.end(), word)) << word << " is missing";
    for (const char* word : {"李娜", "老师", "认识", "后来"})
        EXPECT_TRUE(std::count(grammar.begin(), grammar.end(), word)) << word;
}

}  // namespace
}  // namespace hs
