// core/image/line_break: lines by hand, with every code point one unit wide.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/image/line_break.h"
#include "core/image/utf8.h"

namespace hs {
namespace {

float code_points(std::string_view s) { return static_cast<float>(utf8_to_codepoints(s).size()); }

std::vector<std::string> lines(const std::string& text, float width) { return break_lines(text, width, code_points); }

TEST(LineBreak, EnglishBreaksAtSpacesAndKeepsNumbersWhole) {
    EXPECT_EQ(lines("scores [2.828, 7.778] are right", 12),
              (std::vector<std::string>{"scores", "[2.828,", "7.778] are", "right"}));
    // ImGui's own wrap breaks after '.', splitting "16.971"; here it stays whole.
    EXPECT_EQ(lines("is 16.971 now", 8), (std::vector<std::string>{"is", "16.971", "now"}));
}

TEST(LineBreak, ChineseBreaksBetweenCharactersButNotBeforeClosingPunctuation) {
    // 6 units a line: "，" and "。" stay with the character before them.
    EXPECT_EQ(lines("两个词元，一个头。没有输出投影", 6),
              (std::vector<std::string>{"两个词元，一", "个头。没有输", "出投影"}));
    EXPECT_EQ(lines("甲乙丙丁戊，己", 5), (std::vector<std::string>{"甲乙丙丁", "戊，己"}));
}

TEST(LineBreak, OpeningPunctuationStaysWithWhatFollows) {
    EXPECT_EQ(lines("一二三（四五）", 4), (std::vector<std::string>{"一二三", "（四五）"}));
    EXPECT_EQ(lines("在“计算流程”中", 4), (std::vector<std::string>{"在“计算", "流程”中"}));
    // "“" would end the first line: it moves down with "四".
    EXPECT_EQ(lines("一二三“四五”", 4), (std::vector<std::string>{"一二三", "“四五”"}));
}

TEST(LineBreak, MixedTextKeepsFormulasWhole) {
    // W_K and the formula are words; a CJK character may follow them on the same line.
    EXPECT_EQ(lines("W_K 也取这两维", 8), (std::vector<std::string>{"W_K 也取这两", "维"}));
    EXPECT_EQ(lines("Q = X·W_Q 都正确", 10), (std::vector<std::string>{"Q = X·W_Q", "都正确"}));
}

TEST(LineBreak, NewlinesBreakAndTooWidePiecesAreCut) {
    EXPECT_EQ(lines("ab\ncd", 10), (std::vector<std::string>{"ab", "cd"}));
    EXPECT_EQ(lines("abcdefgh", 3), (std::vector<std::string>{"abc", "def", "gh"}));
    // A matrix wider than the line is cut after a comma or bracket, not mid-number.
    EXPECT_EQ(lines("[[4.1116,5.8884],[5.8884,4.1116]]", 20),
              (std::vector<std::string>{"[[4.1116,5.8884],", "[5.8884,4.1116]]"}));
    EXPECT_EQ(lines("is [[4.1116,5.8884],[5.8884,4.1116]] ok", 20),
              (std::vector<std::string>{"is", "[[4.1116,5.8884],", "[5.8884,4.1116]] ok"}));
    EXPECT_EQ(lines("", 5), (std::vector<std::string>{""}));
    EXPECT_EQ(lines("a    b", 1), (std::vector<std::string>{"a", "b"}));
}

}  // namespace
}  // namespace hs
