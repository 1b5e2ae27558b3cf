// The Train view's Experiment tab (issue 13): the setup on the left over several values of
// heads (at its d_model) or d_model (at its heads), run one after another on the
// ExperimentWorker; side by side as runs finish: each run's best induction score over the
// steps, its held-out loss, the first step with an induction head; a table with d_k, the
// losses and the roles the heads ended with; CSV and PNG export through core.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "app/analysis_actions.h"
#include "app/analysis_files.h"
#include "app/i18n/i18n.h"
#include "app/i18n/messages.h"
#include "app/panels/panels.h"
#include "app/panels/plot_widgets.h"
#include "core/analysis/head_labels.h"
#include "core/error.h"
#include "core/image/png.h"
#include "core/io/atomic_file.h"

namespace hs {

namespace {

// The roles the heads ended with, as train::roles_text writes them, in the interface language.
std::string roles_shown(const train::ExperimentRun& r) {
    std::string out;
    for (const auto& [name, count] : r.roles) out += (out.empty() ? "" : "; ") + tr(name) + " ×" + std::to_string(count);
    return out;
}

void draw_experiment_plots(const ExperimentProgress& e, float width, float height) {
    const std::size_t n = e.runs.size();
    const float w = (width - 2 * ImGui::GetStyle().ItemSpacing.x) / 3.0f;
    const auto value_label = [&e](int i) {
        return tr(e.key) + " " + std::to_string(e.runs[static_cast<std::size_t>(i)].value);
    };
    std::vector<ImU32> colors;
    for (std::size_t i = 0; i < n; ++i) colors.push_back(series_color(static_cast<int>(i)));
    // Best induction score per snapshot (the runs share steps: same budget and K).
    std::size_t longest = 0;
    for (std::size_t i = 0; i < n; ++i)
        if (e.runs[i].steps.size() > e.runs[longest].steps.size()) longest = i;
    std::vector<std::vector<double>> curves;
    for (const train::ExperimentRun& r : e.runs) curves.push_back(r.induction);
    ImGui::BeginGroup();
    ImGui::TextUnformatted(tr("best induction score per step"));
    for (std::size_t i = 0; i < n; ++i) {
        if (i > 0) ImGui::SameLine();
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colors[i]), "%s", value_label(static_cast<int>(i)).c_str());
    }
    const ChartLine formed = induction_head_line();
    const PlotHover hl = draw_line_chart(
        "##exp_ind", curves, colors, ImVec2(w, height), 0.0, 1.0,
        [&](int k) {
            const auto& steps = e.runs[longest].steps;
            return k < static_cast<int>(steps.size()) ? std::to_string(steps[static_cast<std::size_t>(k)]) : std::string();
        },
        &formed);
    if (hl.row >= 0 && hl.col >= 0 && hl.col < static_cast<int>(curves[static_cast<std::size_t>(hl.row)].size()))
        ImGui::SetTooltip(tr("%s at step %d\nbest induction score %.3f"), value_label(hl.row).c_str(),
                          e.runs[static_cast<std::size_t>(hl.row)].steps[static_cast<std::size_t>(hl.col)],
                          curves[static_cast<std::size_t>(hl.row)][static_cast<std::size_t>(hl.col)]);
    ImGui::EndGroup();
    ImGui::SameLine();
    std::vector<double> loss, first;
    double loss_hi = 0.0, step_hi = 1.0;
    for (const train::ExperimentRun& r : e.runs) {
        loss.push_back(r.held_out_loss);
        loss_hi = std::max(loss_hi, r.held_out_loss);
        first.push_back(r.first_induction_step < 0 ? std::nan("") : r.first_induction_step);
        if (!r.steps.empty()) step_hi = std::max(step_hi, static_cast<double>(r.steps.back()));
    }
    ImGui::BeginGroup();
    ImGui::TextUnformatted(tr("held-out loss (nats)"));
    ImGui::Dummy(ImVec2(0, ImGui::GetTextLineHeight()));
    const PlotHover hb = draw_bar_chart("##exp_loss", loss, nullptr, ImVec2(w, height), 0.0, std::ceil(loss_hi * 2) / 2,
                                        value_label, &colors);
    if (hb.col >= 0)
        ImGui::SetTooltip(tr("%s\nheld-out loss %.4f"), value_label(hb.col).c_str(), loss[static_cast<std::size_t>(hb.col)]);
    ImGui::EndGroup();
    ImGui::SameLine();
    ImGui::BeginGroup();
    ImGui::Text(tr("first step with an induction head (≥ %.1f)"), LabelThresholds{}.induction);
    ImGui::Dummy(ImVec2(0, ImGui::GetTextLineHeight()));
    const PlotHover hf = draw_bar_chart("##exp_first", first, nullptr, ImVec2(w, height), 0.0, step_hi, value_label, &colors);
    if (hf.col >= 0) {
        const train::ExperimentRun& r = e.runs[static_cast<std::size_t>(hf.col)];
        if (r.first_induction_step < 0) ImGui::SetTooltip(tr("%s\nno induction head formed"), value_label(hf.col).c_str());
        else ImGui::SetTooltip(tr("%s\nfirst induction head at step %d"), value_label(hf.col).c_str(), r.first_induction_step);
    }
    ImGui::EndGroup();
}

void draw_experiment_table(const ExperimentProgress& e) {
    if (!ImGui::BeginTable("##exp_table", 7, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY))
        return;
    for (const char* c : {tr(e.key.c_str()), "d_k", tr("final loss"), tr("held-out loss"), tr("best induction"),
                          tr("first induction"), tr("roles")})
        ImGui::TableSetupColumn(c);
    ImGui::TableHeadersRow();
    for (const train::ExperimentRun& r : e.runs) {
        ImGui::TableNextRow();
        ImGui::TableSetColumnIndex(0);
        ImGui::Text("%d", r.value);
        ImGui::TableSetColumnIndex(1);
        ImGui::Text("%d", r.d_k);
        ImGui::TableSetColumnIndex(2);
        ImGui::Text("%.4f", r.final_loss);
        ImGui::TableSetColumnIndex(3);
        ImGui::Text("%.4f", r.held_out_loss);
        ImGui::TableSetColumnIndex(4);
        ImGui::Text("%.2f", r.best_induction);
        ImGui::TableSetColumnIndex(5);
        if (r.first_induction_step < 0) ImGui::TextDisabled("%s", tr("never"));
        else ImGui::Text(tr("step %d"), r.first_induction_step);
        ImGui::TableSetColumnIndex(6);
        ImGui::TextUnformatted(roles_shown(r).c_str());
    }
    ImGui::EndTable();
}

}  // namespace

void export_experiment_csv(const ExperimentWorker& experiment, TrainView& train, const std::string& path) {
    const ExperimentProgress e = experiment.progress();
    if (e.runs.empty()) throw Error(tr("the experiment has no finished run to export"));
    write_file_atomic(path, train::experiment_csv(e.key, e.runs));
    train.experiment_status = wrote_status(path);
}

void export_experiment_png(const ExperimentWorker& experiment, TrainView& train, const std::string& path) {
    const ExperimentProgress e = experiment.progress();
    write_png(path, train::render_experiment(e.key, e.runs));
    train.experiment_status = wrote_status(path);
}

void draw_experiment_tab(const TrainPanelContext& ctx) {
    TrainView& v = ctx.train;
    v.experiment = ctx.experiment_worker.progress();
    const ExperimentProgress& e = v.experiment;
    const float fs = ImGui::GetFontSize();
    ImGui::TextDisabled("%s", tr("The setup on the left (task, architecture, batch, learning rate, steps), once per value:"));
    ImGui::SetNextItemWidth(fs * 6);
    const char* keys[] = {tr("heads"), "d_model"};  // shown; the key stays "heads" / "d_model"
    ImGui::Combo("##exp_key", &v.experiment_key, keys, 2);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(fs * 10);
    input_text_string("##exp_values", &v.experiment_values);
    ImGui::SameLine();
    if (!e.running) {
        if (ImGui::Button(tr("Run experiment"))) try_action(v.experiment_error, [&] { ctx.experiment_worker.start(experiment_setup(v)); });
    } else if (ImGui::Button(tr("Cancel"))) {
        ctx.experiment_worker.cancel();
    }
    ImGui::SameLine();
    ImGui::BeginDisabled(e.runs.empty());
    const std::string stem = "experiment_" + (e.key.empty() ? std::string("heads") : e.key);
    if (ImGui::Button("CSV")) try_action(v.experiment_error, [&] { export_experiment_csv(ctx.experiment_worker, v, export_path(ctx.state.export_dir, stem, "csv")); });
    ImGui::SameLine();
    if (ImGui::Button("PNG")) try_action(v.experiment_error, [&] { export_experiment_png(ctx.experiment_worker, v, export_path(ctx.state.export_dir, stem, "png")); });
    ImGui::EndDisabled();
    if (e.total_steps > 0) {
        char overlay[160];
        std::snprintf(overlay, sizeof overlay, tr("%zu of %zu runs · step %d of %d"), e.runs.size(), e.values.size(),
                      e.done_steps, e.total_steps);
        ImGui::ProgressBar(static_cast<float>(e.done_steps) / static_cast<float>(e.total_steps), ImVec2(-1, 0), overlay);
    }
    if (!e.error.empty()) ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), "%s", tr_message(e.error).c_str());
    if (!v.experiment_error.empty()) ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), "%s", tr_message(v.experiment_error).c_str());
    if (!v.experiment_status.empty()) ImGui::TextDisabled("%s", v.experiment_status.c_str());
    if (e.runs.empty()) {
        ImGui::TextDisabled("%s", e.running ? tr("the first run is training …")
                                            : tr("At d_model 64, 8 and 16 heads (d_k 8, 4) form an induction head later "
                                                 "or never."));
        return;
    }
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    draw_experiment_plots(e, avail.x, std::max(fs * 8, avail.y * 0.55f));
    draw_experiment_table(e);
}

}  // namespace hs
