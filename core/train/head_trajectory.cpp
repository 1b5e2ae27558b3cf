#include "core/train/head_trajectory.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/analysis/head_similarity.h"
#include "core/analysis/induction.h"
#include "core/model/model.h"
#include "core/rng.h"
#include "core/train/model_grad.h"

namespace hs::train {

namespace {

// BOS + r + r, r = the first m symbols of a fixed shuffle of 2 … vocab−1 (distinct, so
// every query of the second copy has exactly one earlier occurrence).
InductionInput induction_probe(const ModelConfig& c, const TaskSpec& task) {
    // Symbols the task uses (a text task's ids, not the model's whole vocabulary: ids the
    // text never holds have untrained embeddings).
    std::vector<int> symbols;
    for (int id = 2; id < std::min(c.vocab, task.vocab); ++id) symbols.push_back(id);
    Rng rng(0x1D0C7105EULL);
    for (std::size_t i = symbols.size(); i > 1; --i) std::swap(symbols[i - 1], symbols[rng.next_u64() % i]);
    InductionInput in;
    in.prefix = 1;
    in.m = std::min({12, static_cast<int>(symbols.size()), (c.max_len - 1) / 2});
    in.ids.push_back(kBos);
    for (int rep = 0; rep < 2; ++rep) in.ids.insert(in.ids.end(), symbols.begin(), symbols.begin() + in.m);
    for (const int id : in.ids) in.tokens.push_back("#" + std::to_string(id));
    return in;
}

// Display strings: a text task's tokens, "#id" for the synthetic tasks' symbols.
std::vector<std::string> id_tokens(const std::vector<int>& ids, const TaskSpec& task) {
    std::vector<std::string> out;
    for (const int id : ids) {
        if (task.words && id < static_cast<int>(task.words->tokens.size())) out.push_back(task.words->tokens[static_cast<std::size_t>(id)]);
        else if (task.text && id < static_cast<int>(task.text->vocab.size())) out.push_back(task.text->vocab[static_cast<std::size_t>(id)]);
        else out.push_back("#" + std::to_string(id));
    }
    return out;
}

// The held-out example `index` as the model's input (an encoder–decoder's source and target).
ForwardInput held_out_input(const Trainer& trainer, int index) {
    const Example example = held_out_example(trainer.task(), trainer.options().seed, index);
    if (trainer.config().arch != Arch::EncoderDecoder) {
        ForwardInput in = ForwardInput::of(example.ids);
        in.tokens = id_tokens(in.ids, trainer.task());
        return in;
    }
    const ExampleSplit split = split_example(trainer.config(), example);
    ForwardInput in = ForwardInput::of(split.source);
    in.tokens = id_tokens(in.ids, trainer.task());
    in.decoder_ids = split.target;
    in.decoder_tokens = id_tokens(split.target, trainer.task());
    return in;
}

// Per head, the mean of each metric over the runs where it is defined (NaN where it never is).
std::vector<HeadMetrics> mean_metrics(const std::vector<std::vector<HeadMetrics>>& runs) {
    std::vector<HeadMetrics> out = runs.front();
    for (std::size_t h = 0; h < out.size(); ++h)
        for (int k = 0; k < kMetricCount; ++k) {
            double sum = 0;
            int n = 0;
            for (const std::vector<HeadMetrics>& run : runs)
                if (!std::isnan(run[h].values[k])) sum += run[h].values[k], ++n;
            out[h].values[k] = n > 0 ? sum / n : std::numeric_limits<double>::quiet_NaN();
        }
    return out;
}

}  // namespace

HeadSnapshot measure_heads(const Trainer& trainer, int held_out_examples) {
    HeadSnapshot s;
    s.step = trainer.steps_taken();
    s.held_out_loss = trainer.held_out_loss(held_out_examples);
    const Model model(trainer.config(), trainer.weights());
    const bool enc_dec = trainer.config().arch == Arch::EncoderDecoder;
    const ForwardInput in = held_out_input(trainer, 0);
    const Trace held_out = model.forward(in);
    std::vector<std::vector<HeadMetrics>> runs = {compute_trace_metrics(held_out)};
    for (int i = 1; i < kLabelExamples; ++i) runs.push_back(compute_trace_metrics(model.forward(held_out_input(trainer, i))));
    s.metrics = mean_metrics(runs);
    s.similarity = jsd_matrix(held_out);
    if (enc_dec) {
        for (const LayerTrace& layer : held_out.decoder->layers)
            s.probe_maps.insert(s.probe_maps.end(), layer.cross_attn->weights.begin(), layer.cross_attn->weights.end());
        s.probe_tokens = in.tokens;
        s.probe_query_tokens = in.decoder_tokens;
        s.probe_is_cross = true;
    } else if (std::min(trainer.config().vocab, trainer.task().vocab) >= 4 && trainer.config().max_len >= 5) {
        const InductionInput ind = induction_probe(trainer.config(), trainer.task());
        ForwardInput ind_in = ForwardInput::of(ind.ids);
        ind_in.tokens = ind.tokens;
        const Trace probe_trace = model.forward(ind_in);
        for (const LayerTrace& layer : probe_trace.main.layers)
            s.probe_maps.insert(s.probe_maps.end(), layer.self_attn.weights.begin(), layer.self_attn.weights.end());
        s.probe_tokens = id_tokens(ind.ids, trainer.task());
        s.probe_metrics = compute_trace_metrics(probe_trace);
        const std::vector<double> scores = induction_scores(probe_trace, ind);
        for (std::size_t i = 0; i < scores.size(); ++i) {
            if (i < s.metrics.size()) s.metrics[i][Metric::Induction] = scores[i];
            if (i < s.probe_metrics.size()) s.probe_metrics[i][Metric::Induction] = scores[i];
        }
        s.probe_labels = label_heads(s.probe_metrics);
    }
    s.labels = label_heads(s.metrics);
    return s;
}

double best_induction(const HeadSnapshot& snapshot) {
    double best = 0.0;
    for (const HeadMetrics& m : snapshot.metrics)
        if (std::isfinite(m[Metric::Induction])) best = std::max(best, m[Metric::Induction]);
    return best;
}

std::string trajectories_csv(const std::vector<HeadSnapshot>& snapshots) {
    std::string out = "step,held_out_loss,layer,head";
    for (const Metric m : all_metrics()) out += std::string(",") + metric_name(m);
    out += ",role,probe_role\n";
    char number[32];
    for (const HeadSnapshot& s : snapshots)
        for (std::size_t i = 0; i < s.metrics.size(); ++i) {
            const HeadMetrics& m = s.metrics[i];
            std::snprintf(number, sizeof number, "%.6f", s.held_out_loss);
            out += std::to_string(s.step) + "," + number + "," + std::to_string(m.layer) + "," + std::to_string(m.head);
            for (const Metric k : all_metrics()) {
                const double v = m[k];
                if (std::isfinite(v)) std::snprintf(number, sizeof number, ",%.6f", v);
                else std::snprintf(number, sizeof number, ",");
                out += number;
            }
            out += std::string(",") + (i < s.labels.size() ? role_name(s.labels[i].primary.role) : "");
            out += std::string(",") + (i < s.probe_labels.size() ? role_name(s.probe_labels[i].primary.role) : "") + "\n";
        }
    return out;
}

}  // namespace hs::train
