#include "core/analysis/analysis_export.h"

#include <cmath>
#include <cstdio>

#include "core/analysis/head_similarity.h"

namespace hs {

namespace {

// Shortest round-trip-ish text for a metric value; NaN (undefined) is an empty field.
std::string number(double v) {
    if (std::isnan(v)) return "";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

nlohmann::json json_number(double v) { return std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v); }

std::string roles_joined(const HeadLabels& l) {
    std::string s;
    for (const HeadLabel& x : l.all) s += (s.empty() ? "" : "; ") + std::string(role_name(x.role));
    return s;
}

// A CSV field, quoted when it holds a comma, quote or newline.
std::string field(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

std::string header(bool with_std) {
    std::string h = "layer,head,label,labels";
    for (Metric m : all_metrics()) h += std::string(",") + metric_name(m);
    if (with_std) {
        for (Metric m : all_metrics()) h += std::string(",") + metric_name(m) + "_std";
        h += ",sentences";
    }
    return h + "\n";
}

nlohmann::json labels_json(const HeadLabels& l) {
    nlohmann::json all = nlohmann::json::array();
    for (const HeadLabel& x : l.all) {
        nlohmann::json evidence = nlohmann::json::object();
        for (const auto& [name, value] : x.evidence) evidence[name] = json_number(value);
        all.push_back({{"role", role_name(x.role)}, {"reason", x.reason}, {"evidence", evidence}});
    }
    return all;
}

nlohmann::json matrix_json(const Eigen::MatrixXd& m) {
    nlohmann::json rows = nlohmann::json::array();
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        nlohmann::json row = nlohmann::json::array();
        for (Eigen::Index j = 0; j < m.cols(); ++j) row.push_back(m(i, j));
        rows.push_back(row);
    }
    return rows;
}

nlohmann::json pairs_json(const std::vector<HeadPair>& pairs, int heads) {
    nlohmann::json out = nlohmann::json::array();
    for (const HeadPair& p : pairs)
        out.push_back({{"a", head_name(p.a, heads)}, {"b", head_name(p.b, heads)}, {"jsd", p.jsd}});
    return out;
}

}  // namespace

std::string head_name(int n, int heads_per_layer) {
    if (heads_per_layer <= 0) return std::to_string(n);
    return "L" + std::to_string(n / heads_per_layer) + ".H" + std::to_string(n % heads_per_layer);
}

std::string metrics_csv(const std::vector<HeadMetrics>& metrics, const std::vector<HeadLabels>& labels) {
    std::string out = header(false);
    for (std::size_t k = 0; k < metrics.size(); ++k) {
        const HeadMetrics& m = metrics[k];
        out += std::to_string(m.layer) + "," + std::to_string(m.head) + ",";
        out += k < labels.size() ? field(role_name(labels[k].primary.role)) + "," + field(roles_joined(labels[k]))
                                 : std::string(",");
        for (double v : m.values) out += "," + number(v);
        out += "\n";
    }
    return out;
}

std::string corpus_csv(const CorpusResult& corpus, const std::vector<HeadLabels>& labels) {
    std::string out = header(true);
    for (std::size_t k = 0; k < corpus.heads.size(); ++k) {
        const HeadStats& h = corpus.heads[k];
        out += std::to_string(h.layer) + "," + std::to_string(h.head) + ",";
        out += k < labels.size() ? field(role_name(labels[k].primary.role)) + "," + field(roles_joined(labels[k]))
                                 : std::string(",");
        for (const MetricStats& s : h.stats) out += "," + number(s.mean);
        for (const MetricStats& s : h.stats) out += "," + number(s.std);
        out += "," + std::to_string(corpus.analysed) + "\n";
    }
    return out;
}

nlohmann::json analysis_to_json(const Trace& trace, const TraceAnalysis& a) {
    nlohmann::json j;
    j["model"] = trace.model_name;
    j["tokens"] = trace.main.tokens;
    j["layers"] = a.layers;
    j["heads"] = a.heads;
    nlohmann::json names = nlohmann::json::array();
    for (Metric m : all_metrics()) names.push_back(metric_name(m));
    j["metric_names"] = names;
    nlohmann::json table = nlohmann::json::array();
    for (std::size_t k = 0; k < a.metrics.size(); ++k) {
        nlohmann::json metrics = nlohmann::json::object();
        for (Metric m : all_metrics()) metrics[metric_name(m)] = json_number(a.metrics[k][m]);
        table.push_back({{"layer", a.metrics[k].layer}, {"head", a.metrics[k].head},
                         {"label", role_name(a.labels[k].primary.role)},
                         {"labels", labels_json(a.labels[k])}, {"metrics", metrics}});
    }
    j["heads_table"] = table;
    j["jsd"] = matrix_json(a.jsd);
    j["redundant_pairs"] = pairs_json(a.redundant, a.heads);
    j["mds"] = matrix_json(a.mds);
    const bool last = mask_of(trace, 0).causal;
    j["rollout"] = {{"joint", matrix_json(a.rollout.joint.cast<double>())},
                    {"bars", std::vector<float>(a.rollout.bars.data(), a.rollout.bars.data() + a.rollout.bars.size())},
                    {"bars_from", last ? "last_row" : "mean_row"}};
    return j;
}

nlohmann::json corpus_to_json(const std::string& model, const CorpusResult& corpus,
                              const std::vector<HeadLabels>& labels, int redundant_pairs) {
    nlohmann::json j;
    j["model"] = model;
    j["sentences"] = {{"analysed", corpus.analysed}, {"total", corpus.total}, {"skipped", corpus.skipped}};
    j["cancelled"] = corpus.cancelled;
    int heads = 0;
    for (const HeadStats& h : corpus.heads) heads = std::max(heads, h.head + 1);
    nlohmann::json table = nlohmann::json::array();
    for (std::size_t k = 0; k < corpus.heads.size(); ++k) {
        nlohmann::json metrics = nlohmann::json::object();
        for (Metric m : all_metrics()) {
            const MetricStats& s = corpus.heads[k][m];
            metrics[metric_name(m)] = {{"mean", json_number(s.mean)}, {"std", json_number(s.std)}, {"count", s.count}};
        }
        nlohmann::json row = {{"layer", corpus.heads[k].layer}, {"head", corpus.heads[k].head}, {"metrics", metrics}};
        if (k < labels.size()) {
            row["label"] = role_name(labels[k].primary.role);
            row["labels"] = labels_json(labels[k]);
        }
        table.push_back(row);
    }
    j["heads_table"] = table;
    j["jsd"] = matrix_json(corpus.mean_jsd);
    j["redundant_pairs"] = pairs_json(most_redundant_pairs(corpus.mean_jsd, redundant_pairs), heads);
    j["mds"] = matrix_json(mds_layout(corpus.mean_jsd));
    return j;
}

}  // namespace hs
