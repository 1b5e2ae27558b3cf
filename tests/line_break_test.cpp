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

TEST(LineBreak, NumbersInCaptionsStayWhole) {
    // The heatmap caption: at this width ImGui's wrap ended the third line with "0." and
    // began the fourth with "37".
    EXPECT_EQ(lines("L0.H3: coreference head (en 0.56 vs 0.23 at offset −5), modifier head (en 0.86 vs 0.37 at "
                    "offset −3)",
                    28),
              (std::vector<std::string>{"L0.H3: coreference head (en", "0.56 vs 0.23 at offset −5),",
                                        "modifier head (en 0.86 vs", "0.37 at offset −3)"}));
    EXPECT_EQ(lines("1,024 rows −3 d_model", 7), (std::vector<std::string>{"1,024", "rows −3", "d_model"}));
}

TEST(LineBreak, NumbersInChineseStayWhole) {
    // The role legend: "(" stays with "首", the numbers whole; Chinese still breaks anywhere.
    EXPECT_EQ(lines("1 个头：L0.H0 (首词元 0.64 ≥ 0.50)", 12),
              (std::vector<std::string>{"1 个头：L0.H0", "(首词元 0.64 ≥", "0.50)"}));
    EXPECT_EQ(lines("1 个头：L0.H0 (首词元 0.64 ≥ 0.50)", 9),
              (std::vector<std::string>{"1 个头：", "L0.H0 (首词", "元 0.64 ≥", "0.50)"}));
    // The About panel's OpenGL version among Chinese: ImGui's wrap ended a line with "22.".
    EXPECT_EQ(lines("用于 4.6 (Compatibility Profile) Mesa 22.3.6 渲染", 17),
              (std::vector<std::string>{"用于 4.6", "(Compatibility", "Profile) Mesa", "22.3.6 渲染"}));
    EXPECT_EQ(lines("版本Mesa 22.3.6", 8), (std::vector<std::string>{"版本Mesa", "22.3.6"}));
}

TEST(LineBreak, PureChineseBreaksAtEveryCharacter) {
    EXPECT_EQ(lines("注意力头的角色", 3), (std::vector<std::string>{"注意力", "头的角", "色"}));
    EXPECT_EQ(lines("注意力头的角色", 1), (std::vector<std::string>{"注", "意", "力", "头", "的", "角", "色"}));
}

TEST(LineBreak, AnOverlongWordIsStillCut) {
    EXPECT_EQ(lines("is attention_probabilities ok", 8),
              (std::vector<std::string>{"is", "attentio", "n_probab", "ilities", "ok"}));
    EXPECT_EQ(lines("22.3.6", 1), (std::vector<std::string>{"2", "2", ".", "3", ".", "6"}));
    EXPECT_EQ(lines("(((((", 2), (std::vector<std::string>{"((", "((", "("}));
}

}  // namespace
}  // namespace hs
