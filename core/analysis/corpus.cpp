#include "core/analysis/corpus.h"

#include <cmath>

#include "core/analysis/head_similarity.h"
#include "core/analysis/trace_analysis.h"
#include "core/error.h"
#include "core/io/json_file.h"

namespace hs {

namespace {

// Welford's running mean and sum of squared deviations, skipping NaN (undefined) values.
struct Running {
    double mean = 0, m2 = 0;
    int n = 0;
    void add(double x) {
        if (std::isnan(x)) return;
        ++n;
        const double d = x - mean;
        mean += d / n;
        m2 += d * (x - mean);
    }
    MetricStats stats() const {
        MetricStats s;
        s.count = n;
        if (n == 0) return s;
        s.mean = mean;
        s.std = n > 1 ? std::sqrt(m2 / (n - 1)) : 0.0;
        return s;
    }
};

std::string trim(const std::string& s) {
    const auto first = s.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) return "";
    const auto last = s.find_last_not_of(" \t\r\n");
    return s.substr(first, last - first + 1);
}

}  // namespace

HeadMetrics HeadStats::means() const {
    HeadMetrics m;
    m.layer = layer;
    m.head = head;
    for (int k = 0; k < kMetricCount; ++k) m.values[k] = stats[k].mean;
    return m;
}

CorpusResult analyze_corpus(const TraceSource& source, const std::vector<std::string>& sentences,
                            const CorpusOptions& options, const ProgressFn& progress) {
    CorpusResult result;
    result.total = static_cast<int>(sentences.size());
    if (sentences.empty()) throw Error("the corpus is empty: give at least one sentence");
    std::vector<std::array<Running, kMetricCount>> acc;
    std::vector<std::pair<int, int>> layer_head;
    Eigen::MatrixXd jsd_sum;
    TraceOptions trace_options;
    trace_options.hidden_states = false;
    int done = 0;
    // Inside a forward pass: keep reporting the sentence count so cancel is prompt.
    const ProgressFn inner = [&](int, int) { return !progress || progress(done, result.total); };
    try {
        for (const std::string& sentence : sentences) {
            Trace trace;
            try {
                SourceInput in;
                in.text = sentence;
                trace = source.run(in, trace_options, inner);
            } catch (const Error& e) {
                result.skipped.push_back("sentence " + std::to_string(done + 1) + ": " + e.what());
                ++done;
                if (progress && !progress(done, result.total)) throw Cancelled{};
                continue;
            }
            const std::vector<HeadMetrics> metrics = compute_trace_metrics(trace);
            if (acc.empty()) {
                acc.resize(metrics.size());
                for (const HeadMetrics& m : metrics) layer_head.emplace_back(m.layer, m.head);
                jsd_sum = Eigen::MatrixXd::Zero(metrics.size(), metrics.size());
            }
            for (std::size_t k = 0; k < metrics.size(); ++k)
                for (int c = 0; c < kMetricCount; ++c) acc[k][c].add(metrics[k].values[c]);
            jsd_sum += jsd_matrix(trace);
            ++result.analysed;
            ++done;
            if (progress && !progress(done, result.total)) throw Cancelled{};
        }
    } catch (const Cancelled&) {
        result.cancelled = true;
    }
    if (result.analysed == 0 && !result.cancelled)
        throw Error("no sentence of the corpus could be analysed; " + result.skipped.front());
    for (std::size_t k = 0; k < acc.size(); ++k) {
        HeadStats h;
        h.layer = layer_head[k].first;
        h.head = layer_head[k].second;
        for (int c = 0; c < kMetricCount; ++c) h.stats[c] = acc[k][c].stats();
        result.heads.push_back(h);
    }
    result.mean_jsd = result.analysed > 0 ? Eigen::MatrixXd(jsd_sum / result.analysed) : jsd_sum;
    const bool can_induct = supports_induction(source);
    if (options.induction && can_induct && !result.cancelled && !result.heads.empty()) {
        std::vector<HeadMetrics> scores(result.heads.size());
        add_induction_scores(source, scores, options.induction_options);
        for (std::size_t k = 0; k < scores.size(); ++k) {
            MetricStats& s = result.heads[k].stats[static_cast<int>(Metric::Induction)];
            s.mean = scores[k][Metric::Induction];
            s.std = 0;
            s.count = 1;
        }
    }
    return result;
}

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        std::string line = trim(text.substr(start, end - start));
        if (!line.empty()) lines.push_back(std::move(line));
        start = end + 1;
    }
    return lines;
}

std::vector<std::string> load_sample_texts(const std::string& path, const std::string& lang) {
    const nlohmann::json j = read_json_file(path);
    if (!j.is_array()) throw Error(path + " should hold a JSON array of samples");
    std::vector<std::string> texts;
    for (const auto& entry : j) {
        if (!entry.is_object() || !entry.contains("text") || !entry["text"].is_string())
            throw Error(path + ": every sample needs a \"text\" string");
        if (!lang.empty() && entry.value("lang", "") != lang) continue;
        texts.push_back(entry["text"].get<std::string>());
    }
    return texts;
}

}  // namespace hs
