// gui_check train STATE.json SHOT.png WIDTH HEIGHT STEPS EVERY EXPERIMENT.json EXPERIMENT.csv SHOWN.json
// The Train view's run (tests/gui/run_train_test.sh: induction, batch 8, lr 1e-3,
// warm-up min(100, steps), seed 1, the default training model) against the same run in core: every
// step's loss, each snapshot's step, held-out loss and per-head induction score; and the
// screenshot of the view at its size, showing the Train view with drawn maps.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/gui/gui_check_util.h"

#include "core/image/png.h"
#include "core/train/experiment.h"
#include "core/train/trained_source.h"
#include "core/train/training_run.h"

namespace {

using hs::gui_check::check;
using hs::gui_check::failures;

}  // namespace

int check_train(char** argv) {
    std::ifstream in(argv[2]);
    const nlohmann::json state = nlohmann::json::parse(in);
    const int width = std::stoi(argv[4]), height = std::stoi(argv[5]);
    const int steps = std::stoi(argv[6]), every = std::stoi(argv[7]);
    const nlohmann::json& t = state.at("train");
    check(state.at("analysis").at("view") == "train", "the window shows the Train view");
    check(t.at("error") == "", "no training error: " + t.at("error").get<std::string>());
    check(t.at("steps_taken") == steps, "the run took every step");
    hs::train::TrainingSetup setup;
    setup.config = hs::train::training_config(hs::train::kDefaultTrainingSpec);
    setup.task = hs::train::parse_task("induction", setup.config.vocab);
    setup.options.batch = 8;
    setup.options.seed = 1;
    setup.options.adamw.lr = 1e-3f;
    setup.options.adamw.warmup_steps = std::min(100, steps);
    setup.options.adamw.total_steps = steps;
    setup.every = every;
    hs::train::TrainingRun run(setup);
    while (!run.finished()) run.step();
    const auto& points = run.history().points;
    const auto& loss = t.at("loss");
    check(loss.size() == points.size(), "one loss per step");
    double worst = 0.0;
    for (std::size_t i = 0; i < points.size() && i < loss.size(); ++i)
        worst = std::max(worst, std::abs(loss[i].get<double>() - points[i].loss));
    check(worst < 1e-9, "every step's loss equals core's (max difference " + std::to_string(worst) + ")");
    const auto& snaps = t.at("snapshots");
    const auto& ours = run.history().snapshots;
    check(snaps.size() == ours.size(), "snapshots at step 0, every " + std::to_string(every) + " and the last");
    for (std::size_t i = 0; i < snaps.size() && i < ours.size(); ++i) {
        const auto& s = snaps[i];
        bool same = s.at("step") == ours[i]->step && std::abs(s.at("held_out_loss").get<double>() - ours[i]->held_out_loss) < 1e-9;
        for (std::size_t k = 0; k < ours[i]->metrics.size(); ++k)
            same = same && std::abs(s.at("induction")[k].get<double>() - ours[i]->metrics[k][hs::Metric::Induction]) < 1e-9;
        same = same && s.at("roles").size() == ours[i]->labels.size() && s.at("probe_roles").size() == ours[i]->probe_labels.size() &&
               ours[i]->probe_labels.size() == ours[i]->labels.size() && !ours[i]->probe_labels.empty();
        for (std::size_t k = 0; same && k < ours[i]->labels.size(); ++k)
            same = s.at("roles")[k] == hs::role_name(ours[i]->labels[k].primary.role) &&
                   s.at("probe_roles")[k] == hs::role_name(ours[i]->probe_labels[k].primary.role);
        check(same, "snapshot at step " + std::to_string(ours[i]->step) +
                        ": held-out loss, induction scores, roles on held-out examples and on the probe");
    }
    const hs::RgbImage shot = hs::read_png(argv[3]);
    check(shot.width() == width && shot.height() == height, "screenshot is " + std::to_string(width) + "x" + std::to_string(height));
    // The probe maps and the similarity matrix are drawn with the viridis colormap: count
    // pixels far from the UI's greys (saturated colour), which only the plots produce.
    long long coloured = 0;
    const std::vector<std::uint8_t>& px = shot.bytes();
    for (std::size_t i = 0; i + 2 < px.size(); i += 3) {
        const int hi = std::max({px[i], px[i + 1], px[i + 2]}), lo = std::min({px[i], px[i + 1], px[i + 2]});
        coloured += hi - lo > 80;
    }
    check(coloured > static_cast<long long>(width) * height / 50, "the plots and maps are drawn (" +
                                                                      std::to_string(coloured) + " coloured pixels)");
    // "show in all views" at step EVERY: the main views run that snapshot's model on its
    // probe; the heatmap's map (layer 0, head 0) is core's.
    std::ifstream sin(argv[10]);
    const nlohmann::json shown_state = nlohmann::json::parse(sin);
    const std::string arg = shown_state.at("model_arg");
    const std::string step_suffix = ", step " + std::to_string(every);
    check(arg.rfind("training run ", 0) == 0 && arg.size() > step_suffix.size() &&
              arg.compare(arg.size() - step_suffix.size(), step_suffix.size(), step_suffix) == 0,
          "the main views show the run at step " + std::to_string(every) + " (" + arg + ")");
    check(shown_state.at("source_kind") == "trained model" && shown_state.at("error") == "",
          "as a trained model, without error");
    const hs::train::HeadSnapshot& snap = *ours.at(1);
    hs::SourceInput probe;
    probe.text = hs::train::tokens_text(setup.task, snap.probe_tokens);
    const hs::Trace want = hs::train::make_trained_source(hs::Model(setup.config, *snap.weights), setup.task, arg)
                               ->run(probe, hs::TraceOptions{});
    const hs::Matrix& m = want.main.layers.at(0).self_attn.weights.at(0);
    const auto& got = shown_state.at("shown_map");
    bool same = got.size() == static_cast<std::size_t>(m.rows());
    for (Eigen::Index r = 0; same && r < m.rows(); ++r)
        for (Eigen::Index c = 0; same && c < m.cols(); ++c) same = std::abs(got[r][c].get<double>() - m(r, c)) < 1e-6;
    check(same, "the heatmap shows layer 0 head 0 of the step-" + std::to_string(every) + " model on the probe");
    check(shown_state.at("tokens") == want.main.tokens, "its tokens are the probe's");
    // The Experiment tab: the same setup over heads 1 and 2, against core's runs.
    std::ifstream ein(argv[8]);
    const nlohmann::json exp = nlohmann::json::parse(ein).at("experiment");
    check(exp.at("key") == "heads" && exp.at("error") == "", "the experiment ran over heads without error");
    hs::train::ExperimentSetup experiment = hs::train::parse_sweep("heads=1,2", setup);
    const auto setups = hs::train::experiment_setups(experiment);
    std::vector<hs::train::ExperimentRun> runs;
    for (std::size_t k = 0; k < setups.size(); ++k) {
        hs::train::TrainingRun r(setups[k]);
        while (!r.finished()) r.step();
        runs.push_back(hs::train::summarize_run(r, experiment.values[k]));
    }
    const auto& shown = exp.at("runs");
    check(shown.size() == runs.size(), "one summary per value");
    for (std::size_t k = 0; k < shown.size() && k < runs.size(); ++k)
        check(shown[k].at("value") == runs[k].value && shown[k].at("d_k") == runs[k].d_k &&
                  std::abs(shown[k].at("held_out_loss").get<double>() - runs[k].held_out_loss) < 1e-9 &&
                  std::abs(shown[k].at("best_induction").get<double>() - runs[k].best_induction) < 1e-9 &&
                  shown[k].at("first_induction_step") == runs[k].first_induction_step,
              "heads=" + std::to_string(runs[k].value) + ": held-out loss, best induction and first induction step");
    std::ifstream cin(argv[9]);
    const std::string csv((std::istreambuf_iterator<char>(cin)), std::istreambuf_iterator<char>());
    check(csv == hs::train::experiment_csv("heads", runs), "the exported CSV is core's");
    return failures == 0 ? 0 : 1;
}
