// Checks what the GUI tests produced, against core computed independently here:
//   gui_check screenshot SHOT.png LAYOUT.json MODEL TEXT LAYER HEAD WIDTH HEIGHT
//     the window has the right size, is not blank, and every cell of the heatmap shows
//     the colour core's PNG exporter gives the same cell (within a small tolerance).
//   gui_check script DIR MODEL TEXT LAYER HEAD
//     DIR/trace.json, head.png, grid.png, head.csv written by the scripted session hold
//     the trace of MODEL (after the script's edits) and the selected layer/head.
//   gui_check example TRACE.json EXAMPLE.json ROW COL VALUE STATE.json
//     a Pipeline cell edit of a worked example recomputed the trace with that edit; the
//     Model panel was given the example's title, description and source.
//   gui_check pretrained STATE.json MODEL TEXT
//     the app's dumped state (script `dump-state`) of a real model: the Model panel's
//     architecture equals the checkpoint's, the next-token predictions equal core's, and
//     under grouped-query attention every query head names KV head h / (H / Hkv).
//   gui_check continued BEFORE.json AFTER.json MODEL N
//     "continue N" appended exactly core's greedy continuation to the text.
//   gui_check analysis STATE ABLATED RANKED SHOT MODEL TEXT HEAD
//     the Analysis window's labels, metrics, ablation KL and ranking equal core's
//     (gui_check_analysis.cpp).
// Exit 0 when every check passes; otherwise one line per failure on stderr, exit 1.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/gui/gui_check_util.h"
#include "tests/xml_check.h"

#include "core/error.h"
#include "core/image/heatmap_image.h"
#include "core/image/painter.h"
#include "core/image/png.h"
#include "core/generate.h"
#include "core/pretrained_source.h"
#include "core/open_source.h"
#include "core/source.h"
#include "core/worked_example.h"

// gui_check_analysis.cpp: the Analysis window's results against core.
int check_analysis(char** argv);
int check_train(char** argv);
// gui_check_default.cpp: the first launch on the default model against core.
int check_default(char** argv);
// gui_check_learner.cpp: long and empty texts by the text box, the article comparison,
// the Chinese UI, the Pipeline and window fit, the head-count buttons.
namespace hs::gui_check {
int check_long_text(char** argv);
int check_article(char** argv);
int check_chinese_ui(char** argv);
int check_pipeline(int argc, char** argv);
int check_pipeline_maps(char** argv);
int check_fit(int argc, char** argv);
int check_heads_buttons(char** argv);
int check_keyboard(char** argv);
int check_token_labels(char** argv);
int check_pipeline_values(char** argv);
}

namespace {

using hs::gui_check::check;
using hs::gui_check::failures;

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

// The most frequent colour of the pixels inside [x0, x1) × [y0, y1), one pixel in from
// each edge (the centre pixel when the cell is smaller than 4 pixels).
hs::Rgb8 dominant_colour(const hs::RgbImage& image, float x0, float y0, float x1, float y1) {
    const int ax = static_cast<int>(std::ceil(x0)) + 1, bx = static_cast<int>(std::floor(x1)) - 1;
    const int ay = static_cast<int>(std::ceil(y0)) + 1, by = static_cast<int>(std::floor(y1)) - 1;
    if (bx - ax < 2 || by - ay < 2)
        return image.at(static_cast<int>((x0 + x1) * 0.5f), static_cast<int>((y0 + y1) * 0.5f));
    std::map<int, int> counts;
    for (int y = ay; y < by; ++y)
        for (int x = ax; x < bx; ++x) {
            const hs::Rgb8 p = image.at(x, y);
            ++counts[p.r << 16 | p.g << 8 | p.b];
        }
    const auto best = std::max_element(counts.begin(), counts.end(),
                                       [](const auto& a, const auto& b) { return a.second < b.second; });
    const int rgb = best->first;
    return hs::Rgb8{static_cast<std::uint8_t>(rgb >> 16), static_cast<std::uint8_t>((rgb >> 8) & 255),
                    static_cast<std::uint8_t>(rgb & 255)};
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
            // Cell (i, j) on screen (the whole map is visible: uv = 0..1). Small maps carry
            // each weight as text in the cell, so the cell's colour is the most frequent
            // colour inside it (the text covers a minority of its pixels).
            const hs::PixelRect c = expected.layout.cell(i, j);
            const hs::Rgb8 want = expected.image.at(c.center_x(), c.center_y());
            const hs::Rgb8 got = dominant_colour(shot, x0 + j * (x1 - x0) / cols, y0 + i * (y1 - y0) / rows,
                                                 x0 + (j + 1) * (x1 - x0) / cols, y0 + (i + 1) * (y1 - y0) / rows);
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
    check(cfg.value("attn_scale", 0.0) == double(trace.config.attn_scale) &&
              cfg.value("attn_softcap", 0.0) == double(trace.config.attn_softcap),
          "trace.json has the edited score scale " + std::to_string(trace.config.attn_scale) + " and soft-cap " +
              std::to_string(trace.config.attn_softcap));
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
    if (trace.config.window > 0) {
        // A local layer's query r sees keys r − window + 1 … r only; a global layer's (L/G
        // pattern) weighs keys behind the window too.
        const int window = trace.config.window;
        bool held = cfg.value("window", 0) == window && cfg.value("window_layers", "") == trace.config.window_layers;
        for (std::size_t il = 0; il < j.at("layers").size(); ++il) {
            const auto& head_w = j.at("layers").at(il).at("heads").at(0).at("weights");
            float behind = 0.0f;
            for (int r = window; r < m.rows(); ++r)
                for (int c = 0; c <= r - window; ++c) behind = std::max(behind, std::fabs(head_w.at(r).at(c).get<float>()));
            held &= trace.config.window_of(static_cast<int>(il)) > 0 ? behind == 0.0f : behind > 0.0f;
        }
        check(held, "sliding window " + std::to_string(window) + " in layers '" + trace.config.window_layers +
                        "': trace.json's config has it, every key behind it has weight 0 in a local layer and "
                        "not in a global one");
    }

    // head.png is the exporter's image of exactly this map (pixel for pixel): values in
    // the cells and axis titles, as the Export tab draws by default.
    hs::HeatmapOptions opt;
    opt.auto_range = true;
    opt.cell_values = true;
    opt.row_axis_title = "query";
    opt.col_axis_title = "key";
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

    // head.svg: well-formed XML with every token label as text (row and column), the
    // PNG's size, and one value per unmasked cell.
    const std::string svg = read_text(dir + "/head.svg");
    const std::string xml = hs::test::xml_problem(svg);
    check(xml.empty(), "head.svg is well-formed XML" + (xml.empty() ? "" : " (" + xml + ")"));
    check(svg.find("width=\"" + std::to_string(head_png.width()) + "\" height=\"" +
                   std::to_string(head_png.height()) + "\"") != std::string::npos,
          "head.svg has head.png's size");
    int labels_found = 0;
    for (const std::string& token : trace.main.tokens) {
        const std::string text = ">" + hs::xml_escape(token) + "</text>";
        std::size_t n = 0;
        for (auto p = svg.find(text); p != std::string::npos; p = svg.find(text, p + 1)) ++n;
        labels_found += n >= 2;
    }
    check(labels_found == static_cast<int>(trace.main.tokens.size()),
          "head.svg holds every token label as a row and a column label (" + std::to_string(labels_found) + " of " +
              std::to_string(trace.main.tokens.size()) + ")");

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
    const nlohmann::json info = nlohmann::json::parse(read_text(argv[7])).at("info");
    check(info.at("example_title") == ex.title && !ex.title.empty(), "the Model panel has the example's title");
    check(info.at("example_description") == ex.description && !ex.description.empty(),
          "the Model panel has the example's description (where the article is wrong)");
    check(info.at("example_source") == ex.source, "and its source");
    check(diff_after < 1e-5f, "weights after the cell edit equal the recomputed example (max diff " +
                                  std::to_string(diff_after) + ")");
    check(diff_before > 1e-3f, "the edit changed the weights (max change " + std::to_string(diff_before) + ")");
    return failures ? 1 : 0;
}

// A real model with its tokenizer (a llama2.c .bin or a Hugging Face directory).
std::unique_ptr<hs::TraceSource> open_pretrained(const std::string& model) {
    auto source = hs::open_source(model);
    if (!source->model() || !source->tokenizer()) throw hs::Error("'" + model + "' is not a pretrained model");
    return source;
}

int check_pretrained(char** argv) {
    const nlohmann::json j = nlohmann::json::parse(read_text(argv[2]));
    const std::string model = argv[3], text = argv[4];
    const auto source = open_pretrained(model);
    const hs::TraceSource* p = source.get();
    const hs::ModelConfig& c = p->config();
    const int kv_heads = c.kv_head_count();
    check(j.at("error").get<std::string>().empty(), "no compute error (" + j.at("error").get<std::string>() + ")");
    check(j.at("has_trace").get<bool>() && j.at("trace_model_arg") == model, "the window shows a trace of " + model);
    const nlohmann::json& info = j.at("info");
    check(info.at("pretrained").get<bool>() && info.at("family") == c.family && info.at("d_model") == c.d_model &&
              info.at("heads") == c.heads && info.at("kv_heads") == kv_heads && info.at("layers") == c.layers &&
              info.at("d_ff") == c.d_ff && info.at("vocab") == c.vocab &&
              info.at("dtype") == p->model()->stored_dtype(),
          "Model panel shows the checkpoint's architecture (" + c.family + ", d_model " + std::to_string(c.d_model) +
              ", " + std::to_string(c.heads) + " heads / " + std::to_string(kv_heads) + " KV, " +
              std::to_string(c.layers) + " layers)");
    check(info.at("parameters") == p->parameter_count() && info.at("memory_bytes") == p->parameter_count() * 4,
          "parameter count " + std::to_string(p->parameter_count()) + " and f32 memory");

    // Next-token predictions: the same ids and probabilities as core's forward.
    hs::SourceInput input;
    input.text = text;
    const hs::Trace trace = p->run(input, hs::TraceOptions{});
    check(j.at("tokens") == trace.main.tokens && j.at("ids") == trace.main.ids, "tokens equal core's tokenisation");
    const auto& next = j.at("next_tokens");
    check(!trace.next_tokens.empty() && next.size() == trace.next_tokens.size(),
          "the window has " + std::to_string(trace.next_tokens.size()) + " next-token predictions (got " +
              std::to_string(next.size()) + ")");
    float worst = 0.0f;
    bool same_ids = next.size() == trace.next_tokens.size();
    for (std::size_t i = 0; same_ids && i < next.size(); ++i) {
        same_ids = next[i].at("id") == trace.next_tokens[i].id && next[i].at("text") == trace.next_tokens[i].text;
        worst = std::max(worst, std::fabs(next[i].at("prob").get<float>() - trace.next_tokens[i].prob));
    }
    check(same_ids && worst < 1e-5f, "next tokens and probabilities equal core's (max diff " + std::to_string(worst) +
                                         ", top '" + (trace.next_tokens.empty() ? "" : trace.next_tokens[0].text) + "')");

    // Grouped-query attention: query head h reads KV head h / (H / Hkv).
    check(kv_heads < c.heads, "the model uses grouped-query attention (" + std::to_string(c.heads) + " heads, " +
                                  std::to_string(kv_heads) + " KV heads)");
    const int group = c.heads / kv_heads;
    bool kv_ok = j.at("heads") == c.heads && j.at("kv_heads") == c.kv_heads;
    std::string shown;
    for (int h = 0; kv_ok && h < c.heads; ++h) {
        const std::string caption = "H" + std::to_string(h) + " · kv" + std::to_string(h / group);
        kv_ok = j.at("kv_head_of").at(h) == h / group && j.at("head_captions").at(h) == caption;
        shown += (h ? ", " : "") + j.at("head_captions").at(h).get<std::string>();
    }
    check(kv_ok, "every query head names its KV head (" + shown + ")");
    return failures ? 1 : 0;
}

int check_continued(char** argv) {
    const nlohmann::json before = nlohmann::json::parse(read_text(argv[2]));
    const nlohmann::json after = nlohmann::json::parse(read_text(argv[3]));
    const std::string model = argv[4];
    const int n = std::stoi(argv[5]);
    const auto source = open_pretrained(model);
    const std::string text = before.at("text");
    const hs::Tokens prompt = source->tokenize(text);
    std::vector<int> all = prompt.ids;
    const std::vector<int> gen = hs::generate(*source->model(), *source->tokenizer(), prompt.ids, n);
    all.insert(all.end(), gen.begin(), gen.end());
    const hs::Tokenizer& tokenizer = *source->tokenizer();
    const std::string full = tokenizer.decode(all), head = tokenizer.decode(prompt.ids);
    check(full.compare(0, head.size(), head) == 0, "core's decoded continuation extends the prompt");
    const std::string expected = text + full.substr(head.size());
    check(static_cast<int>(gen.size()) == n, "core generated " + std::to_string(n) + " tokens");
    check(after.at("text") == expected,
          "continue " + std::to_string(n) + " appended core's greedy continuation: '" +
              after.at("text").get<std::string>() + "' (expected '" + expected + "')");
    // The trace on screen belongs to the extended text.
    hs::SourceInput input;
    input.text = expected;
    const hs::Trace trace = source->run(input, hs::TraceOptions{});
    check(after.at("ids") == trace.main.ids, "the trace after 'continue' is the extended text's (" +
                                                 std::to_string(trace.main.ids.size()) + " tokens)");
    check(!after.at("next_tokens").empty() && after.at("next_tokens").at(0).at("id") == trace.next_tokens.at(0).id,
          "next-token predictions follow the extended text");
    return failures ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const std::string mode = argc > 1 ? argv[1] : "";
        if (mode == "screenshot" && argc == 10) return check_screenshot(argv);
        if (mode == "script" && argc == 7) return check_script(argv);
        if (mode == "example" && argc == 8) return check_example(argv);
        if (mode == "pretrained" && argc == 5) return check_pretrained(argv);
        if (mode == "continued" && argc == 6) return check_continued(argv);
        if (mode == "analysis" && argc == 9) return check_analysis(argv);
        if (mode == "train" && argc == 11) return check_train(argv);
        if (mode == "default" && argc == 6) return check_default(argv);
        if (mode == "long-text" && argc == 3) return hs::gui_check::check_long_text(argv);
        if (mode == "article" && argc == 3) return hs::gui_check::check_article(argv);
        if (mode == "chinese-ui" && argc == 3) return hs::gui_check::check_chinese_ui(argv);
        if (mode == "pipeline" && argc >= 3) return hs::gui_check::check_pipeline(argc, argv);
        if (mode == "pipeline-maps" && argc == 4) return hs::gui_check::check_pipeline_maps(argv);
        if (mode == "fit" && argc >= 3) return hs::gui_check::check_fit(argc, argv);
        if (mode == "heads-buttons" && argc == 4) return hs::gui_check::check_heads_buttons(argv);
        if (mode == "keyboard" && argc == 4) return hs::gui_check::check_keyboard(argv);
        if (mode == "token-labels" && argc == 3) return hs::gui_check::check_token_labels(argv);
        if (mode == "pipeline-values" && argc == 5) return hs::gui_check::check_pipeline_values(argv);
        std::fprintf(stderr, "usage: gui_check screenshot SHOT LAYOUT MODEL TEXT LAYER HEAD W H | "
                             "script DIR MODEL TEXT LAYER HEAD | example TRACE.json EXAMPLE ROW COL VALUE STATE.json | "
                             "pretrained STATE MODEL TEXT | continued BEFORE AFTER MODEL N | "
                             "analysis STATE ABLATED RANKED SHOT MODEL TEXT HEAD | "
                             "train STATE SHOT W H STEPS EVERY EXPERIMENT CSV | default FIRST ZH PLAYGROUND CONTINUED | "
                             "heads-buttons DIR SIZE | keyboard DIR SIZE | token-labels STATE | pipeline-values STATE SHOT OPENED\n");
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "FAIL: %s\n", e.what());
        return 1;
    }
}
