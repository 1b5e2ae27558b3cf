// Figures for print (core/image): values in cells, upright labels, axis titles, colorbar
// ticks, figure scale, titles, file names that never overwrite, and the SVG twin of each PNG (well-formed XML, every token
// label as text, the same layout).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/image/figure_file.h"
#include "core/io/file_names.h"

#include "core/image/font.h"
#include "core/image/heatmap_draw.h"
#include "core/image/heatmap_image.h"
#include "core/image/label_thinning.h"
#include "core/image/token_words.h"
#include "core/image/painter.h"
#include "core/tokenize/visible_token.h"
#include "tests/xml_check.h"

namespace {

bool have_font() { return hs::Font::system_default().available(); }

int count(const std::string& s, const std::string& what) {
    int n = 0;
    for (std::size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
    return n;
}

// Pixels of r whose colour differs from the cell colour c (text drawn over the cell).
int pixels_unlike(const hs::RgbImage& img, const hs::PixelRect& r, hs::Rgb8 c) {
    int n = 0;
    for (int y = r.y; y < r.bottom(); ++y)
        for (int x = r.x; x < r.right(); ++x) n += !(img.at(x, y) == c);
    return n;
}

}  // namespace

TEST(FigureText, ValueTextHasTwoSignificantDigitsAndBlankZeros) {
    EXPECT_EQ(hs::cell_value_text(0.0f), "");  // a masked cell
    EXPECT_EQ(hs::cell_value_text(0.00703f), "0.007");
    EXPECT_EQ(hs::cell_value_text(0.0161f), "0.016");
    EXPECT_EQ(hs::cell_value_text(0.25f), "0.25");
    EXPECT_EQ(hs::cell_value_text(0.996f), "1.00");
    EXPECT_EQ(hs::cell_value_text(1.0f), "1.00");  // as 0.996 beside it: one format in a column
    EXPECT_EQ(hs::cell_value_text(3.14159f), "3.14");
    EXPECT_EQ(hs::cell_value_text(9.999f), "10");
    EXPECT_EQ(hs::cell_value_text(12.345f), "12.3");
    EXPECT_EQ(hs::cell_value_text(-0.5f), "-0.50");
    EXPECT_EQ(hs::cell_value_text(0.0004f), "4e-04");
}

TEST(FigureText, ColorbarTicksAreNiceValuesBetweenTheEnds) {
    const std::vector<float> unit = hs::detail::colorbar_ticks(0.0f, 1.0f);
    const std::vector<float> want{0.0f, 0.2f, 0.4f, 0.6f, 0.8f, 1.0f};
    ASSERT_EQ(unit.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(unit[i], want[i], 1e-6f);
    // 0.93: the interior 0.2 … 0.8 and both ends (0.8 is clear of 0.93 by more than 0.04).
    const std::vector<float> odd = hs::detail::colorbar_ticks(0.0f, 0.93f);
    ASSERT_EQ(odd.size(), 6u);
    EXPECT_FLOAT_EQ(odd.back(), 0.93f);
    EXPECT_NEAR(odd[4], 0.8f, 1e-6f);
    // -3 … 7: step 2 → -3, -2, 0, 2, 4, 6, 7.
    const std::vector<float> wide = hs::detail::colorbar_ticks(-3.0f, 7.0f);
    EXPECT_EQ(wide, (std::vector<float>{-3, -2, 0, 2, 4, 6, 7}));
    EXPECT_EQ(hs::detail::colorbar_ticks(0.5f, 0.5f), std::vector<float>{0.5f});
}

// Under a log scale or a gamma the bar is the colormap evenly (as in the window) and its
// ticks sit where their colours are: values at t = 0, 0.2, …, 1 with one significant
// digit. log over [0, 1]: v(t) = (1000^t − 1)/999 = 0.00298, 0.0149, 0.0622, 0.250;
// gamma ½: v(t) = t² = 0.04, 0.16, 0.36, 0.64.
TEST(FigureText, ColorbarTicksFollowALogScaleOrAGamma) {
    hs::ColorScale log_scale;
    log_scale.log = true;
    const std::vector<float> log_ticks = hs::detail::colorbar_ticks(log_scale);
    const std::vector<float> log_want{0.0f, 0.003f, 0.01f, 0.06f, 0.3f, 1.0f};
    ASSERT_EQ(log_ticks.size(), log_want.size());
    for (std::size_t i = 0; i < log_want.size(); ++i) EXPECT_NEAR(log_ticks[i], log_want[i], 1e-7f) << i;
    hs::ColorScale gamma_scale;
    gamma_scale.gamma = 0.5f;
    const std::vector<float> gamma_ticks = hs::detail::colorbar_ticks(gamma_scale);
    const std::vector<float> gamma_want{0.0f, 0.04f, 0.2f, 0.4f, 0.6f, 1.0f};
    ASSERT_EQ(gamma_ticks.size(), gamma_want.size());
    for (std::size_t i = 0; i < gamma_want.size(); ++i) EXPECT_NEAR(gamma_ticks[i], gamma_want[i], 1e-7f) << i;
    EXPECT_EQ(hs::detail::colorbar_ticks(hs::ColorScale{}), hs::detail::colorbar_ticks(0.0f, 1.0f));  // linear
    // Far from 0 the offsets from lo are rounded: log over [0.9, 1] is 0.9 + (0, 0.0003,
    // 0.001, 0.006, 0.03, 0.1), not {0.9, 1}.
    hs::ColorScale high = log_scale;
    high.lo = 0.9f;
    const std::vector<float> high_ticks = hs::detail::colorbar_ticks(high);
    const std::vector<float> high_want{0.9f, 0.9003f, 0.901f, 0.906f, 0.93f, 1.0f};
    ASSERT_EQ(high_ticks.size(), high_want.size());
    for (std::size_t i = 0; i < high_want.size(); ++i) EXPECT_NEAR(high_ticks[i], high_want[i], 2e-7f) << i;
    EXPECT_EQ(hs::detail::tick_texts(high_ticks),
              (std::vector<std::string>{"0.9", "0.9003", "0.901", "0.906", "0.93", "1"}));
    EXPECT_EQ(hs::detail::tick_texts({0.0f, 0.25f, 1.0f}), (std::vector<std::string>{"0", "0.25", "1"}));

    // The bar's middle row has the colormap's middle colour (index 127 or 128), not the
    // colour of the value 0.5 (index 230 under log, which crowded the dark colours at the bottom).
    hs::HeatmapOptions opt;
    opt.auto_range = false;
    opt.scale = log_scale;
    const hs::HeatmapImage img = hs::render_heatmap(hs::Matrix::Constant(4, 4, 0.5f), {}, {}, opt);
    const hs::PixelRect bar = img.layout.colorbar;
    ASSERT_GT(bar.height, 50);
    const hs::Rgb8 mid = img.image.at(bar.x + bar.width / 2, bar.y + (bar.height - 1) / 2);
    const auto& lut = hs::colormap_lut(opt.colormap);
    EXPECT_TRUE(mid == lut[127] || mid == lut[128]) << int(mid.r) << "," << int(mid.g) << "," << int(mid.b);
}

TEST(FigureText, TitleNamesModelWhatAndAShortenedText) {
    EXPECT_EQ(hs::figure_title("/data/models/stories260K/", "layer 1 · head 2", "Once  upon\na time"),
              "stories260K · layer 1 · head 2 · \"Once upon a time\"");
    EXPECT_EQ(hs::figure_title("random:d_model=8,heads=2,layers=1,seed=3,mask=causal", "grid", ""),
              "playground (d_model=8, heads=2, layers=1) · grid");
    EXPECT_EQ(hs::figure_title("m", "w", "abcdefghij", 5), "m · w · \"abcd…\"");
}

TEST(SvgText, EscapesMarkupDropsControlsAndRepairsUtf8) {
    EXPECT_EQ(hs::xml_escape("<0xE9> & \"x\" 'y'"), "&lt;0xE9&gt; &amp; &quot;x&quot; &apos;y&apos;");
    EXPECT_EQ(hs::xml_escape(std::string("a\x01\tb\x7f")), "ab");
    EXPECT_EQ(hs::xml_escape("\xE9"), "\xEF\xBF\xBD");  // a lone byte → U+FFFD
    EXPECT_EQ(hs::xml_escape("秦始皇"), "秦始皇");
}

TEST(SvgText, Base64MatchesTheRfc4648Vectors) {
    EXPECT_EQ(hs::base64(""), "");
    EXPECT_EQ(hs::base64("f"), "Zg==");
    EXPECT_EQ(hs::base64("fo"), "Zm8=");
    EXPECT_EQ(hs::base64("foo"), "Zm9v");
    EXPECT_EQ(hs::base64("foob"), "Zm9vYg==");
    EXPECT_EQ(hs::base64("foobar"), "Zm9vYmFy");
    EXPECT_EQ(hs::base64(std::string("\xff\x00\x10", 3)), "/wAQ");
}

TEST(Figure, ValuesArePrintedInCellsWideEnoughForThem) {
    if (!have_font()) GTEST_SKIP() << "no system font installed";
    hs::Matrix m(2, 2);
    m << 0.9f, 0.1f, 0.00703f, 0.0f;
    hs::HeatmapOptions opt;
    opt.cell_values = true;
    const hs::HeatmapImage big = hs::render_heatmap(m, {}, {}, opt);
    ASSERT_TRUE(big.layout.cell_values);
    ASSERT_GE(big.layout.cell_px, 100);
    // Text over (0, 0), (0, 1), (1, 0); the zero (masked) cell stays one colour.
    for (const auto& [i, j] : {std::pair{0, 0}, std::pair{0, 1}, std::pair{1, 0}}) {
        const hs::PixelRect c = big.layout.cell(i, j);
        EXPECT_GT(pixels_unlike(big.image, c, hs::colorize(m(i, j), opt.colormap, opt.scale)), 20)
            << "cell " << i << "," << j;
    }
    const hs::PixelRect zero = big.layout.cell(1, 1);
    EXPECT_EQ(pixels_unlike(big.image, zero, hs::colorize(0.0f, opt.colormap, opt.scale)), 0);
    // 300 × 300 cells of 2 px cannot hold a number: no values, cells untouched.
    hs::Matrix many = hs::Matrix::Constant(300, 300, 0.5f);
    const hs::HeatmapImage small = hs::render_heatmap(many, {}, {}, opt);
    EXPECT_FALSE(small.layout.cell_values);
}

// A grid prints values in every thumbnail or in none. Shape of the window's default grid
// (4 layers × 8 heads, 8 tokens): "0.50" fits a thumbnail's cell, "0.055" does not; one head
// of 0.055s used to leave numbers in the others and none in it.
TEST(Figure, AGridPrintsValuesInEveryThumbnailOrInNone) {
    if (!have_font()) GTEST_SKIP() << "no system font installed";
    const hs::Matrix short_values = hs::Matrix::Constant(8, 8, 0.5f), long_values = hs::Matrix::Constant(8, 8, 0.055f);
    hs::HeatmapOptions opt;
    opt.cell_values = true;
    opt.auto_range = false;
    opt.scale = {0.0f, 1.0f};
    const auto grid_of = [](const hs::Matrix& first, const hs::Matrix& rest) {
        std::vector<std::vector<hs::Matrix>> maps(4, std::vector<hs::Matrix>(8, rest));
        maps[0][0] = first;
        return maps;
    };
    // Ink over cell (0, 0) of thumbnail (l, h) of value v.
    const auto ink = [&](const hs::GridImage& g, int l, int h, float v) {
        return pixels_unlike(g.image, g.layout.cell(l, h, 0, 0), hs::colorize(v, opt.colormap, opt.scale));
    };
    const hs::GridImage all_short = hs::render_grid(grid_of(short_values, short_values), {}, {}, opt);
    ASSERT_GT(ink(all_short, 0, 0, 0.5f), 5) << "0.50 should fit a cell of " << all_short.layout.cell_px << " px";
    const hs::GridImage all_long = hs::render_grid(grid_of(long_values, long_values), {}, {}, opt);
    ASSERT_EQ(ink(all_long, 0, 0, 0.055f), 0) << "0.055 should not fit a cell of " << all_long.layout.cell_px << " px";
    const hs::GridImage mixed = hs::render_grid(grid_of(long_values, short_values), {}, {}, opt);
    EXPECT_EQ(ink(mixed, 0, 1, 0.5f), 0);
    EXPECT_EQ(ink(mixed, 3, 7, 0.5f), 0);
    EXPECT_EQ(ink(mixed, 0, 0, 0.055f), 0);
}

TEST(Figure, ColumnLabelsStandUprightWhenTheyFitTheirCells) {
    if (!have_font()) GTEST_SKIP() << "no system font installed";
    hs::HeatmapOptions opt;
    const hs::Matrix m = hs::Matrix::Constant(3, 3, 0.3f);
    const hs::HeatmapImage wide = hs::render_heatmap(m, {"我", "是", "谁"}, {"我", "是", "谁"}, opt);
    EXPECT_TRUE(wide.layout.upright_col_labels);
    EXPECT_LE(wide.layout.col_labels.height, opt.font_px + 1 + 6);  // one line of text
    std::vector<std::string> words;
    for (int i = 0; i < 60; ++i) words.push_back("word" + std::to_string(i));
    const hs::HeatmapImage narrow =
        hs::render_heatmap(hs::Matrix::Constant(60, 60, 0.3f), words, words, opt);
    EXPECT_FALSE(narrow.layout.upright_col_labels);
    EXPECT_GT(narrow.layout.col_labels.height, 2 * opt.font_px);  // rotated: as tall as a word is wide
}

TEST(Figure, AxisTitlesWidenTheMarginsAndDrawText) {
    if (!have_font()) GTEST_SKIP() << "no system font installed";
    const hs::Matrix m = hs::Matrix::Constant(4, 4, 0.3f);
    hs::HeatmapOptions opt;
    const hs::HeatmapImage plain = hs::render_heatmap(m, {"a", "b", "c", "d"}, {"a", "b", "c", "d"}, opt);
    opt.row_axis_title = "query";
    opt.col_axis_title = "key";
    const hs::HeatmapImage titled = hs::render_heatmap(m, {"a", "b", "c", "d"}, {"a", "b", "c", "d"}, opt);
    EXPECT_GT(titled.layout.map.x, plain.layout.map.x);
    EXPECT_GT(titled.layout.map.y, plain.layout.map.y);
    // Dark text left of the row labels and above the column labels.
    int dark_left = 0, dark_above = 0;
    for (int y = 0; y < titled.image.height(); ++y)
        for (int x = 0; x < titled.image.width(); ++x) {
            const hs::Rgb8 c = titled.image.at(x, y);
            if (c.r + c.g + c.b >= 3 * 128) continue;
            dark_left += x < titled.layout.row_labels.x && y >= titled.layout.map.y;
            dark_above += y < titled.layout.col_labels.y && x >= titled.layout.map.x &&
                          x < titled.layout.map.right();
        }
    EXPECT_GT(dark_left, 15);
    EXPECT_GT(dark_above, 15);
}

TEST(Figure, ScaleTwoDoublesEverySize) {
    const hs::Matrix m = hs::Matrix::Constant(4, 4, 0.3f);  // 768 / 4 cells: no rounding
    hs::HeatmapOptions opt;
    opt.draw_text = false;  // text metrics round differently at 2×; the frame must not
    const hs::HeatmapImage one = hs::render_heatmap(m, {}, {}, opt);
    opt.figure_scale = 2;
    const hs::HeatmapImage two = hs::render_heatmap(m, {}, {}, opt);
    EXPECT_EQ(two.layout.cell_px, 2 * one.layout.cell_px);
    EXPECT_EQ(two.image.width(), 2 * one.image.width());
    EXPECT_EQ(two.image.height(), 2 * one.image.height());
    // A 300-token map: 768 / 300 = 2 px cells at 1×, so 4 px at 2× and 8 px at 4× (not
    // 1536 / 300 = 5 and 3072 / 300 = 10).
    const hs::Matrix long_map = hs::Matrix::Constant(300, 300, 0.3f);
    opt.figure_scale = 1;
    const int cell_one = hs::render_heatmap(long_map, {}, {}, opt).layout.cell_px;
    EXPECT_EQ(cell_one, 2);
    opt.figure_scale = 2;
    EXPECT_EQ(hs::render_heatmap(long_map, {}, {}, opt).layout.cell_px, 2 * cell_one);
    opt.figure_scale = 4;
    EXPECT_EQ(hs::render_heatmap(long_map, {}, {}, opt).layout.cell_px, 4 * cell_one);
}

TEST(Svg, HeadFigureIsWellFormedWithEveryLabelAsTextAndThePngLayout) {
    const std::vector<std::string> q{"<bos>", "Alice", "&", "他", "\"quoted\""};
    hs::Matrix m = hs::Matrix::Constant(5, 5, 0.2f);
    hs::HeatmapOptions opt;
    opt.cell_values = true;
    opt.title = "default · layer 0 · head 3";
    opt.row_axis_title = "query";
    opt.col_axis_title = "key";
    const hs::HeatmapSvg svg = hs::render_heatmap_svg(m, q, q, opt);
    const hs::HeatmapImage png = hs::render_heatmap(m, q, q, opt);
    EXPECT_EQ(hs::test::xml_problem(svg.svg), "");
    EXPECT_EQ(svg.layout.map, png.layout.map);
    EXPECT_EQ(svg.layout.colorbar, png.layout.colorbar);
    EXPECT_NE(svg.svg.find("width=\"" + std::to_string(png.image.width()) + "\""), std::string::npos);
    EXPECT_EQ(count(svg.svg, "<rect x="), 25 + 0 + 4 + png.layout.colorbar.height + 6 /* ticks */);
    if (!have_font()) GTEST_SKIP() << "no system font installed: the SVG has no text to check";
    for (const char* label : {"&lt;bos&gt;", "Alice", "&amp;", "他", "&quot;quoted&quot;"})
        EXPECT_EQ(count(svg.svg, ">" + std::string(label) + "</text>"), 2) << label;  // row and column
    EXPECT_EQ(count(svg.svg, ">0.20</text>"), 25);
    EXPECT_EQ(count(svg.svg, ">query</text>"), 1);
    EXPECT_EQ(count(svg.svg, ">default · layer 0 · head 3</text>"), 1);
}

// A token of spaces is labelled ␣ (one a space), a newline "\n": a blank label said nothing
// (the attention sink of a real model sat in an unlabelled column).
TEST(Svg, SpaceAndControlTokensAreLabelledVisibly) {
    if (!have_font()) GTEST_SKIP() << "no system font installed: the SVG has no text to check";
    const std::vector<std::string> q{" ", "a", "  ", "\n"};
    const hs::HeatmapSvg svg = hs::render_heatmap_svg(hs::Matrix::Constant(4, 4, 0.25f), q, q, hs::HeatmapOptions{});
    EXPECT_EQ(count(svg.svg, ">␣</text>"), 2);
    EXPECT_EQ(count(svg.svg, ">␣␣</text>"), 2);
    EXPECT_EQ(count(svg.svg, ">\\n</text>"), 2);
    EXPECT_EQ(count(svg.svg, "> </text>"), 0);
    EXPECT_EQ(hs::visible_token("\x1b"), "\\x1b");
    EXPECT_EQ(hs::visible_token(" a"), " a");  // a word with its space stays as written
}

TEST(Svg, LargeMapsAreOneEmbeddedImage) {
    const hs::Matrix m = hs::Matrix::Constant(600, 600, 0.5f);
    hs::HeatmapOptions opt;
    opt.draw_text = false;
    const hs::HeatmapSvg svg = hs::render_heatmap_svg(m, {}, {}, opt);
    EXPECT_EQ(hs::test::xml_problem(svg.svg), "");
    EXPECT_EQ(count(svg.svg, "<image "), 1);
    EXPECT_EQ(count(svg.svg, "data:image/png;base64,iVBORw0KGgo"), 1);  // the PNG signature
    EXPECT_LT(count(svg.svg, "<rect "), 1000);
}

TEST(Svg, GridFigureIsWellFormedWithEveryCaption) {
    std::vector<std::vector<hs::Matrix>> maps(2, std::vector<hs::Matrix>(3, hs::Matrix::Constant(4, 4, 0.25f)));
    hs::HeatmapOptions opt;
    const hs::GridSvg svg = hs::render_grid_svg(maps, {"a", "b", "c", "d"}, {"a", "b", "c", "d"}, opt);
    const hs::GridImage png = hs::render_grid(maps, {"a", "b", "c", "d"}, {"a", "b", "c", "d"}, opt);
    EXPECT_EQ(hs::test::xml_problem(svg.svg), "");
    EXPECT_EQ(svg.layout.thumbs, png.layout.thumbs);
    if (!have_font()) GTEST_SKIP() << "no system font installed: the SVG has no text to check";
    for (int l = 0; l < 2; ++l)
        for (int h = 0; h < 3; ++h)
            EXPECT_EQ(count(svg.svg, ">L" + std::to_string(l) + ".H" + std::to_string(h) + "</text>"), 1);
}

TEST(FileNames, StemsKeepSafeCharactersOnly) {
    EXPECT_EQ(hs::file_stem("random:d_model=8,heads=2"), "random_d_model_8_heads_2");
    EXPECT_EQ(hs::file_stem("../../etc/passwd"), "etc_passwd");
    EXPECT_EQ(hs::file_stem("小明"), "headscope");
    EXPECT_EQ(hs::file_stem("stories260K"), "stories260K");
    EXPECT_EQ(hs::file_stem("abcdefghij", 4), "abcd");
}

TEST(FileNames, ExpandHomeReadsALeadingTildeAsAShellWould) {
    EXPECT_EQ(hs::expand_home("~/models/gpt2", "/home/ann"), "/home/ann/models/gpt2");
    EXPECT_EQ(hs::expand_home("~", "/home/ann"), "/home/ann");
    EXPECT_EQ(hs::expand_home("~/", "/home/ann/"), "/home/ann/");  // no doubled slash
    EXPECT_EQ(hs::expand_home("~/x", "/"), "/x");
    EXPECT_EQ(hs::expand_home("~bob/x", "/home/ann"), "~bob/x");  // another user's: left as typed
    EXPECT_EQ(hs::expand_home("a/~/b", "/home/ann"), "a/~/b");    // only a leading tilde
    EXPECT_EQ(hs::expand_home("/abs/path", "/home/ann"), "/abs/path");
    EXPECT_EQ(hs::expand_home("~/x", ""), "~/x");  // no home known
    EXPECT_EQ(hs::expand_home("", "/home/ann"), "");
}

TEST(FileNames, UnusedPathNeverNamesAnExistingFile) {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                      ("headscope_file_names_test_" + std::to_string(::getpid())) / "new";
    std::filesystem::remove_all(dir.parent_path());
    const std::string first = hs::unused_path(dir.string(), "m_L0_H3", "png");  // creates the folder
    EXPECT_EQ(first, (dir / "m_L0_H3.png").string());
    EXPECT_TRUE(std::filesystem::is_directory(dir));
    std::ofstream(first) << "x";
    EXPECT_EQ(hs::unused_path(dir.string(), "m_L0_H3", "png"), (dir / "m_L0_H3-2.png").string());
    std::ofstream((dir / "m_L0_H3-2.png").string()) << "x";
    std::filesystem::create_symlink(dir / "nowhere", dir / "m_L0_H3-3.png");  // a dangling link is taken too
    EXPECT_EQ(hs::unused_path(dir.string(), "m_L0_H3", "png"), (dir / "m_L0_H3-4.png").string());
    EXPECT_EQ(hs::unused_path(dir.string(), "m_L0_H3", "svg"), (dir / "m_L0_H3.svg").string());
    // A file where the folder should be: a clear error.
    EXPECT_THROW((void)hs::unused_path(first, "x", "png"), hs::Error);
    std::filesystem::remove_all(dir.parent_path());
}

TEST(FigureFile, FormatFollowsTheExtension) {
    EXPECT_EQ(hs::figure_format_of("a/b.PNG"), hs::FigureFormat::Png);
    EXPECT_EQ(hs::figure_format_of("x.svg"), hs::FigureFormat::Svg);
    EXPECT_THROW((void)hs::figure_format_of("x.jpg"), hs::Error);
    EXPECT_THROW((void)hs::figure_format_of("noext"), hs::Error);
}

TEST(RobustRange, AFewOutliersDoNotSetTheTopOfALongMap) {
    // 100 × 100 weights of 1e-4, five of them 1.0 (0.05 % of the cells).
    hs::Matrix m = hs::Matrix::Constant(100, 100, 1e-4f);
    for (int k = 0; k < 5; ++k) m(k * 20, k) = 1.0f;
    const float top = hs::robust_high(m, 1e-4f, 1.0f);
    EXPECT_GE(top, 1e-4f);
    EXPECT_LE(top, 1e-4f + 1.0f / 4096.0f);  // the upper edge of 1e-4's bin
    hs::HeatmapOptions opt;
    opt.auto_range = true;
    opt.draw_text = false;
    const hs::HeatmapImage img = hs::render_heatmap(m, {}, {}, opt);
    EXPECT_TRUE(img.layout.clipped_high);
    EXPECT_FLOAT_EQ(img.layout.scale.hi, top);
    // Small maps keep their max: every value counts there.
    const hs::Matrix small = m.topLeftCorner(20, 20);
    EXPECT_EQ(hs::robust_high(small, 1e-4f, 1.0f), 1.0f);
}

TEST(RobustRange, MatchesTheExactQuantileWithinOneBin) {
    // Values i² / n² for i = 0 … n−1 (a skewed spread), shuffled into a 250 × 200 map.
    const int n = 50000;
    hs::Matrix m(250, 200);
    std::vector<float> values;
    for (int i = 0; i < n; ++i) values.push_back(static_cast<float>(i) * i / (static_cast<float>(n) * n));
    for (int i = 0; i < n; ++i) m.data()[(i * 7919) % n] = values[i];  // 7919 is prime: a permutation
    const float lo = values.front(), hi = values.back();
    std::vector<float> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    const float exact = sorted[static_cast<std::size_t>((static_cast<long long>(n) * 999 + 999) / 1000 - 1)];
    const float top = hs::robust_high(m, lo, hi);
    EXPECT_GE(top, exact);
    EXPECT_LE(top, exact + (hi - lo) / 4096.0f);
}

TEST(LabelThinning, WordStartsFollowTheTokenizersMarks) {
    const std::vector<std::string> sp{"<s>", "▁Once", "▁up", "on", "▁a", "▁time"};
    EXPECT_TRUE(hs::word_starts(sp)[0]);
    EXPECT_TRUE(hs::word_starts(sp)[1]);
    EXPECT_FALSE(hs::word_starts(sp)[3]);  // "on" continues "▁up"
    const std::vector<std::string> wp{"[CLS]", "play", "##ing", "games"};
    EXPECT_TRUE(hs::word_starts(wp)[1]);
    EXPECT_FALSE(hs::word_starts(wp)[2]);
    EXPECT_TRUE(hs::word_starts(wp)[3]);  // no marks in use: every non-## piece starts a word
    const std::vector<std::string> zh{"Ġthe", "我", "是"};
    EXPECT_TRUE(hs::word_starts(zh)[2]);  // CJK characters stand alone
}

TEST(LabelThinning, AChineseNameIsOneWordNotTwoStarts) {
    // The default model reads Chinese a character per token; 李娜 and 老师 are words of its grammar.
    const std::vector<std::string> zh{"<bos>", "他", "说", "李", "娜", "是", "老", "师", "。"};
    EXPECT_TRUE(hs::word_starts(zh)[3]);   // 李
    EXPECT_FALSE(hs::word_starts(zh)[4]);  // 娜 continues 李娜
    EXPECT_FALSE(hs::word_starts(zh)[7]);  // 师 continues 老师
    EXPECT_TRUE(hs::word_starts(zh)[8]);   // 。
    // Every other label: 0, 2 (说), then 娜 is no start, so 是 (5); 师 is none, so 。 (8).
    EXPECT_EQ(hs::thinned_labels(zh, 0, 9, 2), (std::vector<int>{0, 2, 5, 8}));
    const hs::TokenWords words = hs::token_words(zh);
    EXPECT_EQ(words.words[static_cast<std::size_t>(words.word_of[4])], "李娜");
    EXPECT_EQ(words.word_first[static_cast<std::size_t>(words.word_of[4])], 3);
    // An unknown pair (北京 is not a grammar word) stays two characters.
    EXPECT_TRUE(hs::word_starts({"去", "北", "京"})[2]);
}

TEST(LabelThinning, ALineBreakEndsTheWordBeforeIt) {
    // stories260K: "happy.\nThe" has no ▁ on "The" (no space before it); GPT-2 writes Ċ.
    const std::vector<std::string> sp{"<s>", "▁happy", ".", "<0x0A>", "The", "▁end"};
    EXPECT_FALSE(hs::word_starts(sp)[2]);  // "." continues "▁happy"
    EXPECT_TRUE(hs::word_starts(sp)[3]);   // the line break is a word of its own
    EXPECT_TRUE(hs::word_starts(sp)[4]);   // and the next line starts one
    const std::vector<std::string> gpt2{"ĠHello", "ĊĊ", "World"};  // Ġ marks starts: "World" has none
    EXPECT_TRUE(hs::word_starts(gpt2)[1]);
    EXPECT_TRUE(hs::word_starts(gpt2)[2]);
    EXPECT_FALSE(hs::word_starts({"▁a", "b<0x0A>"})[1]);  // a piece that only ends in one is no break
}

TEST(LabelThinning, KeepsStepSpacingAndPrefersWordStarts) {
    // "▁alpha" pieces: words of 3 tokens; step 2 lands on word starts 0, 3, 6, 9.
    std::vector<std::string> tokens;
    for (int w = 0; w < 4; ++w)
        for (const char* piece : {"▁ab", "cd", "ef"}) tokens.push_back(piece);
    EXPECT_EQ(hs::thinned_labels(tokens, 0, 12, 2), (std::vector<int>{0, 3, 6, 9}));
    EXPECT_EQ(hs::thinned_labels(tokens, 0, 12, 1).size(), 12u);  // room for all
    // No word start for 2·step − 1 tokens: the token there is taken anyway.
    std::vector<std::string> pieces(10, "x");
    pieces[0] = "▁x";
    EXPECT_EQ(hs::thinned_labels(pieces, 0, 10, 3), (std::vector<int>{0, 5}));
    // Spacing holds for any input.
    std::vector<std::string> mixed;
    for (int i = 0; i < 200; ++i) mixed.push_back(i % 7 == 0 || i % 5 == 0 ? "▁w" : "p");
    const std::vector<int> kept = hs::thinned_labels(mixed, 0, 200, 4);
    for (std::size_t k = 1; k < kept.size(); ++k) EXPECT_GE(kept[k] - kept[k - 1], 4);
    for (std::size_t k = 1; k < kept.size(); ++k) EXPECT_LE(kept[k] - kept[k - 1], 7);
}
