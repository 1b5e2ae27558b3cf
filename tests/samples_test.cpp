// Sample sentences (core/corpus/samples.*): the shipped file loads; wrong entries are named.
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "core/error.h"
#include "core/corpus/samples.h"
#include "tests/test_util.h"

namespace hs {
namespace {

TEST(Samples, TheShippedFileHoldsEnglishAndChineseSentences) {
    const std::vector<Sample> samples = load_samples(std::string(HEADSCOPE_ASSETS_DIR) + "/samples.json");
    ASSERT_GE(samples.size(), 2u);
    bool en = false, zh = false;
    for (const Sample& s : samples) {
        EXPECT_FALSE(s.text.empty()) << s.title;
        en |= s.lang == "en";
        zh |= s.lang == "zh";
    }
    EXPECT_TRUE(en);
    EXPECT_TRUE(zh);
}

// The samples with gold relations: every relation in both languages, each arc naming the
// words a reader would link (checked here by hand, word by word).
TEST(Samples, GoldRelationsCoverEveryRelationInBothLanguagesOnTheRightWords) {
    const std::map<std::string, std::vector<std::string>> want = {
        {"Mary met John at the window because she sings .", {"modifier: window → the", "coreference: she → Mary"}},
        {"Alice helped John and then he cooks .", {"coreference: he → John"}},
        {"Tom bought the small dog and it barks .", {"modifier: dog → the", "coreference: it → dog"}},
        {"the keys near the old dog are heavy .", {"modifier: keys → the", "modifier: dog → the", "agreement: are → keys"}},
        {"the teacher that the students like is happy .",
         {"modifier: teacher → the", "modifier: students → the", "agreement: is → teacher"}},
        {"the red box ( and the blue car ( Anna ) ) are good .",
         {"modifier: box → the", "modifier: car → the", "bracket: ) → (", "bracket: ) → ("}},
        {"Tom said \" the new book is funny \" .", {"modifier: book → the", "bracket: \" → \""}},
        {"Mary arrived on May 3 , 1998 .", {"date: 3 → May", "date: 1998 → May"}},
        {"the dog is not very good .", {"modifier: dog → the", "negation: good → not"}},
        {"Mary and John saw the cat . then Mary runs .", {"modifier: cat → the", "repetition: Mary → Mary"}},
        {"小明认识小红，后来她唱歌。", {"coreference: 她 → 小红"}},
        {"张伟见了李娜，所以他开车。", {"coreference: 他 → 张伟"}},
        {"小红买了一只可爱的猫，它睡了。", {"modifier: 猫 → 只", "coreference: 它 → 猫"}},
        {"那些椅子在学生旁边很重。", {"agreement: 很 → 椅子"}},
        {"小明的猫在车里很饿。", {"agreement: 很 → 猫"}},
        {"王芳买了几本书（王强（她的朋友）送的）。", {"modifier: 书 → 本", "bracket: ） → （", "bracket: ） → （"}},
        {"王强说：「这本书很好看」。", {"bracket: 」 → 「"}},
        {"韩梅在2011年3月28日出生。", {"date: 3 → 2011", "date: 28 → 2011"}},
        {"这只狗不太好。", {"negation: 好 → 不"}},
        {"小红和张伟去了公园。后来小红回家了。", {"repetition: 小 → 小红"}}};
    std::map<std::string, std::set<corpus::Relation>> seen;
    std::size_t with_gold = 0;
    for (const Sample& s : load_samples(std::string(HEADSCOPE_ASSETS_DIR) + "/samples.json")) {
        if (!s.gold) continue;
        ++with_gold;
        ASSERT_EQ(want.count(s.text), 1u) << s.text;
        std::vector<std::string> got;
        for (const corpus::Arc& a : s.gold->arcs) {
            std::string partner;
            for (int k = a.partner_begin; k < a.partner_end; ++k) partner += s.gold->tokens[static_cast<std::size_t>(k)];
            got.push_back(std::string(corpus::relation_name(a.relation)) + ": " +
                          s.gold->tokens[static_cast<std::size_t>(a.dependent)] + " → " + partner);
            seen[s.lang].insert(a.relation);
        }
        EXPECT_EQ(got, want.at(s.text)) << s.text;
        EXPECT_EQ(s.gold->lang, s.lang);
    }
    EXPECT_EQ(with_gold, want.size());
    EXPECT_EQ(seen["en"].size(), static_cast<std::size_t>(corpus::kRelationCount));
    EXPECT_EQ(seen["zh"].size(), static_cast<std::size_t>(corpus::kRelationCount));
}

TEST(Samples, ARelationOutsideItsTextIsNamed) {
    try {
        (void)parse_samples(R"([{"text": "a b c", "relations": [{"relation": "bracket", "dependent": 3, "partner": [0, 1]}]}])",
                            "x.json");
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()),
                  "sample 1 of x.json: \"relations\": arc 0 dependent is 3, outside 1 … 2 (positions count the text's words "
                  "and CJK characters from 0)");
    }
}

TEST(Samples, ParsesEveryFieldAndDefaultsTheLanguage) {
    const std::vector<Sample> s =
        parse_samples(R"([{"title": "t", "text": "a b"}, {"lang": "zh", "text": "猫", "decoder_text": "d"}])", "x");
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(s[0].title, "t");
    EXPECT_EQ(s[0].lang, "en");
    EXPECT_EQ(s[1].text, "猫");
    EXPECT_EQ(s[1].decoder_text, "d");
}

TEST(Samples, AWrongEntryIsNamedByItsNumberAndField) {
    const auto message_of = [](const std::string& json) {
        try {
            (void)parse_samples(json, "samples.json");
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(message_of(R"([{"text": "a"}, 1])"), "sample 2 of samples.json must be an object, not number");
    EXPECT_EQ(message_of(R"([{"text": ["a"]}])"), "sample 1 of samples.json: \"text\" must be a string, not array");
    EXPECT_EQ(message_of(R"([{"title": "no text"}])"), "sample 1 of samples.json has no \"text\".");
    EXPECT_EQ(message_of(R"({"text": "a"})"), "samples file samples.json must hold a JSON array of samples.");
    EXPECT_NE(message_of("[").find("samples.json is not valid JSON"), std::string::npos);
}

}  // namespace
}  // namespace hs
