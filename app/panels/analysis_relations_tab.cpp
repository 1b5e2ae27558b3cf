// Relations tab: each head's accuracy at pointing from a dependent to its gold partner
// (core/analysis/relation_probe.h), per relation and language, against three baselines
// (fixed offset, fixed position, nearest candidate word): a table whose best-head buttons
// show that head in the heatmap on a sample whose gold arcs the heatmap draws over the
// map, and a bar plot (best head beside the strongest baseline). Every number comes from
// the analysis worker's probe.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "app/analysis_actions.h"
#include "app/i18n/i18n.h"
#include "app/panels/panels.h"
#include "app/panels/plot_widgets.h"
#include "app/panels/widgets.h"

namespace hs {

namespace {

void draw_probe_controls(const AnalysisPanelContext& ctx) {
    AnalysisView& a = ctx.analysis;
    constexpr const char* kTips[kRelationsCorpusCount] = {
        "300 English and 300 Chinese sentences of structure families the default model never trained on (new "
        "orders, distances, distractors, dates and repeated names): what a claim is measured on "
        "(headscope corpus --held-out --count 600 --seed 99)",
        "300 English and 300 Chinese sentences of the patterns the default model trained on: a head may score well "
        "here by a template (headscope corpus --count 600 --seed 99)",
        "the samples of assets/samples.json that carry gold relations"};
    for (int i = 0; i < kRelationsCorpusCount; ++i) {
        const char* name = tr(relations_corpus_name(static_cast<RelationsCorpus>(i)));
        if (i > 0) same_line_if_fits(ImGui::GetFrameHeight() + ImGui::CalcTextSize(name).x + 8.0f);
        ImGui::RadioButton(name, &a.relations_corpus_choice, i);
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr(kTips[i]));
    }
    same_line_if_fits(button_width(tr("Probe relations")));
    // A worked example has fixed tokens: it reads no sentence (the tab says so below).
    const bool reads_text = ctx.view.source && ctx.view.source->takes_text();
    ImGui::BeginDisabled(!reads_text);
    if (ImGui::Button(tr("Probe relations")))
        try_action(ctx.analysis.error, [&] { request_relations(ctx, static_cast<RelationsCorpus>(a.relations_corpus_choice)); });
    ImGui::EndDisabled();
}

// One baseline's cell: its accuracy, amber when it is the one the best head must beat.
void baseline_cell(const RelationScore& r, Baseline which, const char* text) {
    if (r.best_baseline() == which) ImGui::TextColored(kAmber, "%s", text);
    else ImGui::TextUnformatted(text);
}

void draw_relation_table(const AnalysisPanelContext& ctx, const RelationRun& run) {
    const bool held_out = relations_held_out(ctx.analysis);
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;
    if (!ImGui::BeginTable("##relations", 8, flags)) return;
    for (const char* h : {tr("relation"), tr("arcs"), tr("best head"), tr("accuracy"), tr("offset"), tr("position"),
                          tr("candidate"), tr("margin")})
        ImGui::TableSetupColumn(h);
    ImGui::TableHeadersRow();
    for (const RelationScore& r : run.scores) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(tr(corpus::relation_name(r.relation)));
        ImGui::TableNextColumn();
        ImGui::Text("%d", r.arcs);
        ImGui::TableNextColumn();  // the best head: a click shows it
        ImGui::PushID(static_cast<int>(r.relation));
        if (ImGui::SmallButton(printf_string("L%d.H%d", r.best_head / run.heads, r.best_head % run.heads).c_str()))
            show_relation_head(ctx, run, r);
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip(tr("the heatmap shows L%d.H%d on a %s sample with its gold arcs outlined"), r.best_head / run.heads,
                              r.best_head % run.heads, run.lang.c_str());
        ImGui::PopID();
        ImGui::TableNextColumn();
        ImGui::Text("%.3f", r.best_accuracy);
        ImGui::TableNextColumn();
        baseline_cell(r, Baseline::Offset, printf_string("%.3f (−%d)", r.offset_accuracy, r.offset_baseline).c_str());
        if (ImGui::IsItemHovered()) ImGui::SetTooltip(tr("always the token %d back"), r.offset_baseline);
        ImGui::TableNextColumn();
        baseline_cell(r, Baseline::Position, printf_string("%.3f (@%d)", r.position_accuracy, r.position_baseline).c_str());
        if (ImGui::IsItemHovered()) ImGui::SetTooltip(tr("always token %d of the sentence"), r.position_baseline);
        ImGui::TableNextColumn();
        if (r.has_candidate_baseline) {
            baseline_cell(r, Baseline::Candidate, printf_string("%.3f", r.candidate_accuracy).c_str());
            if (ImGui::IsItemHovered())
                ImGui::SetTooltip("%s", tr("the nearest earlier name (he, she), noun (it) or noun (agreement)"));
        } else {
            ImGui::TextDisabled("—");
        }
        ImGui::TableNextColumn();
        const ImVec4 colour = r.claimed() ? ImVec4(0.45f, 0.9f, 0.45f, 1.0f) : ImVec4(0.7f, 0.7f, 0.7f, 1.0f);
        // A claim on the held-out structures holds on sentences the model never saw in that
        // shape; one on the training patterns may be a template (the tooltip says which).
        ImGui::TextColored(colour, "%+.3f", r.margin());
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("%s", r.claimed() ? held_out ? tr("a relation head: on structures the model never trained on, it "
                                                                "beats every baseline (fixed offset, fixed position, nearest "
                                                                "candidate word) by ≥ 0.2")
                                                           : tr("a relation head: it beats every baseline (fixed offset, fixed "
                                                                "position, nearest candidate word) by ≥ 0.2")
                                                : printf_string(tr("within 0.2 of a baseline: %s explains it as well"),
                                                                baseline_phrase(r).c_str())
                                                      .c_str());
    }
    ImGui::EndTable();
}

// Per relation, two bars: the best head's accuracy (coloured) and the strongest baseline
// (grey); a click shows the relation's head as its button in the table does.
void draw_relation_bars(const AnalysisPanelContext& ctx, const RelationRun& run) {
    std::vector<double> values;
    std::vector<ImU32> colours;
    for (const RelationScore& r : run.scores) {
        values.push_back(r.best_accuracy);
        values.push_back(r.best_baseline_accuracy());
        colours.push_back(series_color(static_cast<int>(r.relation)));
        colours.push_back(IM_COL32(120, 120, 130, 255));
    }
    const float height = std::clamp(ImGui::GetContentRegionAvail().y - 8.0f, 120.0f, 320.0f * ImGui::GetFontSize() / 13.0f);
    const ImVec2 size(ImGui::GetContentRegionAvail().x, height);
    const PlotHover hover = draw_bar_chart(
        "##relation_bars", values, nullptr, size, 0.0, 1.0,
        [&](int i) {
            return i % 2 == 0 ? std::string(tr(corpus::relation_name(run.scores[static_cast<std::size_t>(i / 2)].relation)))
                              : std::string();
        },
        &colours);
    if (hover.col >= 0) {
        const RelationScore& r = run.scores[static_cast<std::size_t>(hover.col / 2)];
        if (hover.clicked) show_relation_head(ctx, run, r);
        if (hover.col % 2 == 0)
            ImGui::SetTooltip(tr("%s: best head L%d.H%d, accuracy %.3f over %d arcs (click: show it)"),
                              tr(corpus::relation_name(r.relation)), r.best_head / run.heads, r.best_head % run.heads, r.best_accuracy, r.arcs);
        else
            ImGui::SetTooltip(tr("%s: strongest baseline, %s: %.3f"), tr(corpus::relation_name(r.relation)),
                              baseline_phrase(r).c_str(), r.best_baseline_accuracy());
    }
}

}  // namespace

void draw_relations_tab(const AnalysisPanelContext& ctx) {
    AnalysisView& a = ctx.analysis;
    draw_probe_controls(ctx);
    if (ctx.view.source && !ctx.view.source->takes_text()) {
        ImGui::TextDisabled("%s", tr("A worked example has fixed inputs: open a model to probe relations."));
        return;
    }
    if (!a.relations) {
        ImGui::TextWrapped("%s", tr("Probe relations: for sentences with gold relations (agreement, pronoun → antecedent, "
                                    "modifier, brackets, dates, negation, repeated names), each head's accuracy at "
                                    "attending from the dependent word to its partner (Clark et al. 2019), against three "
                                    "baselines: the best fixed offset, the best fixed position and the nearest earlier "
                                    "word of the partner's kind. A head is claimed when it beats all three by 0.2."));
        return;
    }
    if (!a.relations_of(ctx.view.model_arg)) {
        // Another model's results would name heads (L2.H0 …) of the model shown: they stay
        // kept for when that model is open again, and are not drawn here.
        if (a.error.empty())  // else the toolbar shows why this model's probe failed
            ImGui::TextColored(kAmber, tr("probed on %s; press Probe relations for the model shown"),
                               a.relations_model.c_str());
        return;
    }
    for (int i = 0; i < static_cast<int>(a.relations->size()); ++i) {
        if (i > 0) ImGui::SameLine();
        const std::string& lang = (*a.relations)[static_cast<std::size_t>(i)].lang;
        ImGui::RadioButton(lang == "zh" ? "中文 (zh)" : lang == "en" ? "English (en)" : lang.c_str(), &a.relations_lang, i);
    }
    const RelationRun& run = (*a.relations)[static_cast<std::size_t>(a.relations_lang)];
    ImGui::SameLine();
    text_disabled_wrapped(tr("%d sentences of %s%s"), run.analysed, tr(a.relations_corpus.c_str()),
                          a.relations_skipped.empty() ? "" : tr(" (some skipped: hover)"));
    if (!a.relations_skipped.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", a.relations_skipped.front().c_str());
    if (run.merged > 0)
        text_disabled_wrapped(tr("%d of them read in pieces: probed on word-word maps (attention to a word is the sum "
                                 "over its pieces, from a word the mean over its pieces, as Clark et al. 2019 do)."),
                              run.merged);
    if (relations_held_out(a))
        text_disabled_wrapped("%s", tr("Structures the default model never trained on: a claim here holds beyond the "
                                       "templates it learned from."));
    else if (a.relations_corpus == relations_corpus_name(RelationsCorpus::Grammar)) {
        ImGui::PushStyleColor(ImGuiCol_Text, kAmber);
        ImGui::TextWrapped("%s", tr("The patterns the default model trained on: a head may score by a template here. "
                                    "Its claims are measured on the held-out structures."));
        ImGui::PopStyleColor();
    }
    draw_relation_table(ctx, run);
    draw_relation_bars(ctx, run);
}

}  // namespace hs
