// Checks what the GUI tests produced, against core computed independently here:
//   gui_check screenshot SHOT.png LAYOUT.json MODEL TEXT LAYER HEAD WIDTH HEIGHT
//     the window has the right size, is not blank, and every cell of the heatmap shows
//     the colour core's PNG exporter gives the same cell (within a small tolerance).
//   gui_check script DIR MODEL TEXT LAYER HEAD
//     DIR/trace.json, head.png, grid.png, head.csv written by the scripted session hold
//     the trace of MODEL (after the script's edits) and the selected layer/head.
//   gui_check example TRACE.json EXAMPLE.json ROW COL VALUE
//     a Pipeline cell edit of a worked example recomputed the trace with that edit.
// Exit 0 when every check passes; otherwise one line per failure on stderr, exit 1.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/image/heatmap_image.h"
#include "core/image/png.h"
#include "core/source.h"
#include "core/worked_example.h"

namespace {

int failures = 0;

void check(bool ok, const std::string& what) {
    if (!ok) {
        std::fprintf(stderr, "FAIL: %s\n", what.c_str());
        ++failures;
    } else {
        std::printf("ok: %s\n", what.c_str());
    }
}

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

hs::Trace compute(const std::string& model, const std::string& text) {
    hs::SourceInput input;
    input.text = text;
    return hs::open_source(model)->run(input, hs::TraceOptions{});
}

int rgb_diff(hs::Rgb8 a, hs::Rgb8 b) {
    return std::max({std::abs(a.r - b.r), std::abs(a.g - b.g), std::abs(a.b - b.b)});
}

int check_screenshot(char** argv) {
    const hs::RgbImage shot = hs::read_png(argv[2]);
    const nlohmann::json layout = nlohmann::json::parse(read_text(argv[3]));
    const int layer = std::stoi(argv[6]), head = std::stoi(argv[7]);
    const int width = std::stoi(argv[8]), height = std::stoi(argv[9]);
    check(shot.width() == width && shot.height() == height,
          "screenshot is " + std::to_string(width) + "x" + std::to_string(height) + " (got " +
              std::to_string(shot.width()) + "x" + std::to_string(shot.height()) + ")");
    check(layout.at("heatmap_drawn").get<bool>(), "the heatmap was drawn");
    check(layout.at("layer") == layer && layout.at("head") == head, "layout names the selected layer/head");

    // The exporter's colours for the same map (same model, text, layer, head, scale).
    const hs::Trace trace = compute(argv[4], argv[5]);
    const hs::Matrix& m = trace.main.layers.at(layer).self_attn.weights.at(head);
    hs::HeatmapOptions opt;
    opt.colormap = hs::parse_colormap(layout.at("colormap"));
    opt.auto_range = true;
    opt.draw_text = false;
    opt.cell_px = 4;
    const hs::HeatmapImage expected = hs::render_heatmap(m, {}, {}, opt);
    check(std::fabs(expected.layout.scale.lo - layout.at("lo").get<float>()) < 1e-5f &&
              std::fabs(expected.layout.scale.hi - layout.at("hi").get<float>()) < 1e-5f,
          "screen and exporter use the same colour range");

    const auto& r = layout.at("heatmap");
    const float x0 = r[0], y0 = r[1], x1 = r[2], y1 = r[3];
    const int rows = static_cast<int>(m.rows()), cols = static_cast<int>(m.cols());
    int worst = 0, mismatched = 0;
    std::set<int> distinct;
    for (int i = 0; i < rows; ++i) {
        for (int j = 0; j < cols; ++j) {
            // Centre of cell (i, j) on screen (the whole map is visible: uv = 0..1).
            const int px = static_cast<int>(x0 + (j + 0.5f) * (x1 - x0) / cols);
            const int py = static_cast<int>(y0 + (i + 0.5f) * (y1 - y0) / rows);
            const hs::PixelRect c = expected.layout.cell(i, j);
            const hs::Rgb8 want = expected.image.at(c.center_x(), c.center_y());
            const hs::Rgb8 got = shot.at(px, py);
            const int d = rgb_diff(want, got);
            worst = std::max(worst, d);
            if (d > 3) ++mismatched;
            distinct.insert(got.r << 16 | got.g << 8 | got.b);
        }
    }
    char buf[160];
    std::snprintf(buf, sizeof buf, "all %d cells match the exporter within 3/255 (worst %d, %d off)",
                  rows * cols, worst, mismatched);
    check(mismatched == 0, buf);
    check(static_cast<int>(distinct.size()) >= std::min(rows * cols, 20),
          "the heatmap is not blank (" + std::to_string(distinct.size()) + " distinct colours)");
    // The whole window is not one colour either.
    std::set<int> window_colours;
    for (int y = 0; y < shot.height(); y += 7)
        for (int x = 0; x < shot.width(); x += 7) {
            const hs::Rgb8 p = shot.at(x, y);
            window_colours.insert(p.r << 16 | p.g << 8 | p.b);
        }
    check(window_colours.size() > 50, "the window shows more than a blank background");
    return failures ? 1 : 0;
}

std::vector<std::string> split_csv_line(const std::string& line) {
    std::vector<std::string> out;
    std::string cur;
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char ch = line[i];
        if (quoted) {
            if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"') { cur += '"'; ++i; }
            else if (ch == '"') quoted = false;
            else cur += ch;
        } else if (ch == '"') quoted = true;
        else if (ch == ',') { out.push_back(cur); cur.clear(); }
        else cur += ch;
    }
    out.push_back(cur);
    return out;
}

int check_script(char** argv) {
    const std::string dir = argv[2];
    const int layer = std::stoi(argv[5]), head = std::stoi(argv[6]);
    const hs::Trace trace = compute(argv[3], argv[4]);
    const hs::Matrix& m = trace.main.layers.at(layer).self_attn.weights.at(head);

    // trace.json: the edited config and the same weights.
    const nlohmann::json j = nlohmann::json::parse(read_text(dir + "/trace.json"));
    const nlohmann::json& cfg = j.at("config");
    check(cfg.at("heads") == trace.config.heads && cfg.at("d_model") == trace.config.d_model &&
              cfg.at("mask") == hs::to_string(trace.config.mask),
          "trace.json has the edited config (heads " + std::to_string(trace.config.heads) + ", d_model " +
              std::to_string(trace.config.d_model) + ", mask " + hs::to_string(trace.config.mask) + ")");
    check(j.at("layers").size() == trace.main.layers.size(), "trace.json has every layer");
    check(j.at("layers").at(0).at("heads").size() == static_cast<std::size_t>(trace.config.heads),
          "trace.json layer 0 has one map per head");
    const auto& w = j.at("layers").at(layer).at("heads").at(head).at("weights");
    float max_diff = 0.0f;
    for (int r = 0; r < m.rows(); ++r)
        for (int c = 0; c < m.cols(); ++c)
            max_diff = std::max(max_diff, std::fabs(w.at(r).at(c).get<float>() - m(r, c)));
    check(max_diff < 1e-5f, "trace.json weights equal an independent forward (max diff " +
                                std::to_string(max_diff) + ")");
    if (trace.config.mask == hs::MaskKind::Causal) {
        float above = 0.0f;
        for (int r = 0; r < m.rows(); ++r)
            for (int c = r + 1; c < m.cols(); ++c) above = std::max(above, std::fabs(w.at(r).at(c).get<float>()));
        check(above == 0.0f, "causal mask: every future key has weight 0 in trace.json");
    }

    // head.png is the exporter's image of exactly this map (pixel for pixel).
    hs::HeatmapOptions opt;
    opt.auto_range = true;
    const hs::RgbImage head_png = hs::read_png(dir + "/head.png");
    // Title and labels depend on the app's title string; compare the map area only.
    opt.title = "x";
    const hs::HeatmapImage ref = hs::render_heatmap(m, trace.main.tokens, trace.main.tokens, opt);
    int off = 0, checked = 0;
    const hs::PixelRect map = ref.layout.map;
    for (int y = 0; y < map.height; ++y)
        for (int x = 0; x < map.width; ++x) {
            const int hx = map.x + x, hy = map.y + y;
            if (hx >= head_png.width() || hy >= head_png.height()) { ++off; continue; }
            ++checked;
            if (!(head_png.at(hx, hy) == ref.image.at(hx, hy))) ++off;
        }
    // (The width may differ: it grows with the title's length; the map does not move.)
    check(head_png.height() == ref.image.height(), "head.png has the exporter's height for this map");
    check(off == 0, "head.png map area equals the exporter's rendering of layer " + std::to_string(layer) +
                        " head " + std::to_string(head) + " (" + std::to_string(off) + " of " +
                        std::to_string(checked) + " pixels differ)");

    const hs::RgbImage grid_png = hs::read_png(dir + "/grid.png");
    check(grid_png.width() > 100 && grid_png.height() > 100, "grid.png is a real image");

    // head.csv: header of key tokens, one row per query.
    std::ifstream csv(dir + "/head.csv");
    std::string line;
    std::vector<std::vector<std::string>> rows;
    while (std::getline(csv, line)) rows.push_back(split_csv_line(line));
    check(rows.size() == static_cast<std::size_t>(m.rows()) + 1, "head.csv has a header and T rows");
    float csv_diff = 0.0f;
    for (int r = 0; r < m.rows() && r + 1 < static_cast<int>(rows.size()); ++r)
        for (int c = 0; c < m.cols() && c + 1 < static_cast<int>(rows[r + 1].size()); ++c)
            csv_diff = std::max(csv_diff, std::fabs(std::stof(rows[r + 1][c + 1]) - m(r, c)));
    check(csv_diff < 1e-4f, "head.csv values equal the weights (max diff " + std::to_string(csv_diff) + ")");
    return failures ? 1 : 0;
}

// The trace exported after editing X(row, col) of a worked example in the Pipeline
// equals the example recomputed here with the same edit (and differs from the original).
int check_example(char** argv) {
    const nlohmann::json j = nlohmann::json::parse(read_text(argv[2]));
    hs::WorkedExample ex = hs::load_worked_example(argv[3]);
    const hs::Trace before = ex.run();
    ex.x(std::stoi(argv[4]), std::stoi(argv[5])) = std::stof(argv[6]);
    const hs::Trace after = ex.run();
    float diff_after = 0.0f, diff_before = 0.0f;
    const auto& heads = j.at("layers").at(0).at("heads");
    check(heads.size() == after.main.layers[0].self_attn.weights.size(), "exported trace has every head");
    for (std::size_t h = 0; h < heads.size(); ++h) {
        const hs::Matrix& a = after.main.layers[0].self_attn.weights[h];
        const hs::Matrix& b = before.main.layers[0].self_attn.weights[h];
        for (int r = 0; r < a.rows(); ++r)
            for (int c = 0; c < a.cols(); ++c) {
                const float v = heads.at(h).at("weights").at(r).at(c).get<float>();
                diff_after = std::max(diff_after, std::fabs(v - a(r, c)));
                diff_before = std::max(diff_before, std::fabs(v - b(r, c)));
            }
    }
    check(diff_after < 1e-5f, "weights after the cell edit equal the recomputed example (max diff " +
                                  std::to_string(diff_after) + ")");
    check(diff_before > 1e-3f, "the edit changed the weights (max change " + std::to_string(diff_before) + ")");
    return failures ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const std::string mode = argc > 1 ? argv[1] : "";
        if (mode == "screenshot" && argc == 10) return check_screenshot(argv);
        if (mode == "script" && argc == 7) return check_script(argv);
        if (mode == "example" && argc == 7) return check_example(argv);
        std::fprintf(stderr, "usage: gui_check screenshot SHOT LAYOUT MODEL TEXT LAYER HEAD W H | "
                             "script DIR MODEL TEXT LAYER HEAD | example TRACE.json EXAMPLE ROW COL VALUE\n");
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "FAIL: %s\n", e.what());
        return 1;
    }
}
