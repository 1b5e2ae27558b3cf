// gui_check analysis STATE.json ABLATED.json RANKED.json SHOT.png MODEL TEXT HEAD
//   The Analysis window's dumped results (script `analyze`, `ablate L.H`, `rank-heads`,
//   `dump-state`) against core computed here independently:
//   - every head's labels and metrics equal analyze_trace() on the same text, and at
//     least one head is a previous-token head;
//   - the ablation's KL equals ablate() for that head (zero mode);
//   - the ranking covers every head, sorted by effect, and lists the same KL for it;
//   - the screenshot shows the Analysis view with previous-token role chips.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/gui/gui_check_util.h"

#include "core/analysis/ablation.h"
#include "core/analysis/analysis_export.h"
#include "core/analysis/trace_analysis.h"
#include "core/image/png.h"
#include "core/open_source.h"
#include "core/source.h"

namespace {

using hs::gui_check::check;
using hs::gui_check::failures;

using hs::gui_check::read_json;

std::string labels_of(const hs::HeadLabels& l) {
    std::string out;
    for (const hs::HeadLabel& x : l.all) out += std::string(out.empty() ? "" : "; ") + hs::role_name(x.role);
    return out;
}

std::string labels_of(const nlohmann::json& h) {
    std::string out;
    for (const auto& x : h.at("labels")) out += std::string(out.empty() ? "" : "; ") + x.at("role").get<std::string>();
    return out;
}

}  // namespace

int check_analysis(char** argv) {
    const nlohmann::json state = read_json(argv[2]);
    const nlohmann::json ablated = read_json(argv[3]);
    const nlohmann::json ranked = read_json(argv[4]);
    const std::string shot = argv[5], model = argv[6], text = argv[7], head = argv[8];

    // 1. Labels and metrics against core's analyze_trace on the same text.
    const auto source = hs::open_source(model);
    hs::SourceInput input;
    input.text = text;
    const hs::Trace trace = source->run(input, hs::TraceOptions{});
    const hs::TraceAnalysis want = hs::analyze_trace(trace, source.get());
    const nlohmann::json& a = state.at("analysis");
    check(a.contains("analysis"), "the app dumped an analysis (error '" + a.at("error").get<std::string>() + "')");
    if (!a.contains("analysis")) return 1;
    const nlohmann::json& table = a.at("analysis").at("heads_table");
    check(table.size() == want.metrics.size(), "the table has every head: " + std::to_string(want.metrics.size()) +
                                                   " (got " + std::to_string(table.size()) + ")");
    int previous = 0, label_mismatch = 0;
    double worst = 0.0;
    std::string prev_heads;
    for (std::size_t n = 0; n < std::min(table.size(), want.metrics.size()); ++n) {
        const nlohmann::json& h = table[n];
        if (h.at("layer") != want.labels[n].layer || h.at("head") != want.labels[n].head ||
            h.at("label") != hs::role_name(want.labels[n].primary.role) || labels_of(h) != labels_of(want.labels[n])) {
            ++label_mismatch;
            std::fprintf(stderr, "  head %s: app '%s', core '%s'\n", hs::head_name(int(n), want.heads).c_str(),
                         labels_of(h).c_str(), labels_of(want.labels[n]).c_str());
        }
        for (const auto& x : h.at("labels"))
            if (x.at("role") == hs::role_name(hs::Role::PreviousToken)) {
                ++previous;
                prev_heads += " " + hs::head_name(int(n), want.heads);
            }
        for (hs::Metric m : hs::all_metrics()) {
            const nlohmann::json& v = h.at("metrics").at(hs::metric_name(m));
            const double w = want.metrics[n][m];
            if (v.is_null() || !std::isfinite(w)) {
                if (v.is_null() != !std::isfinite(w)) worst = INFINITY;
                continue;
            }
            worst = std::max(worst, std::fabs(v.get<double>() - w));
        }
    }
    check(label_mismatch == 0, "every head's labels equal core's analyze_trace (" + std::to_string(label_mismatch) +
                                   " differ)");
    check(worst < 1e-5, "every metric equals core's (max |diff| " + std::to_string(worst) + ")");
    check(previous >= 1, "at least one previous-token head (" + std::to_string(previous) + ":" + prev_heads + ")");
    check(a.at("analysis").at("has_induction").get<bool>() == want.has_induction, "induction scores computed as in core");

    // 2. Ablation of one head: the dumped KL equals core's ablate().
    const hs::HeadRef ref = hs::parse_head_ref(head);
    const hs::AblationEffect effect = hs::ablate(*source, input, {ref}, hs::AblationMode::Zero);
    const nlohmann::json& e = ablated.at("analysis").at("effect");
    check(e.at("heads") == nlohmann::json::array({head}) && e.at("mode") == "zero", "the app ablated " + head);
    const double kl = e.at("kl").get<double>();
    check(effect.has_next_token && e.at("has_next_token").get<bool>(), "next-token distributions compared");
    check(std::fabs(kl - effect.kl) <= 1e-7 + 1e-4 * effect.kl && effect.kl > 0.0,
          "KL after ablating " + head + " equals core's ablate(): app " + std::to_string(kl) + ", core " +
              std::to_string(effect.kl));
    const auto hidden = e.at("hidden_change").get<std::vector<double>>();
    double hidden_diff = hidden.size() == effect.hidden_change.size() ? 0.0 : INFINITY;
    for (std::size_t l = 0; l < std::min(hidden.size(), effect.hidden_change.size()); ++l)
        hidden_diff = std::max(hidden_diff, std::fabs(hidden[l] - effect.hidden_change[l]));
    check(hidden_diff < 1e-5, "hidden-state change per layer equals core's (max |diff| " + std::to_string(hidden_diff) + ")");
    check(hidden.size() > static_cast<std::size_t>(ref.layer) && hidden[static_cast<std::size_t>(ref.layer)] > 0.0 &&
              (ref.layer == 0 || hidden[static_cast<std::size_t>(ref.layer) - 1] == 0.0),
          "layers before " + std::to_string(ref.layer) + " are unchanged, layer " + std::to_string(ref.layer) + " changes");

    // 3. Rank heads: every head once, effect descending, the same KL for `head`.
    const nlohmann::json& r = ranked.at("analysis").at("ranking");
    const auto& heads = r.at("heads");
    bool sorted = heads.size() == want.metrics.size();
    double ranked_kl = -1.0;
    for (std::size_t i = 0; i < heads.size(); ++i) {
        if (i && heads[i].at("effect").get<double>() > heads[i - 1].at("effect").get<double>()) sorted = false;
        if (heads[i].at("head") == head) ranked_kl = heads[i].at("effect").get<double>();
    }
    check(r.at("measure") == "kl" && sorted, "rank-heads lists all " + std::to_string(want.metrics.size()) +
                                                 " heads by KL, largest first");
    check(std::fabs(ranked_kl - effect.kl) <= 1e-7 + 1e-4 * effect.kl,
          "the ranking's KL for " + head + " equals core's (" + std::to_string(ranked_kl) + ")");

    // 4. The screenshot shows the Analysis view: previous-token chips in their colour.
    const hs::RgbImage image = hs::read_png(shot);
    int chip = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
            const hs::Rgb8 p = image.at(x, y);
            chip += p.r == 66 && p.g == 135 && p.b == 245;
        }
    check(state.at("analysis").at("view") == "analysis", "the window shows the Analysis view");
    check(chip > 200, "the screenshot shows previous-token role chips (" + std::to_string(chip) + " pixels)");
    return failures ? 1 : 0;
}
