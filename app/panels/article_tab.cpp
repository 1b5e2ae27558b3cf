// Article tab (worked examples that record what their source printed): every printed
// number beside ours and the difference, the ones the article got wrong in red, so a
// student can check the tutorial cell by cell. The comparison comes from core
// (compare_with_article, on the worker).
#include <cmath>
#include <cstdio>

#include "app/i18n/i18n.h"
#include "app/i18n/messages.h"
#include "app/panels/panels.h"
#include "app/panels/widgets.h"

namespace hs {
namespace {

// "Q", "Q·Kᵀ", … as the Pipeline names the steps.
const char* step_title(const std::string& step) {
    if (step == "scores") return "Q·Kᵀ";
    if (step == "scaled") return "÷√d_k";
    if (step == "weights") return "softmax";
    if (step == "head") return "A·V";
    if (step == "concat") return tr("concat");
    if (step == "output") return tr("output");
    return step.c_str();
}

}  // namespace

bool article_tab_available(const TraceView& view) {
    return !view.info.article.empty() || !view.info.article_error.empty();
}

void draw_article_tab(PipelineView& pipeline, const TraceView& view) {
    const ModelInfo& info = view.info;
    if (info.article_error == kEditedExampleNotCompared) {  // not an error: a reason
        ImGui::TextWrapped("%s", tr_message(info.article_error).c_str());
        return;
    }
    if (!info.article_error.empty()) {
        ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), "%s", tr_message(info.article_error).c_str());
        return;
    }
    int wrong = 0;
    for (const ArticleCell& c : info.article) wrong += !c.agrees;
    ImGui::TextWrapped(tr("%zu numbers the article printed, recomputed here: %d agree to its three decimals, %d do "
                          "not (red). Hover a number for its full value."),
                       info.article.size(), static_cast<int>(info.article.size()) - wrong, wrong);
    // The wrong numbers are what a student looks for; in step order they sat below the fold.
    bool& errors_only = pipeline.article_errors_only;
    if (wrong > 0) ImGui::Checkbox(printf_string(tr("only the %d numbers the article got wrong"), wrong).c_str(), &errors_only);
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_BordersInnerV |
                                  ImGuiTableFlags_SizingFixedFit;
    if (!ImGui::BeginTable("##article", 6, flags)) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn(tr("step"));
    ImGui::TableSetupColumn(tr("head"));
    ImGui::TableSetupColumn(tr("cell (row, col)"));
    ImGui::TableSetupColumn("HeadScope");
    ImGui::TableSetupColumn(tr("article"));
    ImGui::TableSetupColumn(tr("difference"));
    ImGui::TableHeadersRow();
    const ImVec4 red(1.0f, 0.45f, 0.4f, 1.0f);
    for (const ArticleCell& c : info.article) {
        if (errors_only && wrong > 0 && c.agrees) continue;
        ImGui::TableNextRow();
        ImGui::TableSetColumnIndex(0);
        ImGui::TextUnformatted(step_title(c.step));
        ImGui::TableSetColumnIndex(1);
        if (c.step == "concat" || c.step == "output") ImGui::TextDisabled("%s", tr("all"));
        else ImGui::Text(tr("%d (its head_%d)"), c.head, c.head + 1);  // we count from 0, the articles from 1
        ImGui::TableSetColumnIndex(2);
        ImGui::Text("(%d, %d)", c.row + 1, c.col + 1);
        ImGui::TableSetColumnIndex(3);
        ImGui::Text("%.4g", c.ours);
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%.9g", c.ours);
        ImGui::TableSetColumnIndex(4);
        ImGui::Text("%.4g", c.printed);
        ImGui::TableSetColumnIndex(5);
        if (c.agrees) ImGui::TextDisabled("%+.2g", c.ours - c.printed);
        else ImGui::TextColored(red, tr("%+.3g  wrong"), c.ours - c.printed);
    }
    ImGui::EndTable();
}

}  // namespace hs
