#include "core/train/experiment.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/analysis/head_labels.h"
#include "core/error.h"
#include "core/image/font.h"
#include "core/image/heatmap_draw.h"
#include "core/image/tick_label.h"

namespace hs::train {

ExperimentSetup parse_sweep(const std::string& text, const TrainingSetup& base) {
    const std::size_t eq = text.find('=');
    ExperimentSetup e;
    e.base = base;
    e.key = text.substr(0, eq);
    if (eq == std::string::npos || (e.key != "heads" && e.key != "d_model"))
        throw Error("a sweep takes heads=1,2,4,… or d_model=32,64,…, got '" + text + "'");
    std::size_t at = eq + 1;
    while (at <= text.size()) {
        const std::size_t end = std::min(text.find(',', at), text.size());
        const std::string v = text.substr(at, end - at);
        std::size_t used = 0;
        int n = 0;
        try {
            n = std::stoi(v, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (v.empty() || used != v.size() || n < 1) throw Error("sweep: '" + v + "' is not a positive whole number");
        e.values.push_back(n);
        at = end + 1;
    }
    if (e.values.empty() || e.values.size() > 16) throw Error("a sweep takes 1 to 16 values");
    return e;
}

std::vector<TrainingSetup> experiment_setups(const ExperimentSetup& e) {
    std::vector<TrainingSetup> out;
    for (const int v : e.values) {
        TrainingSetup s = e.base;
        (e.key == "heads" ? s.config.heads : s.config.d_model) = v;
        if (e.key == "d_model") s.config.d_ff = 4 * v;
        try {
            ensure_valid(s.config);
            if (s.text_file.empty()) {
                check_task(s.task);
                if (longest_example(s.task) > s.config.max_len || s.task.vocab > s.config.vocab)
                    throw Error("the task does not fit the model");
            }
        } catch (const Error& err) {
            throw Error(e.key + "=" + std::to_string(v) + ": " + err.what());
        }
        out.push_back(std::move(s));
    }
    return out;
}

ExperimentRun summarize_run(const TrainingRun& run, int value) {
    ExperimentRun r;
    r.value = value;
    r.d_k = run.trainer().config().d_h();
    const TrainingHistory& h = run.history();
    if (!h.points.empty()) r.final_loss = h.points.back().loss;
    const double threshold = LabelThresholds{}.induction;
    for (const auto& s : h.snapshots) {
        r.steps.push_back(s->step);
        r.induction.push_back(best_induction(*s));
        r.held_out.push_back(s->held_out_loss);
        if (r.first_induction_step < 0 && r.induction.back() >= threshold) r.first_induction_step = s->step;
    }
    const HeadSnapshot& last = *h.snapshots.back();
    r.held_out_loss = last.held_out_loss;
    r.best_induction = best_induction(last);
    for (const HeadLabels& l : last.labels) ++r.roles[role_name(l.primary.role)];
    r.seconds = h.seconds;
    return r;
}

std::optional<ExperimentRun> run_experiment_value(const TrainingSetup& setup, int value,
                                                  const std::function<bool(const TrainingRun&, bool)>& after_step) {
    TrainingRun run(setup);
    while (!run.finished()) {
        const bool snapshot = run.step();
        if (!after_step(run, snapshot)) return std::nullopt;
    }
    return summarize_run(run, value);
}

std::string roles_text(const ExperimentRun& r) {
    std::string out;
    for (const auto& [name, count] : r.roles) out += (out.empty() ? "" : "; ") + name + " ×" + std::to_string(count);
    return out;
}

std::string experiment_csv(const std::string& key, const std::vector<ExperimentRun>& runs) {
    std::string csv = key + ",d_k,final_loss,held_out_loss,best_induction,first_induction_step,roles\n";
    for (const ExperimentRun& r : runs) {
        char row[512];
        const std::string first = r.first_induction_step < 0 ? "never" : std::to_string(r.first_induction_step);
        std::snprintf(row, sizeof row, "%d,%d,%.6f,%.6f,%.6f,%s,\"%s\"\n", r.value, r.d_k, r.final_loss, r.held_out_loss,
                      r.best_induction, first.c_str(), roles_text(r).c_str());
        csv += row;
    }
    return csv;
}

namespace {

using detail::draw_text;

constexpr Rgb8 kInk{40, 40, 48}, kGrid{220, 222, 228}, kWhite{255, 255, 255};

// Distinct hues for the runs (Tableau 10).
Rgb8 run_color(std::size_t i) {
    static constexpr Rgb8 kColors[] = {{31, 119, 180}, {255, 127, 14}, {44, 160, 44},  {214, 39, 40},
                                       {148, 103, 189}, {140, 86, 75}, {227, 119, 194}, {127, 127, 127},
                                       {188, 189, 34},  {23, 190, 207}};
    return kColors[i % 10];
}

// A line of width ~2 px from (x0, y0) to (x1, y1).
void draw_line(RgbImage& img, float x0, float y0, float x1, float y1, Rgb8 c) {
    const int n = static_cast<int>(std::ceil(std::max(std::abs(x1 - x0), std::abs(y1 - y0)))) + 1;
    for (int i = 0; i <= n; ++i) {
        const float t = static_cast<float>(i) / static_cast<float>(n);
        const int x = static_cast<int>(std::lround(x0 + t * (x1 - x0))), y = static_cast<int>(std::lround(y0 + t * (y1 - y0)));
        img.fill_rect({x - 1, y - 1, 2, 2}, c);
    }
}

// Frame, title and a y axis from lo to hi with 5 ticks; returns the plot area.
PixelRect draw_panel(RgbImage& img, const Font& font, const PixelRect& r, const std::string& title, double lo, double hi) {
    const int px = 14;
    draw_text(img, font, title, r.x, r.y, px + 2, kInk);
    const PixelRect plot{r.x + 56, r.y + 30, r.width - 66, r.height - 70};
    for (int k = 0; k <= 4; ++k) {
        const int y = plot.bottom() - k * plot.height / 4;
        img.fill_rect({plot.x, y, plot.width, 1}, kGrid);
        const std::string t = tick_label(lo + (hi - lo) * k / 4.0, hi - lo);
        draw_text(img, font, t, plot.x - 6 - font.text_width(t, px), y - px / 2, px, kInk);
    }
    img.fill_rect({plot.x, plot.y, 1, plot.height}, kInk);
    img.fill_rect({plot.x, plot.bottom(), plot.width, 1}, kInk);
    return plot;
}

// Bars, one per run, labelled with its value under the axis and its number above.
void draw_bars(RgbImage& img, const Font& font, const PixelRect& plot, const std::string& key,
               const std::vector<ExperimentRun>& runs, const std::vector<double>& values, double hi,
               const std::vector<std::string>& texts) {
    const int n = static_cast<int>(runs.size()), slot = plot.width / std::max(1, n), px = 13;
    for (int i = 0; i < n; ++i) {
        const double v = values[static_cast<std::size_t>(i)];
        const int x = plot.x + i * slot + slot / 5, w = slot * 3 / 5;
        const int h = std::isfinite(v) && hi > 0 ? static_cast<int>(plot.height * std::clamp(v / hi, 0.0, 1.0)) : 0;
        img.fill_rect({x, plot.bottom() - h, w, h}, run_color(static_cast<std::size_t>(i)));
        const std::string& t = texts[static_cast<std::size_t>(i)];
        draw_text(img, font, t, x + w / 2 - font.text_width(t, px) / 2, plot.bottom() - h - px - 4, px, kInk);
        const std::string label = key + " " + std::to_string(runs[static_cast<std::size_t>(i)].value);
        draw_text(img, font, label, x + w / 2 - font.text_width(label, px) / 2, plot.bottom() + 6, px, kInk);
    }
}

}  // namespace

RgbImage render_experiment(const std::string& key, const std::vector<ExperimentRun>& runs) {
    if (runs.empty()) throw Error("the experiment has no finished run to draw");
    const Font& font = Font::system_default();
    const int panel_w = 480, panel_h = 420, pad = 20;
    RgbImage img(3 * panel_w + 4 * pad, panel_h + 2 * pad + 40, kWhite);
    detail::draw_text(img, font, "Head-count experiment over " + key + " (same task, seed and budget)", pad, pad / 2, 18, kInk);
    const int top = pad + 34;
    // 1. Best induction score over the steps, a line per run.
    const PixelRect p1 = draw_panel(img, font, {pad, top, panel_w, panel_h}, "best induction score per step", 0.0, 1.0);
    int max_step = 1;
    for (const ExperimentRun& r : runs)
        if (!r.steps.empty()) max_step = std::max(max_step, r.steps.back());
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const ExperimentRun& r = runs[i];
        const auto at = [&](std::size_t k) {
            return std::pair<float, float>(p1.x + static_cast<float>(p1.width) * r.steps[k] / static_cast<float>(max_step),
                                           p1.bottom() - static_cast<float>(p1.height) * static_cast<float>(std::clamp(r.induction[k], 0.0, 1.0)));
        };
        for (std::size_t k = 1; k < r.steps.size(); ++k) {
            const auto [x0, y0] = at(k - 1);
            const auto [x1, y1] = at(k);
            draw_line(img, x0, y0, x1, y1, run_color(i));
        }
        const std::string label = key + " " + std::to_string(r.value);
        img.fill_rect({p1.x + 10, p1.y + 8 + static_cast<int>(i) * 18, 14, 10}, run_color(i));
        detail::draw_text(img, font, label, p1.x + 30, p1.y + 4 + static_cast<int>(i) * 18, 13, kInk);
    }
    detail::draw_text(img, font, "step (0 … " + std::to_string(max_step) + ")", p1.x + p1.width / 2 - 40, p1.bottom() + 6, 13, kInk);
    // 2. Held-out loss per run.
    std::vector<double> loss;
    std::vector<std::string> loss_text;
    double loss_hi = 0.0;
    for (const ExperimentRun& r : runs) {
        loss.push_back(r.held_out_loss);
        loss_hi = std::max(loss_hi, r.held_out_loss);
        char t[32];
        std::snprintf(t, sizeof t, "%.3f", r.held_out_loss);
        loss_text.push_back(t);
    }
    loss_hi = std::ceil(loss_hi * 2.0) / 2.0;  // a round axis end
    const PixelRect p2 = draw_panel(img, font, {2 * pad + panel_w, top, panel_w, panel_h}, "held-out loss (nats)", 0.0, loss_hi);
    draw_bars(img, font, p2, key, runs, loss, loss_hi, loss_text);
    // 3. First step with an induction head.
    std::vector<double> first;
    std::vector<std::string> first_text;
    for (const ExperimentRun& r : runs) {
        first.push_back(r.first_induction_step < 0 ? std::nan("") : r.first_induction_step);
        first_text.push_back(r.first_induction_step < 0 ? "never" : std::to_string(r.first_induction_step));
    }
    const PixelRect p3 = draw_panel(img, font, {3 * pad + 2 * panel_w, top, panel_w, panel_h},
                                    "first step with an induction head", 0.0, max_step);
    draw_bars(img, font, p3, key, runs, first, max_step, first_text);
    return img;
}

}  // namespace hs::train
