// Sample sentences (core/io/samples.*): the shipped file loads; wrong entries are named.
#include <gtest/gtest.h>

#include "core/error.h"
#include "core/io/samples.h"
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
