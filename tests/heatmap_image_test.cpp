// render_heatmap / render_grid: sizes, exact cell colours via colorize(), labels, layout.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/error.h"
#include "core/image/box_mean.h"
#include "core/image/font.h"
#include "core/image/heatmap_image.h"
#include "tests/test_util.h"

namespace {

using hs::test::error_of;

hs::Matrix ramp(int rows, int cols) {
    // m(i, j) = (i·cols + j) / (rows·cols − 1): every cell distinct, spanning [0, 1].
    hs::Matrix m(rows, cols);
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j)
            m(i, j) = static_cast<float>(i * cols + j) / static_cast<float>(rows * cols - 1);
    return m;
}

std::vector<std::string> labels(int n, const std::string& prefix) {
    std::vector<std::string> out;
    for (int i = 0; i < n; ++i) out.push_back(prefix + std::to_string(i));
    return out;
}

// Pixels darker than mid-grey inside r (clipped to the image).
int dark_pixels(const hs::RgbImage& img, const hs::PixelRect& r) {
    int n = 0;
    for (int y = std::max(0, r.y); y < std::min(img.height(), r.bottom()); ++y)
        for (int x = std::max(0, r.x); x < std::min(img.width(), r.right()); ++x) {
            const hs::Rgb8 c = img.at(x, y);
            if (c.r + c.g + c.b < 3 * 128) ++n;
        }
    return n;
}

bool have_font() { return hs::Font::system_default().available(); }

}  // namespace

TEST(RenderHeatmap, CellCentresEqualColorize) {
    const hs::Matrix m = ramp(5, 7);
    for (hs::Colormap cmap : hs::all_colormaps()) {
        SCOPED_TRACE(hs::to_string(cmap));
        hs::HeatmapOptions opt;
        opt.colormap = cmap;
        opt.scale = hs::ColorScale{.lo = 0.0f, .hi = 1.0f, .gamma = 0.7f};
        const hs::HeatmapImage out = hs::render_heatmap(m, labels(5, "q"), labels(7, "k"), opt);
        for (int i = 0; i < 5; ++i)
            for (int j = 0; j < 7; ++j) {
                const hs::PixelRect c = out.layout.cell(i, j);
                EXPECT_EQ(out.image.at(c.center_x(), c.center_y()), hs::colorize(m(i, j), cmap, opt.scale))
                    << "cell " << i << "," << j;
                // The whole block is one colour: check its corners too.
                EXPECT_EQ(out.image.at(c.x, c.y), out.image.at(c.right() - 1, c.bottom() - 1));
            }
    }
}

TEST(RenderHeatmap, AutoCellSizeIsLargeForSmallMapsAndBoundedForLargeOnes) {
    hs::HeatmapOptions opt;
    const auto small = hs::render_heatmap(ramp(4, 4), {}, {}, opt);
    EXPECT_EQ(small.layout.cell_px, 768 / 4);
    EXPECT_EQ(small.layout.map.width, 4 * small.layout.cell_px);
    EXPECT_EQ(small.layout.map.height, 4 * small.layout.cell_px);
    EXPECT_TRUE(small.image.width() >= small.layout.map.right());

    const auto large = hs::render_heatmap(ramp(3000, 3000), {}, {}, opt);
    EXPECT_EQ(large.layout.cell_px, 1);
    EXPECT_LE(large.image.width(), 4096);
    EXPECT_LE(large.image.height(), 4096);

    opt.cell_px = 3;
    const auto fixed = hs::render_heatmap(ramp(2, 5), {}, {}, opt);
    EXPECT_EQ(fixed.layout.map.width, 15);
    EXPECT_EQ(fixed.layout.map.height, 6);
}

TEST(RenderHeatmap, ImageIsWhiteOutsideMapAndColorbar) {
    hs::HeatmapOptions opt;
    opt.draw_text = false;
    const auto out = hs::render_heatmap(ramp(3, 3), {}, {}, opt);
    EXPECT_EQ(out.image.at(0, 0), (hs::Rgb8{255, 255, 255}));
    EXPECT_EQ(out.image.at(out.image.width() - 1, out.image.height() - 1), (hs::Rgb8{255, 255, 255}));
}

TEST(RenderHeatmap, ColorbarRunsFromHiAtTopToLoAtBottom) {
    hs::HeatmapOptions opt;
    opt.colormap = hs::Colormap::Magma;
    opt.scale = hs::ColorScale{.lo = -2.0f, .hi = 3.0f};
    const auto out = hs::render_heatmap(ramp(6, 6), {}, {}, opt);
    const hs::PixelRect bar = out.layout.colorbar;
    EXPECT_EQ(out.image.at(bar.center_x(), bar.y), hs::colorize(3.0f, opt.colormap, opt.scale));
    EXPECT_EQ(out.image.at(bar.center_x(), bar.bottom() - 1), hs::colorize(-2.0f, opt.colormap, opt.scale));
}

TEST(RenderHeatmap, AutoRangeUsesDataMinAndMax) {
    hs::Matrix m(1, 3);
    m << 10.0f, 15.0f, 20.0f;
    hs::HeatmapOptions opt;
    opt.auto_range = true;
    const auto out = hs::render_heatmap(m, {}, {}, opt);
    EXPECT_FLOAT_EQ(out.layout.scale.lo, 10.0f);
    EXPECT_FLOAT_EQ(out.layout.scale.hi, 20.0f);
    const auto& lut = hs::colormap_lut(opt.colormap);
    EXPECT_EQ(out.image.at(out.layout.cell(0, 0).center_x(), out.layout.cell(0, 0).center_y()), lut[0]);
    EXPECT_EQ(out.image.at(out.layout.cell(0, 1).center_x(), out.layout.cell(0, 1).center_y()), lut[128]);
    EXPECT_EQ(out.image.at(out.layout.cell(0, 2).center_x(), out.layout.cell(0, 2).center_y()), lut[255]);
}

TEST(RenderHeatmap, LabelsAndTitleDrawDarkPixels) {
    if (!have_font()) GTEST_SKIP() << "no system font installed";
    hs::HeatmapOptions opt;
    opt.title = "Layer 0 head 3";
    const auto out = hs::render_heatmap(ramp(4, 4), {"The", "cat", "sat", "down"},
                                        {"The", "cat", "sat", "down"}, opt);
    const auto& layout = out.layout;
    EXPECT_GT(layout.row_labels.width, 0);
    EXPECT_GT(layout.col_labels.height, 0);
    EXPECT_GT(dark_pixels(out.image, layout.row_labels), 20);
    EXPECT_GT(dark_pixels(out.image, layout.col_labels), 20);
    EXPECT_GT(dark_pixels(out.image, layout.title), 20);
    // Without labels the bands collapse and nothing is drawn there.
    const auto bare = hs::render_heatmap(ramp(4, 4), {}, {}, hs::HeatmapOptions{});
    EXPECT_EQ(bare.layout.row_labels.width, 0);
    EXPECT_EQ(bare.layout.col_labels.height, 0);
    EXPECT_LT(bare.image.width(), out.image.width());
}

TEST(RenderHeatmap, ChineseLabelsRender) {
    if (!hs::Font::system_default().has_glyph(U'秦')) GTEST_SKIP() << "no CJK font installed";
    hs::HeatmapOptions opt;
    const auto out = hs::render_heatmap(ramp(5, 5), {"我", "是", "秦", "始", "皇"},
                                        {"我", "是", "秦", "始", "皇"}, opt);
    EXPECT_GT(dark_pixels(out.image, out.layout.row_labels), 50);
    EXPECT_GT(dark_pixels(out.image, out.layout.col_labels), 50);
}

TEST(RenderHeatmap, WithoutTextStillRendersTheMap) {
    hs::HeatmapOptions opt;
    opt.draw_text = false;
    opt.title = "ignored";
    const auto out = hs::render_heatmap(ramp(3, 4), labels(3, "q"), labels(4, "k"), opt);
    EXPECT_EQ(out.layout.row_labels.width, 0);
    EXPECT_EQ(out.layout.title, hs::PixelRect{});
    const hs::PixelRect c = out.layout.cell(2, 3);
    EXPECT_EQ(out.image.at(c.center_x(), c.center_y()), hs::colorize(1.0f, opt.colormap, opt.scale));
}

TEST(RenderHeatmap, FontWithoutFacesDrawsNoText) {
    const hs::Font none({{"/nonexistent/font.ttf", 0}});
    EXPECT_FALSE(none.available());
    hs::HeatmapOptions opt;
    opt.font = &none;
    opt.title = "title";
    const auto out = hs::render_heatmap(ramp(3, 3), labels(3, "q"), labels(3, "k"), opt);
    EXPECT_EQ(out.layout.row_labels.width, 0);
    EXPECT_EQ(out.layout.col_labels.height, 0);
    EXPECT_FALSE(out.image.empty());
}

TEST(RenderHeatmap, RejectsEmptyMapAndWrongLabelCount) {
    hs::HeatmapOptions opt;
    EXPECT_EQ(error_of([&] { hs::render_heatmap(hs::Matrix(0, 0), {}, {}, opt); }),
              "cannot render an empty attention map (0x0)");
    EXPECT_EQ(error_of([&] { hs::render_heatmap(ramp(3, 2), labels(2, "q"), {}, opt); }),
              "got 2 row labels for a map with 3 rows; pass one label per row or none");
}

TEST(RenderGrid, ThumbnailCellsEqualColorizeWithSharedScale) {
    // maps[l][h] = ramp · (1 + l·H + h) / 6 so heads differ; auto range over all maps.
    const int L = 2, H = 3;
    std::vector<std::vector<hs::Matrix>> maps(L);
    for (int l = 0; l < L; ++l)
        for (int h = 0; h < H; ++h) maps[l].push_back(ramp(4, 4) * (1.0f + l * H + h) / 6.0f);
    hs::HeatmapOptions opt;
    opt.auto_range = true;
    opt.title = "all heads";
    const auto out = hs::render_grid(maps, labels(4, "q"), labels(4, "k"), opt);
    const auto& grid = out.layout;
    EXPECT_EQ(grid.layers, L);
    EXPECT_EQ(grid.heads, H);
    EXPECT_EQ(grid.thumbs.size(), 6u);
    EXPECT_FLOAT_EQ(grid.scale.lo, 0.0f);
    EXPECT_FLOAT_EQ(grid.scale.hi, 1.0f);
    EXPECT_EQ(grid.cell_px, 160 / 4);
    for (int l = 0; l < L; ++l)
        for (int h = 0; h < H; ++h)
            for (int i = 0; i < 4; ++i)
                for (int j = 0; j < 4; ++j) {
                    const hs::PixelRect c = grid.cell(l, h, i, j);
                    ASSERT_EQ(out.image.at(c.center_x(), c.center_y()),
                              hs::colorize(maps[l][h](i, j), opt.colormap, grid.scale))
                        << "L" << l << " H" << h << " cell " << i << "," << j;
                }
    // Thumbnails do not overlap: head h+1 starts right of head h, layer l+1 below l.
    EXPECT_GT(grid.thumb(0, 1).x, grid.thumb(0, 0).right());
    EXPECT_GT(grid.thumb(1, 0).y, grid.thumb(0, 0).bottom());
    if (have_font()) {
        EXPECT_GT(dark_pixels(out.image, grid.captions[4]), 10);  // "L1 H1"
        EXPECT_GT(dark_pixels(out.image, grid.title), 10);
    }
}

TEST(RenderGrid, LargeGridsFitTheImageLimit) {
    // Asked for 10 px cells, 12 × 12 heads of 128 tokens: 12·128·10 px would not fit,
    // so the cell shrinks to floor((4096 − overhead) / (12·128)) = 2.
    std::vector<std::vector<hs::Matrix>> maps(12, std::vector<hs::Matrix>(12, ramp(128, 128)));
    hs::HeatmapOptions opt;
    opt.cell_px = 10;
    const auto out = hs::render_grid(maps, {}, {}, opt);
    EXPECT_EQ(out.layout.cell_px, 2);
    EXPECT_LE(out.image.width(), 4096);
    EXPECT_LE(out.image.height(), 4096);
}

TEST(RenderGrid, RejectsMismatchedShapes) {
    std::vector<std::vector<hs::Matrix>> maps(2);
    maps[0] = {ramp(3, 3), ramp(3, 3)};
    maps[1] = {ramp(3, 3), ramp(3, 2)};
    EXPECT_EQ(error_of([&] { hs::render_grid(maps, {}, {}, hs::HeatmapOptions{}); }),
              "map L1 H1 is 3x2 but L0 H0 is 3x3");
    maps[1].pop_back();
    EXPECT_EQ(error_of([&] { hs::render_grid(maps, {}, {}, hs::HeatmapOptions{}); }),
              "layer 1 has 1 heads but layer 0 has 2");
}

// Issue 12: more cells than the image can hold at 1 px each are drawn as block means
// (box_mean) instead of growing the image past max_image_px (a 12 × 12 grid of 2048-token
// maps made a 24820 × 24992 PNG and 8.9 GB of memory); an explicit cell size beyond the
// pixel limit is refused with the size.
TEST(RenderHeatmap, MapsTooLargeForTheImageAreDrawnAsBlockMeans) {
    hs::HeatmapOptions opt;
    opt.max_image_px = 600;
    const hs::Matrix m = ramp(1000, 900);
    const auto out = hs::render_heatmap(m, labels(1000, "q"), labels(900, "k"), opt);
    EXPECT_EQ(out.layout.source_rows, 1000);
    EXPECT_EQ(out.layout.source_cols, 900);
    EXPECT_EQ(out.layout.rows, 600 - 256);  // the longer side fills the room, the aspect stays
    EXPECT_EQ(out.layout.cols, 309);        // 900 · 344 / 1000
    EXPECT_LE(out.image.width(), 600);
    EXPECT_LE(out.image.height(), 600);
    // Cell (0, 0) shows the mean of the block it stands for, coloured as the full map's range.
    const hs::Matrix means = hs::box_mean(m, 344, 309);
    const hs::PixelRect c = out.layout.cell(0, 0);
    EXPECT_EQ(out.image.at(c.center_x(), c.center_y()), hs::colorize(means(0, 0), opt.colormap, opt.scale));
    EXPECT_EQ(hs::shrink_note(out.layout.rows, out.layout.cols, 1000, 900, 600),
              "each 1000×900 map is drawn as 344×309 block means to keep the image within 600 px");
    // A map that fits is drawn as it is.
    const auto fits = hs::render_heatmap(ramp(300, 300), {}, {}, opt);
    EXPECT_EQ(fits.layout.rows, fits.layout.source_rows);
    EXPECT_EQ(hs::shrink_note(300, 300, 300, 300, 600), "");
}

TEST(RenderGrid, AGridOfLongMapsStaysWithinTheImageSize) {
    hs::HeatmapOptions opt;
    opt.draw_text = false;
    std::vector<std::vector<hs::Matrix>> maps(12, std::vector<hs::Matrix>(12, ramp(512, 512)));
    const auto out = hs::render_grid(maps, {}, {}, opt);
    EXPECT_LE(out.image.width(), 4096);
    EXPECT_LE(out.image.height(), 4096);
    EXPECT_EQ(out.layout.source_rows, 512);
    EXPECT_LT(out.layout.cols, 512);
    EXPECT_EQ(out.layout.rows, out.layout.cols);  // square maps stay square
    EXPECT_EQ(out.layout.cell_px, 1);
}

TEST(RenderHeatmap, AnImageBeyondThePixelLimitIsRefused) {
    hs::HeatmapOptions opt;
    opt.cell_px = 64;
    opt.max_image_px = 40000;  // a caller asking for a huge image
    try {
        (void)hs::render_heatmap(ramp(300, 300), {}, {}, opt);
        FAIL() << "expected hs::Error";
    } catch (const hs::Error& e) {
        EXPECT_NE(std::string(e.what()).find("pixels, more than the 268435456 (16384²) an export may have"),
                  std::string::npos) << e.what();
    }
}
