// End-to-end tests of `headscope export`: the PNG of one head and the --grid PNG have
// the size of the core exporter's layout for the same map, and cell centres carry
// exactly colorize(weight, colormap, scale); --csv writes the same weights.
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/image/colormap.h"
#include "core/image/heatmap_image.h"
#include "core/image/png.h"
#include "core/open_source.h"
#include "core/source.h"
#include "tests/cli_runner.h"

namespace hs {
namespace {

using cli_test::read_text;
using cli_test::run_headscope;
using cli_test::RunResult;
using cli_test::TempDir;

const std::string kExportSpec = "random:d_model=64,heads=4,layers=2,seed=11,mask=causal";
const std::string kText = "我是秦始皇";
constexpr int kLayer = 1, kHead = 2;

Trace export_library_trace(const std::string& spec, const std::string& text) {
    SourceInput in;
    in.text = text;
    return open_source(spec)->run(in, TraceOptions{});
}

// The options the CLI draws with: title (it changes the layout's top band), axis titles
// and values in the cells.
HeatmapOptions cli_options(const Trace& t, const std::string& what, const std::string& text = kText,
                           bool cross = false) {
    HeatmapOptions options;
    options.title = figure_title(t.model_name, what, text);
    options.cell_values = true;
    options.row_axis_title = cross ? "query (decoder token)" : "query";
    options.col_axis_title = cross ? "key (encoder token)" : "key";
    return options;
}
const std::string kSingleWhat = "layer " + std::to_string(kLayer) + " · head " + std::to_string(kHead);

// A cell's colour away from the value printed in its middle.
Rgb8 cell_colour(const RgbImage& png, const PixelRect& cell) { return png.at(cell.x + 1, cell.y + 1); }

RgbImage export_head_png(const TempDir& dir, const std::vector<std::string>& extra) {
    std::vector<std::string> args{"export", kExportSpec, "--text", kText, "--layer",
                                  std::to_string(kLayer), "--head", std::to_string(kHead),
                                  "--png", "head.png"};
    args.insert(args.end(), extra.begin(), extra.end());
    const RunResult r = run_headscope(args, dir);
    EXPECT_EQ(r.status, 0) << r.err;
    return read_png(dir.file("head.png"));
}

const std::vector<std::pair<int, int>> kCells = {{0, 0}, {1, 0}, {1, 1}, {3, 2}, {4, 0}, {4, 4}, {0, 4}};

TEST(CliExport, HeadPngHasTheExporterLayoutAndViridisCellColours) {
    TempDir dir;
    const RgbImage png = export_head_png(dir, {});
    const Trace t = export_library_trace(kExportSpec, kText);
    const Matrix& w = t.main.layers[kLayer].self_attn.weights[kHead];
    ASSERT_EQ(w.rows(), 5);
    const HeatmapOptions options = cli_options(t, kSingleWhat);
    const HeatmapImage ref = render_heatmap(w, t.main.tokens, t.main.tokens, options);
    EXPECT_EQ(png.width(), ref.image.width());
    EXPECT_EQ(png.height(), ref.image.height());
    ASSERT_FALSE(png.empty());
    const ColorScale weights_scale;  // attention weights: lo 0, hi 1, gamma 1
    for (const auto& [i, j] : kCells) {
        SCOPED_TRACE(testing::Message() << "cell (" << i << ", " << j << ") weight " << w(i, j));
        const PixelRect cell = ref.layout.cell(i, j);
        EXPECT_EQ(cell_colour(png, cell),
                  colorize(w(i, j), Colormap::Viridis, weights_scale));
    }
    // Causal: the cell above the diagonal is weight 0, the darkest viridis colour.
    const PixelRect masked = ref.layout.cell(0, 4);
    EXPECT_EQ(cell_colour(png, masked), colormap_lut(Colormap::Viridis)[0]);
    EXPECT_TRUE(png.bytes() == ref.image.bytes()) << "the CLI PNG differs from render_heatmap";
}

TEST(CliExport, MagmaColormapChangesTheCellColours) {
    TempDir dir;
    const RgbImage viridis = export_head_png(dir, {});
    const RgbImage magma = export_head_png(dir, {"--colormap", "magma"});
    const Trace t = export_library_trace(kExportSpec, kText);
    const Matrix& w = t.main.layers[kLayer].self_attn.weights[kHead];
    HeatmapOptions options = cli_options(t, kSingleWhat);
    options.colormap = Colormap::Magma;
    const HeatmapImage ref = render_heatmap(w, t.main.tokens, t.main.tokens, options);
    ASSERT_EQ(magma.width(), ref.image.width());
    ASSERT_EQ(magma.height(), ref.image.height());
    int changed = 0;
    for (const auto& [i, j] : kCells) {
        SCOPED_TRACE(testing::Message() << "cell (" << i << ", " << j << ")");
        const PixelRect cell = ref.layout.cell(i, j);
        const Rgb8 m = cell_colour(magma, cell);
        EXPECT_EQ(m, colorize(w(i, j), Colormap::Magma, ColorScale{}));
        changed += m != cell_colour(viridis, cell);
    }
    EXPECT_EQ(changed, static_cast<int>(kCells.size()));
}

TEST(CliExport, GridPngHasTheGridLayoutAndThumbnailCellColours) {
    TempDir dir;
    const RunResult r = run_headscope({"export", kExportSpec, "--text", kText, "--grid", "--png", "g.png"}, dir);
    ASSERT_EQ(r.status, 0) << r.err;
    const RgbImage png = read_png(dir.file("g.png"));
    const Trace t = export_library_trace(kExportSpec, kText);
    std::vector<std::vector<Matrix>> maps;
    for (const LayerTrace& lt : t.main.layers) maps.push_back(lt.self_attn.weights);
    const HeatmapOptions options = cli_options(t, "all layers × heads");
    const GridImage ref = render_grid(maps, t.main.tokens, t.main.tokens, options);
    ASSERT_EQ(ref.layout.layers, 2);
    ASSERT_EQ(ref.layout.heads, 4);
    EXPECT_EQ(png.width(), ref.image.width());
    EXPECT_EQ(png.height(), ref.image.height());
    for (const auto& [l, h] : {std::pair{0, 0}, std::pair{1, 2}, std::pair{1, 3}}) {
        for (const auto& [i, j] : kCells) {
            SCOPED_TRACE(testing::Message() << "L" << l << " H" << h << " cell (" << i << ", " << j << ")");
            const PixelRect cell = ref.layout.cell(l, h, i, j);
            EXPECT_EQ(cell_colour(png, cell),
                      colorize(maps[l][h](i, j), Colormap::Viridis, ColorScale{}));
        }
    }
}

TEST(CliExport, CsvHasTokenHeaderAndTheWeights) {
    TempDir dir;
    const RunResult r = run_headscope({"export", kExportSpec, "--text", kText, "--layer", "1", "--head",
                                       "2", "--csv", "w.csv"},
                                      dir);
    ASSERT_EQ(r.status, 0) << r.err;
    const Trace t = export_library_trace(kExportSpec, kText);
    const Matrix& w = t.main.layers[kLayer].self_attn.weights[kHead];
    std::istringstream csv(read_text(dir.file("w.csv")));
    std::string line;
    ASSERT_TRUE(std::getline(csv, line));
    EXPECT_EQ(line, "query,\"我\",\"是\",\"秦\",\"始\",\"皇\"");
    for (int i = 0; i < 5; ++i) {
        SCOPED_TRACE(testing::Message() << "row " << i);
        ASSERT_TRUE(std::getline(csv, line));
        std::istringstream fields(line);
        std::string field;
        ASSERT_TRUE(std::getline(fields, field, ','));
        EXPECT_EQ(field, "\"" + t.main.tokens[i] + "\"");
        for (int j = 0; j < 5; ++j) {
            ASSERT_TRUE(std::getline(fields, field, ','));
            EXPECT_NEAR(std::stod(field), w(i, j), 1e-6);
        }
        EXPECT_FALSE(std::getline(fields, field, ',')) << "extra column";
    }
    EXPECT_FALSE(std::getline(csv, line)) << "extra row: " << line;
}

TEST(CliExport, CrossAttentionPngHasDecoderRowsAndEncoderColumns) {
    const std::string spec = "random:d_model=32,heads=2,layers=1,seed=4,arch=encoder-decoder";
    TempDir dir;
    const RunResult r = run_headscope({"export", spec, "--text", "a b c", "--decoder-text", "x y",
                                       "--layer", "0", "--head", "1", "--cross", "--png", "c.png"},
                                      dir);
    ASSERT_EQ(r.status, 0) << r.err;
    const RgbImage png = read_png(dir.file("c.png"));
    SourceInput in;
    in.text = "a b c";
    in.decoder_text = "x y";
    const Trace t = open_source(spec)->run(in, TraceOptions{});
    ASSERT_TRUE(t.decoder);
    const Matrix& w = t.decoder->layers[0].cross_attn->weights[1];
    ASSERT_EQ(w.rows(), 2);
    ASSERT_EQ(w.cols(), 3);
    const HeatmapOptions options = cli_options(t, "cross-attention layer 0 · head 1", "x y", true);
    const HeatmapImage ref = render_heatmap(w, t.decoder->tokens, t.main.tokens, options);
    EXPECT_EQ(ref.layout.rows, 2);
    EXPECT_EQ(ref.layout.cols, 3);
    ASSERT_EQ(png.width(), ref.image.width());
    ASSERT_EQ(png.height(), ref.image.height());
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j) {
            const PixelRect cell = ref.layout.cell(i, j);
            EXPECT_EQ(cell_colour(png, cell),
                      colorize(w(i, j), Colormap::Viridis, ColorScale{}))
                << "cell (" << i << ", " << j << ")";
        }
}

}  // namespace
}  // namespace hs
