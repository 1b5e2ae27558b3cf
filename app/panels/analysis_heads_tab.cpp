// Heads tab: one row per head with its role chip and every metric (sortable by any column,
// click a row to select the head everywhere), the legend of the roles present with the
// numbers that triggered them, and corpus mode (samples or a text file, mean ± std).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "app/analysis_actions.h"
#include "app/i18n/i18n.h"
#include "app/i18n/messages.h"
#include "app/panels/panels.h"
#include "app/panels/plot_widgets.h"
#include "app/panels/widgets.h"
#include "app/panels/window_extents.h"
#include "core/analysis/analysis_export.h"
#include "core/io/atomic_file.h"

namespace hs {
namespace {

constexpr int kFixedColumns = 2;  // head, role

std::string fmt(double v) {
    if (!std::isfinite(v)) return "–";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", v);
    return buf;
}

// The head's roles as label_list writes them, in the interface language.
std::string roles_text(const HeadLabels& labels) {
    std::string s;
    for (const HeadLabel& l : labels.all) s += (s.empty() ? "" : ", ") + std::string(tr(role_name(l.role)));
    return s;
}

// A metric's description; in Chinese also its name as the CSV and JSON write it.
void metric_tooltip(Metric m) {
    if (ui_lang() == UiLang::English) ImGui::SetTooltip("%s", metric_description(m));
    else ImGui::SetTooltip("%s\n(%s)", tr(metric_description(m)), metric_name(m));
}

void draw_corpus_controls(const AnalysisPanelContext& ctx) {
    AnalysisView& a = ctx.analysis;
    ImGui::TextUnformatted(tr("Corpus:"));
    ImGui::SameLine();
    const bool ok = ctx.view.source && ctx.view.source->takes_text();
    ImGui::BeginDisabled(!ok);
    if (ImGui::Button(tr("run the samples")))
        try_action(ctx.analysis.error, [&] {
            request_corpus(ctx, sample_sentences(ctx.samples, a.corpus_all_languages),
                           a.corpus_all_languages ? "samples (all)" : "samples (en)");
        });
    ImGui::SameLine();
    ImGui::Checkbox(tr("all languages"), &a.corpus_all_languages);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(std::max(120.0f, ImGui::GetContentRegionAvail().x - 110.0f * ctx.canvas.ui_scale));
    input_path_string("##corpus_file", &a.corpus_file);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("a text file with one sentence per line"));
    ImGui::SameLine();
    if (ImGui::Button(tr("run file")))
        try_action(ctx.analysis.error, [&] { request_corpus(ctx, split_lines(read_file(a.corpus_file, kMaxTextBytes, "a text file")), a.corpus_file); });
    ImGui::EndDisabled();
    if (!ok) ImGui::TextDisabled("%s", tr("(corpus mode needs a model that reads text)"));
}

// Row order under the table's sort specs: head index, role, or a metric (NaN last).
void sort_rows(std::vector<int>& order, const ImGuiTableSortSpecs* specs, const std::vector<HeadMetrics>& metrics,
               const std::vector<HeadLabels>& labels) {
    std::iota(order.begin(), order.end(), 0);
    if (!specs || specs->SpecsCount == 0) return;
    const ImGuiTableColumnSortSpecs& s = specs->Specs[0];
    const bool desc = s.SortDirection == ImGuiSortDirection_Descending;
    const int col = s.ColumnIndex;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        if (col == 0) return desc ? a > b : a < b;
        if (col == 1) {
            const int ra = static_cast<int>(labels[static_cast<std::size_t>(a)].primary.role);
            const int rb = static_cast<int>(labels[static_cast<std::size_t>(b)].primary.role);
            return desc ? ra > rb : ra < rb;
        }
        const double va = metrics[static_cast<std::size_t>(a)].values[static_cast<std::size_t>(col - kFixedColumns)];
        const double vb = metrics[static_cast<std::size_t>(b)].values[static_cast<std::size_t>(col - kFixedColumns)];
        if (std::isnan(va) != std::isnan(vb)) return !std::isnan(va);
        return desc ? va > vb : va < vb;
    });
}

void draw_table(const AnalysisPanelContext& ctx, const std::vector<HeadMetrics>& metrics, const std::vector<HeadLabels>& labels,
                float height) {
    AnalysisView& a = ctx.analysis;
    const bool corpus = a.table_source == MetricsSource::Corpus && a.corpus;
    const int heads = shown_heads(ctx.analysis);
    const ImGuiTableFlags flags = ImGuiTableFlags_Sortable | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                  ImGuiTableFlags_ScrollX | ImGuiTableFlags_ScrollY | ImGuiTableFlags_Resizable |
                                  ImGuiTableFlags_SizingFixedFit;
    // Columns fit their contents when the table first shows; single values ("0.810") and
    // corpus cells ("0.580 ± 0.213"), English and Chinese headers are separate tables
    // (ids) so each fits its own.
    const std::string id = std::string("##metrics_") + (corpus ? "corpus_" : "text_") + to_string(ui_lang());
    if (!ImGui::BeginTable(id.c_str(), kFixedColumns + kMetricCount, flags, ImVec2(0, height))) return;
    ImGui::TableSetupScrollFreeze(2, 1);
    ImGui::TableSetupColumn(tr("head"), ImGuiTableColumnFlags_DefaultSort);
    ImGui::TableSetupColumn(tr("role"));
    for (Metric m : all_metrics()) ImGui::TableSetupColumn(tr(metric_name(m)), ImGuiTableColumnFlags_PreferSortDescending);
    ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
    for (int c = 0; c < kFixedColumns + kMetricCount; ++c) {
        ImGui::TableSetColumnIndex(c);
        ImGui::TableHeader(ImGui::TableGetColumnName(c));
        if (c >= kFixedColumns && ImGui::IsItemHovered())
            metric_tooltip(all_metrics()[static_cast<std::size_t>(c - kFixedColumns)]);
    }
    std::vector<int> order(metrics.size());
    sort_rows(order, ImGui::TableGetSortSpecs(), metrics, labels);
    for (int n : order) {
        const HeadMetrics& hm = metrics[static_cast<std::size_t>(n)];
        const HeadLabels& hl = labels[static_cast<std::size_t>(n)];
        ImGui::TableNextRow();
        ImGui::TableSetColumnIndex(0);
        char name[32];
        std::snprintf(name, sizeof name, "L%d.H%d", hm.layer, hm.head);
        const bool selected = ctx.state.map == MapKind::Self && hm.layer == ctx.state.layer && hm.head == ctx.state.head;
        if (ImGui::Selectable(name, selected, ImGuiSelectableFlags_SpanAllColumns)) {
            a.selected = n;
            ctx.state.layer = hm.layer;
            ctx.state.head = hm.head;
            ctx.state.map = MapKind::Self;
        }
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s: %s", roles_text(hl).c_str(), reason_text(hl.primary.reason).c_str());
        ImGui::TableSetColumnIndex(1);
        role_chip(hl.primary.role);
        if (hl.all.size() > 1) {
            ImGui::SameLine();
            ImGui::TextDisabled("+%d", static_cast<int>(hl.all.size()) - 1);
        }
        for (int k = 0; k < kMetricCount; ++k) {
            ImGui::TableSetColumnIndex(kFixedColumns + k);
            if (corpus) {
                const MetricStats& st = a.corpus->heads[static_cast<std::size_t>(n)].stats[static_cast<std::size_t>(k)];
                if (std::isfinite(st.mean)) ImGui::Text("%.3f ± %.3f", st.mean, st.std);
                else ImGui::TextDisabled("–");
            } else {
                const double v = hm.values[static_cast<std::size_t>(k)];
                if (std::isfinite(v)) ImGui::TextUnformatted(fmt(v).c_str());
                else ImGui::TextDisabled("–");
            }
        }
    }
    ImGui::EndTable();
    (void)heads;
}

// Legend: each role present, its rule, and the heads it fired for with the numbers.
void draw_legend(const AnalysisPanelContext& ctx, const std::vector<HeadLabels>& labels) {
    const int heads = std::max(1, shown_heads(ctx.analysis));
    ImGui::TextUnformatted(tr("Legend: roles and what triggered them (thresholds in docs/ANALYSIS.md)"));
    for (int r = 0; r <= static_cast<int>(Role::Mixed); ++r) {
        const Role role = static_cast<Role>(r);
        std::string fired;
        int count = 0;
        for (std::size_t n = 0; n < labels.size(); ++n)
            for (const HeadLabel& l : labels[n].all)
                if (l.role == role) {
                    if (count < 12)
                        fired += (count ? ", " : "") + head_name(static_cast<int>(n), heads) + " (" + reason_text(l.reason) + ")";
                    ++count;
                }
        if (count == 0) continue;
        role_chip(role);
        ImGui::SameLine();
        text_prose(tr(role_description(role)), /*disabled=*/true);  // wrapped beside the chip
        ImGui::Indent(16.0f * ctx.canvas.ui_scale);
        text_prose(printf_string(count == 1 ? tr("%d head: %s%s") : tr("%d heads: %s%s"), count, fired.c_str(),
                                 count > 12 ? ", …" : ""));
        ImGui::Unindent(16.0f * ctx.canvas.ui_scale);
    }
    const int sel = ctx.state.map == MapKind::Self ? ctx.state.layer * heads + ctx.state.head : -1;
    if (sel >= 0 && sel < static_cast<int>(labels.size())) {
        ImGui::Separator();
        ImGui::Text("%s:", head_name(sel, heads).c_str());
        for (const HeadLabel& l : labels[static_cast<std::size_t>(sel)].all) {
            role_chip(l.role);
            ImGui::SameLine();
            std::string ev;
            for (const auto& [name, value] : l.evidence) ev += tr(name) + " " + fmt(value) + "  ";
            text_prose(reason_text(l.reason) + "   [" + ev + "]");
        }
    }
}

}  // namespace

void draw_heads_tab(const AnalysisPanelContext& ctx) {
    AnalysisView& a = ctx.analysis;
    draw_corpus_controls(ctx);
    if (a.corpus) {
        int src = static_cast<int>(a.table_source);
        ImGui::TextUnformatted(tr("Table:"));
        ImGui::SameLine();
        if (ImGui::RadioButton(tr("this text"), &src, 0)) a.table_source = MetricsSource::Text;
        ImGui::SameLine();
        const std::string corpus_label = printf_string(tr("corpus %s (%d sentences, mean ± std)"),
                                                       tr(a.corpus_name.c_str()), a.corpus->analysed);
        if (ImGui::RadioButton(corpus_label.c_str(), &src, 1)) a.table_source = MetricsSource::Corpus;
        if (!a.corpus->skipped.empty()) {
            ImGui::SameLine();
            ImGui::TextDisabled(tr("(%d skipped)"), static_cast<int>(a.corpus->skipped.size()));
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", a.corpus->skipped.front().c_str());
        }
    }
    const std::vector<HeadLabels>* labels = shown_labels(ctx.analysis);
    const std::vector<HeadMetrics> metrics = shown_metrics(ctx.analysis);
    if (!labels || metrics.empty()) {
        ImGui::TextDisabled("%s", tr("No analysis yet: press Analyze (this text) or run a corpus."));
        return;
    }
    const float avail = ImGui::GetContentRegionAvail().y;
    draw_table(ctx, metrics, *labels, std::max(120.0f, avail * 0.58f));
    begin_child("##legend", ImVec2(0, 0), false);
    draw_legend(ctx, *labels);
    end_child();
}

}  // namespace hs
