// Train view (issue 13). Left: the task, the architecture (a playground spec over the
// default training model), batch, learning rate, steps; Train / Pause / Step / Reset /
// Save. Right: the loss (train, averaged per plotted point; held-out at each snapshot) and
// the learning rate; one line per head of a metric over the snapshots (induction score by
// default), labelled with the role the head has at the shown snapshot; a timeline over the
// snapshots; at that snapshot, the induction probe's map (BOS + r + r) for every head and
// the heads' similarity. Every number comes from core (TrainWorker → TrainingRun).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <string>

#include "app/analysis_actions.h"
#include "app/i18n/i18n.h"
#include "app/i18n/messages.h"
#include "app/panels/panels.h"
#include "app/panels/plot_widgets.h"
#include "app/panels/window_extents.h"
#include "core/analysis/analysis_export.h"
#include "core/error.h"

namespace hs {
namespace {

// Train / Step without a run: a new run of the setup (paused after one step unless `run`).
void start_training(const TrainPanelContext& ctx, bool run) {
    try_action(ctx.train.train_error, [&] { ctx.train_worker.start(training_setup(ctx.train), run); });
}

void draw_setup(const TrainPanelContext& ctx) {
    TrainView& v = ctx.train;
    const TrainProgress& p = v.progress;
    ImGui::TextUnformatted(tr("Task"));
    ImGui::SetNextItemWidth(-1);
    const char* tasks[IM_ARRAYSIZE(kTrainTasks)];  // the names scripts use, shown translated
    for (int i = 0; i < IM_ARRAYSIZE(kTrainTasks); ++i) tasks[i] = tr(kTrainTasks[i]);
    ImGui::Combo("##task", &v.task, tasks, IM_ARRAYSIZE(tasks));
    if (v.task == kTextFileTask) {
        ImGui::SetNextItemWidth(-ImGui::GetFontSize() * 6);
        input_path_string("##textfile", &v.text_file);
        ImGui::SameLine();
        ImGui::SetNextItemWidth(-1);
        const char* levels[] = {tr("chars"), tr("words")};
        ImGui::Combo("##level", &v.text_level, levels, 2);
        text_disabled_wrapped(tr("windows of the text; the last %d %% held out; vocab= sets the ids kept"), 10);
    } else {
        if (v.task == kInductionTask)
            text_disabled_wrapped("%s", tr("BOS + r + filler + r, |r| 8–20: only an induction head solves the 2nd r"));
        else if (v.task == kGrammarTask)
            text_disabled_wrapped(tr("English and Chinese sentences with gold relations (+ %d %% induction); vocab set to fit"),
                                25);
        else
            text_disabled_wrapped("%s", tr("BOS x SEP answer: the loss counts the answer"));
    }
    ImGui::TextUnformatted(tr("Architecture (playground spec keys)"));
    ImGui::SetNextItemWidth(-1);
    input_text_string("##spec", &v.spec);
    text_disabled_wrapped(tr("over %s"), train::kDefaultTrainingSpec);
    if (ImGui::Button(tr("Use the playground model")) && is_playground_spec(ctx.state.model_arg()))
        v.spec = to_playground_spec(ctx.state.config);
    const float w = ImGui::GetFontSize() * 7;
    ImGui::SetNextItemWidth(w);
    ImGui::InputInt(tr("steps"), &v.steps, 100, 1000);
    ImGui::SetNextItemWidth(w);
    ImGui::InputInt(tr("batch"), &v.batch, 1, 8);
    ImGui::SetNextItemWidth(w);
    ImGui::InputFloat(tr("learning rate"), &v.lr, 0.0f, 0.0f, "%.1e");
    ImGui::SetNextItemWidth(w);
    ImGui::InputInt(tr("warm-up steps"), &v.warmup, 10, 100);
    ImGui::SetNextItemWidth(w);
    ImGui::InputInt(tr("snapshot every"), &v.every, 10, 100);
    ImGui::SetNextItemWidth(w);
    ImGui::InputInt(tr("seed"), &v.seed);
    v.steps = std::clamp(v.steps, 1, 10'000'000);
    v.batch = std::clamp(v.batch, 1, 4096);
    v.warmup = std::max(0, v.warmup);
    v.every = std::clamp(v.every, 1, v.steps);
    v.seed = std::max(0, v.seed);
    ImGui::Separator();
    const bool has_run = p.history != nullptr;
    if (!p.running) {
        const bool train_clicked =
            ImGui::Button(has_run && p.steps_taken < p.total_steps ? tr("Train (continue)") : tr("Train"));
        ctx.click_targets.note("train");
        if (train_clicked) {
            if (has_run && p.steps_taken < p.total_steps) ctx.train_worker.resume();
            else start_training(ctx, true);
        }
    } else if (ImGui::Button(tr("Pause"))) {
        ctx.train_worker.pause();
    }
    ImGui::SameLine();
    ImGui::BeginDisabled(p.running);
    if (ImGui::Button(tr("Step"))) {
        if (has_run) ctx.train_worker.step_once();
        else start_training(ctx, false);
    }
    ImGui::EndDisabled();
    ImGui::SameLine();
    if (ImGui::Button(tr("Reset"))) {
        ctx.train_worker.reset();
        v.timeline = -1;
    }
    ImGui::SetNextItemWidth(-ImGui::GetFontSize() * 4);
    input_path_string("##save", &v.save_dir);
    ImGui::SameLine();
    ImGui::BeginDisabled(!has_run || p.preparing);
    if (ImGui::Button(tr("Save"))) ctx.train_worker.save(v.save_dir);
    ImGui::EndDisabled();
    if (!p.error.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.4f, 1.0f));
        ImGui::TextWrapped("%s", tr_message(p.error).c_str());
        ImGui::PopStyleColor();
    }
    if (!p.replace_dir.empty() && p.replace_dir == v.save_dir) {  // a Save refused to replace what is there
        ImGui::BeginDisabled(!has_run || p.preparing);
        if (ImGui::Button(tr("Replace"))) ctx.train_worker.save(v.save_dir, /*replace=*/true);
        ImGui::EndDisabled();
    }
    if (!v.train_error.empty()) ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), "%s", tr_message(v.train_error).c_str());
    if (p.error.empty() && !p.notice.empty()) ImGui::TextWrapped("%s", tr_message(p.notice).c_str());
    if (p.preparing) ImGui::TextDisabled("%s", tr("initialising the model and measuring step 0 …"));
    if (has_run) {  // static while training: the live numbers sit above the curves
        ImGui::Separator();
        ImGui::TextWrapped("%s", to_playground_spec(p.config).c_str());
    }
}

// The live numbers: step, progress, losses, rate, best induction score.
void draw_status(const TrainProgress& p) {
    const train::TrainingHistory& h = *p.history;
    const double loss = h.points.empty() ? std::nan("") : h.points.back().loss;
    const double lr = h.points.empty() ? 0.0 : static_cast<double>(h.points.back().lr);
    char overlay[128];
    std::snprintf(overlay, sizeof overlay, tr("step %d of %d (%s)"), p.steps_taken, p.total_steps,
                  p.running ? tr("training") : p.steps_taken >= p.total_steps ? tr("finished") : tr("paused"));
    ImGui::ProgressBar(static_cast<float>(p.steps_taken) / static_cast<float>(std::max(1, p.total_steps)),
                       ImVec2(ImGui::GetFontSize() * 16, 0), overlay);
    ImGui::SameLine();
    ImGui::Text(tr("loss %.4f  held-out %.4f  lr %.2e  %.0f tokens/s  %.1f s  best induction %.2f"), loss,
                h.snapshots.back()->held_out_loss, lr, h.tokens_per_second, h.seconds,
                train::best_induction(*h.snapshots.back()));
}

// The step axis is labelled at round steps: where the curve first reaches each multiple of
// a 1-2-5 stride giving at most 8 labels (labels wherever the last one left room read
// 1, 8, 17, 28, …).
int step_label_stride(int last_step) {
    for (int decade = 1;; decade *= 10)
        for (int f : {1, 2, 5})
            if (last_step / (f * decade) <= 8 || decade > 100000000) return f * decade;
}

// Train loss (averaged points) with held-out loss dots at the snapshots' steps.
void draw_loss_chart(const TrainView& v, ImVec2 size) {
    const TrainProgress& p = v.progress;
    const train::LossCurve& c = p.curve;
    if (c.steps.empty()) {
        ImGui::TextDisabled("%s", tr("Loss: no steps yet"));
        ImGui::Dummy(size);
        return;
    }
    std::vector<double> held(c.steps.size(), std::nan(""));
    for (const auto& s : p.history->snapshots) {
        const auto at = std::lower_bound(c.steps.begin(), c.steps.end(), s->step);
        if (at != c.steps.end()) held[static_cast<std::size_t>(at - c.steps.begin())] = s->held_out_loss;
    }
    double lo = 0.0, hi = 0.0, hlo = 0.0, hhi = 0.0;
    finite_range(c.loss, lo, hi);
    finite_range(held, hlo, hhi);
    if (hhi > hlo || hhi > 0.0) {
        lo = std::min(lo, hlo);
        hi = std::max(hi, hhi);
    }
    ImGui::TextUnformatted(tr("Loss (nats): train"));
    ImGui::SameLine();
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(series_color(1)), "%s", tr("held-out"));
    const PlotHover h = draw_line_chart("##loss", {c.loss, held}, {series_color(0), series_color(1)}, size,
                                        std::max(0.0, lo - 0.05), hi + 0.05,
                                        [&c, stride = step_label_stride(c.steps.back())](int i) {
                                            const auto at = static_cast<std::size_t>(i);
                                            const bool round = at == 0 || c.steps[at] / stride > c.steps[at - 1] / stride;
                                            return round ? std::to_string(c.steps[at]) : std::string();
                                        });
    if (h.col >= 0) {
        const std::size_t i = static_cast<std::size_t>(h.col);
        if (std::isfinite(held[i]))
            ImGui::SetTooltip(tr("step %d\ntrain loss %.4f\nheld-out loss %.4f"), c.steps[i], c.loss[i], held[i]);
        else
            ImGui::SetTooltip(tr("step %d\ntrain loss %.4f"), c.steps[i], c.loss[i]);
    }
}

// One line per head: the chosen metric over the snapshots.
void draw_trajectories(TrainView& v, ImVec2 size, int shown) {
    const train::TrainingHistory& h = *v.progress.history;
    const int heads = v.progress.config.heads;
    const std::size_t n_heads = h.snapshots.front()->metrics.size();
    ImGui::TextUnformatted(tr("Per head"));
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9);
    if (ImGui::BeginCombo("##metric", tr(metric_name(v.metric)))) {
        for (const Metric m : all_metrics())
            if (ImGui::Selectable(tr(metric_name(m)), m == v.metric)) v.metric = m;
        ImGui::EndCombo();
    }
    std::vector<std::vector<double>> series(n_heads);
    std::vector<ImU32> colors;
    for (std::size_t k = 0; k < n_heads; ++k) {
        for (const auto& s : h.snapshots) series[k].push_back(k < s->metrics.size() ? s->metrics[k][v.metric] : std::nan(""));
        colors.push_back(series_color(static_cast<int>(k)));
    }
    if (v.metric == Metric::Induction && h.snapshots.front()->probe_is_cross) {
        ImGui::SameLine();
        ImGui::TextDisabled("%s", tr("(measured on decoders only)"));
    }
    ImGui::SameLine();
    ImGui::TextDisabled("%s", tr("roles: held-out examples"));
    // Legend: each head with the role it has at the shown snapshot.
    const train::HeadSnapshot& at = *h.snapshots[static_cast<std::size_t>(shown)];
    for (std::size_t k = 0; k < n_heads && k < at.labels.size(); ++k) {
        if (k % static_cast<std::size_t>(std::max(1, heads)) != 0) ImGui::SameLine();
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colors[k]), "%s", head_name(static_cast<int>(k), heads).c_str());
        ImGui::SameLine(0, 2);
        label_chip(at.labels[k], tr("held-out examples"));
    }
    double lo = 0.0, hi = 0.0;
    for (const auto& s : series) {
        double a = 0.0, b = 0.0;
        finite_range(s, a, b);
        lo = std::min(lo, a);
        hi = std::max(hi, b);
    }
    if (v.metric == Metric::Induction || v.metric == Metric::PrevToken || v.metric == Metric::PrevPeak) hi = std::max(hi, 1.0);
    // The induction score at which a head counts as an induction head (its role label, the
    // experiment's "first induction head"): one threshold, drawn on the chart.
    const ChartLine formed = induction_head_line();
    const PlotHover hover = draw_line_chart(
        "##traj", series, colors, size, lo, hi + 1e-9,
        [&h](int i) { return std::to_string(h.snapshots[static_cast<std::size_t>(i)]->step); },
        v.metric == Metric::Induction ? &formed : nullptr);
    if (hover.col >= 0 && hover.row >= 0) {
        const std::size_t i = static_cast<std::size_t>(hover.col), k = static_cast<std::size_t>(hover.row);
        ImGui::SetTooltip(tr("%s at step %d\n%s %.3f"), head_name(static_cast<int>(k), heads).c_str(),
                          h.snapshots[i]->step, tr(metric_name(v.metric)), series[k][i]);
        if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) v.timeline = static_cast<int>(i);
    }
}

// The induction probe's map of every head at the shown snapshot, as a layer × head grid.
void draw_probe_maps(const TrainPanelContext& ctx, const train::HeadSnapshot& s, int snapshot_index, float cell) {
    TrainView& v = ctx.train;
    const int heads = v.progress.config.heads, n = static_cast<int>(s.probe_maps.size());
    v.probe_maps.resize(static_cast<std::size_t>(n));
    if (s.probe_is_cross)
        ImGui::Text(tr("Cross-attention on the held-out example at step %d: answer rows (decoder), source columns "
                       "(encoder)"),
                    s.step);
    else
        ImGui::Text(tr("Induction probe at step %d (BOS + r + r): query rows, key columns"), s.step);
    const std::vector<std::string>& rows = s.probe_query_tokens.empty() ? s.probe_tokens : s.probe_query_tokens;
    ColorScale scale;  // attention weights
    scale.lo = 0.0f;
    scale.hi = 1.0f;
    for (int k = 0; k < n; ++k) {
        if (k % heads != 0) ImGui::SameLine();
        const Matrix& m = s.probe_maps[static_cast<std::size_t>(k)];
        KeyedTexture& tex = v.probe_maps[static_cast<std::size_t>(k)];
        tex.sync(std::to_string(v.progress.run_id) + "/" + std::to_string(snapshot_index) + "/" + std::to_string(k), m);
        ImGui::BeginGroup();
        const std::string name = s.probe_is_cross ? tr("cross") + std::string(" ") + head_name(k, heads) : head_name(k, heads);
        if (s.probe_is_cross) ImGui::TextUnformatted(name.c_str());
        else ImGui::Text(tr("%s  ind %.2f"), name.c_str(), s.metrics[static_cast<std::size_t>(k)][Metric::Induction]);
        // The head's role on this very map (the legend's roles are on held-out examples).
        if (static_cast<std::size_t>(k) < s.probe_labels.size()) label_chip(s.probe_labels[static_cast<std::size_t>(k)], tr("this probe"));
        const std::string id = "##probe" + std::to_string(k);
        // The plot puts its colour bar right of the map: `cell` is the map's side.
        const float bar = ImGui::CalcTextSize("-0.000").x + 26.0f * ctx.canvas.ui_scale;
        const PlotHover h = draw_matrix_plot(ctx.canvas, id.c_str(), tex, static_cast<int>(m.rows()), static_cast<int>(m.cols()),
                                             ImVec2(cell + bar, cell), ctx.state.colormap, scale, nullptr, nullptr);
        if (h.row >= 0 && h.col >= 0) {
            ctx.fonts.note_text(rows[static_cast<std::size_t>(h.row)]);  // a text task's CJK tokens
            ctx.fonts.note_text(s.probe_tokens[static_cast<std::size_t>(h.col)]);
            ImGui::SetTooltip(tr("%s  query %d %s → key %d %s\nweight %.4f"), name.c_str(), h.row,
                              rows[static_cast<std::size_t>(h.row)].c_str(), h.col,
                              s.probe_tokens[static_cast<std::size_t>(h.col)].c_str(), m(h.row, h.col));
        }
        ImGui::EndGroup();
    }
}

// Every head at the shown snapshot: its role and the metrics that tell heads apart.
void draw_head_table(const train::HeadSnapshot& s, int heads) {
    ImGui::Text(tr("Heads at step %d (metrics: mean over the task's first %d held-out examples; induction on BOS + r + r)"),
                s.step, train::kLabelExamples);
    constexpr Metric kShown[] = {Metric::Entropy, Metric::DistanceNoFirst, Metric::PrevToken, Metric::PrevPeak,
                                 Metric::FirstToken, Metric::DuplicateToken, Metric::Induction};
    constexpr int kFixed = 3;  // head, role (held-out), role on the probe
    if (!ImGui::BeginTable("##heads_at_step", kFixed + static_cast<int>(std::size(kShown)),
                           ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY))
        return;
    // The role columns fit their widest chip (a chip pads its name by 5 px a side).
    float chip = ImGui::CalcTextSize(tr("role on the probe")).x;
    for (const std::vector<HeadLabels>* labels : {&s.labels, &s.probe_labels})
        for (const HeadLabels& l : *labels) chip = std::max(chip, ImGui::CalcTextSize(tr(role_name(l.primary.role))).x + 10.0f);
    ImGui::TableSetupColumn(tr("head"));
    ImGui::TableSetupColumn(tr("role"), ImGuiTableColumnFlags_WidthFixed, chip);
    ImGui::TableSetupColumn(tr("role on the probe"), ImGuiTableColumnFlags_WidthFixed, chip);
    for (const Metric m : kShown) ImGui::TableSetupColumn(tr(metric_name(m)));
    ImGui::TableHeadersRow();
    for (std::size_t k = 0; k < s.metrics.size(); ++k) {
        ImGui::TableNextRow();
        ImGui::TableSetColumnIndex(0);
        ImGui::TextUnformatted(head_name(static_cast<int>(k), heads).c_str());
        ImGui::TableSetColumnIndex(1);
        if (k < s.labels.size()) label_chip(s.labels[k], tr("held-out examples"));
        ImGui::TableSetColumnIndex(2);
        if (k < s.probe_labels.size()) label_chip(s.probe_labels[k], tr("the probe BOS + r + r"));
        else ImGui::TextDisabled("–");
        for (std::size_t c = 0; c < std::size(kShown); ++c) {
            ImGui::TableSetColumnIndex(static_cast<int>(c) + kFixed);
            const double x = s.metrics[k][kShown[c]];
            if (std::isfinite(x)) ImGui::Text("%.3f", x);
            else ImGui::TextDisabled("–");
        }
    }
    ImGui::EndTable();
}

void draw_similarity(const TrainPanelContext& ctx, const train::HeadSnapshot& s, int snapshot_index, float side) {
    TrainView& v = ctx.train;
    const int heads = v.progress.config.heads, n = static_cast<int>(s.similarity.rows());
    if (n == 0) return;
    ImGui::TextUnformatted(tr("Head similarity (JSD, held-out example)"));
    v.similarity.sync(std::to_string(v.progress.run_id) + "/" + std::to_string(snapshot_index), s.similarity.cast<float>());
    ColorScale scale;
    scale.lo = v.similarity.lo;
    scale.hi = std::max(v.similarity.hi, v.similarity.lo + 1e-6f);
    const PlotHover h = draw_matrix_plot(ctx.canvas, "##train_jsd", v.similarity, n, n, ImVec2(side + ImGui::GetFontSize() * 5, side),
                                         ctx.state.colormap, scale, [heads](int i) { return head_name(i, heads); },
                                         [heads](int j) { return head_name(j, heads); });
    if (h.row >= 0 && h.col >= 0)
        ImGui::SetTooltip(tr("%s vs %s\nJSD %.4f nats"), head_name(h.row, heads).c_str(), head_name(h.col, heads).c_str(),
                          s.similarity(h.row, h.col));
}

void draw_run_tab(const TrainPanelContext& ctx);

}  // namespace

void draw_train_panel(const TrainPanelContext& ctx, const PanelRect& r) {
    TrainView& v = ctx.train;
    const float left_w = std::clamp(r.size.x * 0.24f, 300.0f * ctx.canvas.ui_scale, 440.0f * ctx.canvas.ui_scale);
    begin_fixed_window(tr("Train###train_setup"), {r.pos, ImVec2(left_w, r.size.y)});
    draw_setup(ctx);
    end_window();
    begin_fixed_window(tr("Training###training"), {ImVec2(r.pos.x + left_w, r.pos.y), ImVec2(r.size.x - left_w, r.size.y)});
    if (ImGui::BeginTabBar("##train_tabs")) {
        // "###…": the same windows and tabs in every language (switching it keeps the open one).
        if (ImGui::BeginTabItem(tr("Run###run"))) {
            draw_run_tab(ctx);
            ImGui::EndTabItem();
        }
        const ImGuiTabItemFlags select = v.select_experiment_tab ? ImGuiTabItemFlags_SetSelected : 0;
        v.select_experiment_tab = false;
        if (ImGui::BeginTabItem(tr("Head-count experiment###experiment"), nullptr, select)) {
            draw_experiment_tab(ctx);
            ImGui::EndTabItem();
        }
        ImGui::EndTabBar();
    }
    end_window();
}

namespace {

// The Run tab: the curves, the timeline and the shown snapshot's maps.
void draw_run_tab(const TrainPanelContext& ctx) {
    TrainView& v = ctx.train;
    const float fs = ImGui::GetFontSize();
    const TrainProgress& p = v.progress;
    if (!p.history) {
        text_disabled_wrapped("%s", tr("Pick a task and an architecture, then press Train. With the defaults "
                                       "(induction, 2 layers, d_model 64, 4 heads) an induction head forms within "
                                       "a minute: its score climbs past 0.3, where a head is labelled induction."));
        return;
    }
    const int count = static_cast<int>(p.history->snapshots.size());
    if (v.timeline >= count) v.timeline = -1;
    const int shown = v.timeline < 0 ? count - 1 : v.timeline;
    // Child windows: ImGui gives each its own draw list, so the frame cache redraws only
    // the curves band while training (the snapshot's maps change at snapshots only).
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float chart_h = std::max(fs * 6, avail.y * 0.30f);
    const float band_h = chart_h + ImGui::GetFrameHeightWithSpacing() * 2 + fs * 3.2f;
    begin_child("##curves", ImVec2(0, band_h), false, ImGuiWindowFlags_NoScrollbar);
    draw_status(p);
    const float half = (avail.x - ImGui::GetStyle().ItemSpacing.x) * 0.5f;
    ImGui::BeginGroup();
    draw_loss_chart(v, ImVec2(half, chart_h));
    ImGui::EndGroup();
    ImGui::SameLine();
    ImGui::BeginGroup();
    draw_trajectories(v, ImVec2(half, chart_h - ImGui::GetFrameHeightWithSpacing()), shown);
    ImGui::EndGroup();
    end_child();
    // Timeline: any snapshot; at the right end it follows the newest.
    int slider = shown;
    ImGui::SetNextItemWidth(avail.x - fs * 22);
    char label[64];  // the slider's format: no % left in it
    std::snprintf(label, sizeof label, tr("step %d"), p.history->snapshots[static_cast<std::size_t>(shown)]->step);
    if (ImGui::SliderInt("##timeline", &slider, 0, count - 1, label))
        v.timeline = slider == count - 1 ? -1 : slider;
    ImGui::SameLine();
    ImGui::TextDisabled(v.timeline < 0 ? tr("(newest)") : tr("(snapshot %d of %d)"), shown + 1, count);
    ImGui::SameLine();
    ImGui::Checkbox(tr("table"), &v.show_head_table);
    const train::HeadSnapshot& s = *p.history->snapshots[static_cast<std::size_t>(shown)];
    ImGui::SameLine();
    ImGui::BeginDisabled(!s.weights);
    if (ImGui::Button(tr("show in all views"))) show_trained_snapshot(ctx.state, v, s);
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip(s.weights ? tr("Open the model at step %d in the heatmap, grid, pipeline and analysis views; "
                                         "the Model panel's slider then moves them through training.")
                                    : tr("Step %d's weights were not kept (long runs keep every other snapshot's)"),
                          s.step);
    begin_child("##snapshot", ImVec2(0, 0), false, ImGuiWindowFlags_NoScrollbar);
    if (v.show_head_table) {
        draw_head_table(s, p.config.heads);
        end_child();
        return;
    }
    const float rest_h = ImGui::GetContentRegionAvail().y;
    const int heads = std::max(1, p.config.heads), layers = std::max(1, p.config.layers);
    const float sim_side = std::min(rest_h - fs * 3, avail.x * 0.28f);
    const float maps_w = avail.x - sim_side - fs * 8;
    // Map side: each head's slot holds the map, its colour bar (~5 em) and spacing; each
    // layer's row the map and its caption.
    const float cell = std::max(fs * 3, std::min((maps_w / static_cast<float>(heads)) - fs * 5.5f,
                                                 (rest_h - fs * 2) / static_cast<float>(layers) - fs * 2.0f));
    ImGui::BeginGroup();
    draw_probe_maps(ctx, s, shown, cell);
    ImGui::EndGroup();
    ImGui::SameLine();
    ImGui::BeginGroup();
    draw_similarity(ctx, s, shown, std::max(fs * 4, sim_side));
    ImGui::EndGroup();
    end_child();
}

}  // namespace

}  // namespace hs
