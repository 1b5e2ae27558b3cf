#include "core/train/training_run.h"

#include <algorithm>

#include "core/error.h"
#include "core/train/parameters.h"

namespace hs::train {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

ModelConfig training_config(const std::string& spec) {
    ModelConfig config = parse_playground_spec(merge_playground_specs(kDefaultTrainingSpec, spec));
    if (config.arch == Arch::EncoderOnly || config.mask != MaskKind::Causal)
        throw Error("training predicts the next token: the model must be a causal decoder (arch=decoder or, for "
                    "copy / reverse / sort, arch=encoder-decoder; mask=causal); got arch=" + to_string(config.arch) +
                    ", mask=" + to_string(config.mask));
    if (config.lm_head == LmHead::None)
        throw Error("training predicts the next token: the model needs lm_head=tied or lm_head=separate");
    ensure_valid(config);
    return config;
}

void size_for_task(ModelConfig& config, const TaskSpec& task) {
    if (task.kind != TaskKind::Grammar) return;
    config.vocab = task.vocab;
    config.max_len = std::max(config.max_len, task.window);
}

TaskSpec training_task(const TrainingSetup& setup) {
    if (setup.text_file.empty()) return setup.task;
    const int window = setup.text_window > 0 ? setup.text_window : std::min(64, setup.config.max_len);
    return text_task(std::make_shared<const TextCorpus>(
                         read_text_corpus(setup.text_file, setup.text_level, setup.config.vocab, window)),
                     window);
}

TrainingRun::TrainingRun(const TrainingSetup& setup)
    : setup_(setup), trainer_(setup.config, training_init(setup.config), training_task(setup), setup.options) {
    setup_.task = trainer_.task();
    // At most ~1000 snapshots (each holds L·H probe maps): a long run measures less often.
    setup_.every = std::max({1, setup_.every, (total_steps() + 999) / 1000});
    ModelWeights w = trainer_.weights();
    for (const Parameter& p : parameters_of(w)) weight_bytes_ += p.size * sizeof(float);
    const auto t0 = std::chrono::steady_clock::now();
    take_snapshot();
    history_.seconds = seconds_since(t0);
}

void TrainingRun::take_snapshot() {
    auto s = std::make_shared<HeadSnapshot>(measure_heads(trainer_));
    s->weights = std::make_shared<const ModelWeights>(trainer_.weights());
    history_.snapshots.push_back(std::move(s));
    std::vector<std::size_t> kept;  // snapshots that hold weights
    for (std::size_t i = 0; i < history_.snapshots.size(); ++i)
        if (history_.snapshots[i]->weights) kept.push_back(i);
    if (kept.size() * weight_bytes_ <= setup_.snapshot_weight_budget || kept.size() < 3) return;
    // Over budget: drop the weights of every other snapshot between the first and the newest.
    for (std::size_t k = 1; k + 1 < kept.size(); k += 2) {
        auto thinned = std::make_shared<HeadSnapshot>(*history_.snapshots[kept[k]]);
        thinned->weights.reset();
        history_.snapshots[kept[k]] = std::move(thinned);
    }
}

bool TrainingRun::step() {
    if (finished()) return false;
    auto t0 = std::chrono::steady_clock::now();
    const StepReport r = trainer_.step();
    const double dt = seconds_since(t0);
    step_seconds_ += dt;
    tokens_ += r.tokens;
    history_.points.push_back({r.step, r.loss, r.lr});
    history_.tokens_per_second = step_seconds_ > 0.0 ? static_cast<double>(tokens_) / step_seconds_ : 0.0;
    history_.seconds += dt;
    if (r.step % setup_.every != 0 && !finished()) return false;
    t0 = std::chrono::steady_clock::now();
    take_snapshot();
    history_.seconds += seconds_since(t0);
    return true;
}

LossCurve loss_curve(const std::vector<StepPoint>& points, int buckets) {
    LossCurve c;
    const std::size_t n = points.size(), b = static_cast<std::size_t>(std::max(1, buckets));
    const std::size_t per = (n + b - 1) / b;  // steps per bucket (≥ 1 when n > 0)
    for (std::size_t at = 0; at < n; at += per) {
        const std::size_t end = std::min(n, at + per);
        double sum = 0.0;
        for (std::size_t i = at; i < end; ++i) sum += points[i].loss;
        c.steps.push_back(points[end - 1].step);
        c.loss.push_back(sum / static_cast<double>(end - at));
    }
    return c;
}

}  // namespace hs::train
