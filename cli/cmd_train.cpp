// headscope train TASK [--spec SPEC] --steps N [--batch B] [--lr X] [--warmup W] [--seed S]
//                      [--every K] [--save DIR] [--log CSV]
// headscope train --text-file F [--level char|word] [--window N] [--spec SPEC] …
// headscope train --resume DIR --steps N [--every K] [--save DIR] [--log CSV]
// headscope train TASK --sweep heads=1,2,4,8,16 [--sweep-csv F] [--sweep-png F] [--spec SPEC] [--steps N] …
// --snapshots DIR: every K steps the heads are measured (core/train/head_trajectory.h)
// and a checkpoint written to DIR/step_NNNNNN, with DIR/trajectories.csv.
// Trains a playground decoder (core/train/) on a synthetic task and prints the loss every K
// steps; --spec keys replace those of the default spec; --save writes a checkpoint (a model
// directory plus the optimizer state, core/train/checkpoint.h), --resume continues one up
// to N steps in all (on the checkpoint's schedule; --log and trajectories.csv keep their
// rows of earlier steps), --log writes a CSV of every step. What the run writes is checked
// before step 1 (check_outputs).
#include <cmath>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "core/analysis/head_labels.h"
#include "core/error.h"
#include "core/io/atomic_file.h"
#include "core/kernels/parallel.h"
#include "core/kernels/simd.h"
#include "core/image/png.h"
#include "core/train/checkpoint.h"
#include "core/train/experiment.h"
#include "core/train/text_corpus.h"
#include "core/train/head_trajectory.h"
#include "core/train/trainer.h"
#include "core/train/training_run.h"

namespace hs {

namespace {

// --lr: a finite number in (0, 10).
float learning_rate(const std::string& text) {
    std::size_t used = 0;
    float lr = 0.0f;
    try {
        lr = std::stof(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != text.size() || !(lr > 0.0f && lr < 10.0f))
        throw UsageError{"--lr needs a positive number below 10 such as 3e-3, got '" + text + "'"};
    return lr;
}

// A new run's setup from the command line's task (a text file read here, once), spec and
// options.
train::TrainingSetup setup_from_args(const Args& args, int steps, const std::string& spec) {
    const ModelConfig config = train::training_config(spec);
    train::TrainingSetup setup;
    setup.config = config;
    if (const auto file = args.value("text-file")) {
        args.expect_at_most(0);
        setup.text_file = *file;
        setup.text_level = train::parse_text_level(args.value_or("level", "char"));
        setup.text_window = static_cast<int>(args.integer("window", 2, 1024).value_or(0));
    } else {
        if (args.value("level")) throw UsageError{"--level goes with --text-file"};
        setup.task = train::parse_task(args.positional(0, "TASK (copy, reverse, sort, induction or grammar) or --text-file F"),
                                       config.vocab);
        if (setup.task.kind == train::TaskKind::Grammar) {
            const train::TaskSpec standard = setup.task;
            setup.task = train::grammar_task(static_cast<int>(args.integer("window", 57, 1024).value_or(standard.window)),
                                             static_cast<int>(args.integer("induction", 0, 100).value_or(standard.induction_percent)));
        } else {
            for (const char* grammar_only : {"window", "induction"})
                if (args.value(grammar_only)) throw UsageError{std::string("--") + grammar_only + " goes with --text-file or grammar"};
        }
    }
    train::TrainOptions& options = setup.options;
    options.batch = static_cast<int>(args.integer("batch", 1, 4096).value_or(16));
    options.seed = static_cast<std::uint64_t>(args.integer("seed", 0, 1LL << 62).value_or(1));
    if (const auto lr = args.value("lr")) options.adamw.lr = learning_rate(*lr);
    options.adamw.warmup_steps = static_cast<int>(args.integer("warmup", 0, steps).value_or(std::min(100, steps / 10)));
    options.adamw.total_steps = steps;
    setup.task = train::training_task(setup);  // the text read now: every run of a sweep shares it
    setup.text_file.clear();
    train::size_for_task(setup.config, setup.task);
    if (const train::TextCorpus* c = setup.task.text.get()) {
        std::fprintf(stderr, "note: %s: %zu training and %zu held-out %s tokens, %zu ids\n", c->source.c_str(),
                     c->train_ids.size(), c->held_ids.size(), to_string(c->level).c_str(), c->vocab.size());
        if (const std::string note = train::vocabulary_note(*c); !note.empty())
            std::fprintf(stderr, "note: %s\n", note.c_str());
    }
    return setup;
}

train::Trainer new_trainer(const Args& args, int steps, const std::string& spec) {
    const train::TrainingSetup s = setup_from_args(args, steps, spec);
    return train::Trainer(s.config, train::training_init(s.config), s.task, s.options);
}

// A checkpoint's trainer, to go on up to `steps` in all on its own schedule.
train::Trainer resumed_trainer(const Args& args, const std::string& dir, int steps) {
    for (const char* fixed : {"spec", "batch", "lr", "warmup", "seed", "text-file", "level", "window", "induction"})
        if (args.value(fixed)) throw UsageError{std::string("--") + fixed + " comes from the checkpoint when resuming"};
    args.expect_at_most(0);
    train::Trainer t = train::load_checkpoint(dir);
    if (steps <= t.steps_taken())
        throw Error(dir + " has already taken " + std::to_string(t.steps_taken()) + " steps; ask for more with --steps");
    const int planned = t.options().adamw.total_steps;
    if (steps > planned && planned > 0)
        std::fprintf(stderr, "note: the learning-rate schedule of %s ends at step %d; steps after it use its final rate\n",
                     dir.c_str(), planned);
    return t;
}

// `fresh` (a CSV whose first line is its header) after the rows of the CSV at `path` whose
// step (first field) is before `from_step`: a resumed run keeps the history it continues.
// A file with another header is not overwritten.
std::string continue_csv(const std::string& path, const std::string& fresh, int from_step) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) return fresh;
    const std::string old = read_text_file(path);
    const std::string header = fresh.substr(0, fresh.find('\n') + 1);
    if (old.compare(0, header.size(), header) != 0)
        throw Error(path + " holds another table (its first line is not '" + header.substr(0, header.size() - 1) +
                    "'); choose another file to continue this run's log");
    std::string kept = header;
    for (std::size_t at = header.size(); at < old.size();) {
        const std::size_t end = std::min(old.find('\n', at), old.size());
        const std::string row = old.substr(at, end - at);
        if (!row.empty() && std::atoi(row.c_str()) < from_step) kept += row + "\n";
        at = end + 1;
    }
    return kept + fresh.substr(header.size());
}

// " induction [0.01 0.02 | 0.55 0.31]": a metric of every head, layers split by "|"
// ("-" where it was not measured: induction on an encoder–decoder).
std::string per_head(const train::HeadSnapshot& s, Metric metric, int heads) {
    std::string out = std::string("  ") + (metric == Metric::Induction ? "induction" : "prev") + " [";
    for (std::size_t i = 0; i < s.metrics.size(); ++i) {
        if (i > 0) out += i % static_cast<std::size_t>(heads) == 0 ? " | " : " ";
        const double v = s.metrics[i][metric];
        char number[16];
        std::snprintf(number, sizeof number, "%.2f", v);
        out += std::isfinite(v) ? number : "-";
    }
    return out + "]";
}

// The first line of the --log CSV.
constexpr const char* kLogHeader = "step,loss,grad_norm,lr,tokens,held_out_loss\n";

// DIR/step_NNNNNN: the checkpoint --snapshots DIR writes at `step`.
std::string snapshot_path(const std::string& dir, int step) {
    char name[32];
    std::snprintf(name, sizeof name, "/step_%06d", step);
    return dir + name;
}

// The step loop shared by a plain run and each run of a sweep: every `every` steps
// measures the heads into `snapshots` and prints a line with each head's induction and
// previous-token scores (and writes a checkpoint there when snapshot_dir is set).
// Returns the CSV log.
std::string run_steps(train::Trainer& trainer, int steps, int every, std::vector<train::HeadSnapshot>& snapshots,
                      const std::string& snapshot_dir, int resumed_from) {
    std::string log = kLogHeader;
    const int first = trainer.steps_taken() + 1;
    std::printf("step %5d  held-out loss %.4f\n", first - 1, trainer.held_out_loss(64));
    snapshots.push_back(train::measure_heads(trainer));
    const auto t0 = std::chrono::steady_clock::now();
    long long tokens = 0;
    std::string first_induction;  // when a head's induction score first passed 0.5
    for (int s = first; s <= steps; ++s) {
        const train::StepReport r = trainer.step();
        tokens += r.tokens;
        const bool report = s % every == 0 || s == steps;
        double held_out = -1.0;
        if (report) {
            snapshots.push_back(train::measure_heads(trainer));
            held_out = snapshots.back().held_out_loss;
            if (!snapshot_dir.empty()) {
                train::save_checkpoint(trainer, snapshot_path(snapshot_dir, s));
                const std::string path = snapshot_dir + "/trajectories.csv";
                write_output(path, resumed_from > 0 ? continue_csv(path, train::trajectories_csv(snapshots), resumed_from)
                                                     : train::trajectories_csv(snapshots));
            }
        }
        char line[160];
        std::snprintf(line, sizeof line, "%d,%.6f,%.6f,%.6g,%lld,%s\n", r.step, r.loss, r.grad_norm, r.lr, r.tokens,
                      report ? std::to_string(held_out).c_str() : "");
        log += line;
        if (report) {
            const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            std::printf("step %5d  loss %.4f  held-out loss %.4f  lr %.2e  |g| %.3f  %.0f tokens/s  %.1f s", r.step, r.loss,
                        held_out, r.lr, r.grad_norm, static_cast<double>(tokens) / seconds, seconds);
            const int heads = trainer.config().heads;
            std::printf("%s%s\n", per_head(snapshots.back(), Metric::Induction, heads).c_str(),
                        per_head(snapshots.back(), Metric::PrevToken, heads).c_str());
            const double best = train::best_induction(snapshots.back());
            // The label's threshold: the step at which a head is first labelled induction.
            const double formed = LabelThresholds{}.induction;
            if (best >= formed && first_induction.empty()) {
                char at[96];
                std::snprintf(at, sizeof at, "first induction head (score ≥ %.1f) at step %d (%.1f s)\n", formed, r.step,
                              seconds);
                first_induction = at;
            }
            std::fflush(stdout);
        }
    }
    if (!first_induction.empty()) std::printf("%s", first_induction.c_str());
    return log;
}

// The same task, seed and budget over each value of one architecture key (core/train/
// experiment.h): every model is checked before the first run; a line per run as it ends,
// --sweep-csv rewritten after each run, --sweep-png drawn at the end.
int run_sweep(const Args& args, int steps, int every) {
    // The base setup: the task and options of a plain run, over the merged spec.
    const std::string base_spec = merge_playground_specs(train::kDefaultTrainingSpec, args.value_or("spec", "random"));
    train::TrainingSetup base = setup_from_args(args, steps, base_spec);
    base.every = every;
    train::ExperimentSetup experiment;
    try {
        experiment = train::parse_sweep(*args.value("sweep"), base);
    } catch (const Error& e) {
        throw UsageError{std::string("--sweep: ") + e.what()};
    }
    const std::vector<train::TrainingSetup> setups = train::experiment_setups(experiment);
    for (const char* output : {"sweep-csv", "sweep-png"})
        if (const auto path = args.value(output)) check_output_path(*path);
    std::vector<train::ExperimentRun> runs;
    for (std::size_t k = 0; k < setups.size(); ++k) {
        const int v = experiment.values[k];
        std::printf("== %s=%d: %s\n", experiment.key.c_str(), v, to_playground_spec(setups[k].config).c_str());
        runs.push_back(*train::run_experiment_value(setups[k], v, [](const train::TrainingRun& run, bool snapshot) {
            if (snapshot) {
                const train::HeadSnapshot& s = *run.history().snapshots.back();
                std::printf("step %5d  loss %.4f  held-out loss %.4f  best induction %.2f\n", s.step,
                            run.history().points.back().loss, s.held_out_loss, train::best_induction(s));
            }
            return true;
        }));
        const train::ExperimentRun& r = runs.back();
        std::printf("%s=%d  d_k %d  final loss %.4f  held-out %.4f  best induction %.2f  first induction step %s  [%s]  %.1f s\n",
                    experiment.key.c_str(), v, r.d_k, r.final_loss, r.held_out_loss, r.best_induction,
                    r.first_induction_step < 0 ? "never" : std::to_string(r.first_induction_step).c_str(),
                    train::roles_text(r).c_str(),
                    r.seconds);
        std::fflush(stdout);
        if (const auto path = args.value("sweep-csv")) write_output(*path, train::experiment_csv(experiment.key, runs));
    }
    if (const auto path = args.value("sweep-png")) {
        write_png(*path, train::render_experiment(experiment.key, runs));
        std::printf("wrote %s\n", path->c_str());
    }
    return 0;
}

// Where the checkpoint goes at the end: --save, else the checkpoint --resume continues (a
// resumed run without --save used to print its steps and keep none of them). A snapshot
// of --snapshots (DIR/step_NNNNNN) is not saved back: a later step would sit under its
// step's name; resuming one takes --save.
std::optional<std::string> save_dir(const Args& args) {
    if (const auto dir = args.value("save")) return dir;
    const auto resumed = args.value("resume");
    if (!resumed) return std::nullopt;
    std::string name = std::filesystem::path(*resumed).lexically_normal().filename().string();
    if (name.empty()) name = std::filesystem::path(*resumed).lexically_normal().parent_path().filename().string();
    int step = 0;
    char rest = 0;
    if (std::sscanf(name.c_str(), "step_%d%c", &step, &rest) == 1)
        throw UsageError{"--resume " + *resumed + " continues a snapshot of --snapshots; say where the continued run "
                         "goes with --save DIR (saving it back would put a later step under " + name + ")"};
    return resumed;
}

// What a plain run writes, checked before step 1 with the errors its writers would give
// (nothing is left behind), so that a long run does not end in a path it cannot write.
// A resumed --log is read now too: a file holding another table is refused before the run.
// An existing model directory is replaced only with --force, or when it is the checkpoint
// this run resumes (saving it again continues it); snapshots likewise.
void check_outputs(const Args& args, int resumed_from) {
    const bool force = args.flag("force");
    const auto resumed = args.value("resume");
    const auto same_dir = [&](const std::string& dir) {
        std::error_code ec;
        return resumed && std::filesystem::equivalent(dir, *resumed, ec);
    };
    if (const auto dir = save_dir(args)) {
        refuse_to_replace(*dir, force || same_dir(*dir));
        check_save_dir(*dir);
    }
    if (const auto dir = args.value("snapshots")) {
        // A resumed run adds steps after resumed_from: a directory holding such steps is
        // another run's (an earlier, longer one), which --force alone may overwrite.
        bool later_steps = false;
        std::error_code ec;
        for (const auto& e : std::filesystem::directory_iterator(*dir, ec)) {
            const std::string name = e.path().filename().string();
            int step = 0;
            if (std::sscanf(name.c_str(), "step_%d", &step) == 1 && step > resumed_from) later_steps = true;
        }
        refuse_to_replace(*dir, force || (resumed && !later_steps));
        check_save_dir(snapshot_path(*dir, resumed_from + 1));
    }
    if (const auto path = args.value("log")) {
        check_output_path(*path);
        if (resumed_from > 0) continue_csv(*path, kLogHeader, resumed_from + 1);
    }
}

}  // namespace

int cmd_train(int argc, char** argv) {
    const Args args(argc, argv, 2,
                    {"spec", "steps", "batch", "lr", "warmup", "seed", "every", "save", "log", "resume", "snapshots",
                     "sweep", "sweep-csv", "sweep-png", "text-file", "level", "window", "induction"},
                    {"force"});
    args.expect_at_most(1);
    const int steps = static_cast<int>(args.integer("steps", 1, 10'000'000).value_or(500));
    const int every = static_cast<int>(args.integer("every", 1, steps).value_or(std::max(1, steps / 20)));
    for (const char* sweep_only : {"sweep-csv", "sweep-png"})
        if (args.value(sweep_only) && !args.value("sweep"))
            throw UsageError{std::string("--") + sweep_only + " goes with --sweep"};
    if (args.value("sweep")) {
        for (const char* other : {"resume", "save", "snapshots", "log"})
            if (args.value(other)) throw UsageError{std::string("--") + other + " does not go with --sweep"};
        return run_sweep(args, steps, every);
    }
    const auto resume = args.value("resume");
    train::Trainer trainer =
        resume ? resumed_trainer(args, *resume, steps) : new_trainer(args, steps, args.value_or("spec", "random"));
    const int resumed_from = resume ? trainer.steps_taken() : 0;
    check_outputs(args, resumed_from);

    std::printf("training %s on %s: steps %d … %d of %d examples (simd %s, %d threads)\n",
                to_playground_spec(trainer.config()).c_str(), train::to_string(trainer.task().kind).c_str(),
                trainer.steps_taken() + 1, steps, trainer.options().batch, kernels::simd_name(kernels::simd_level()),
                thread_count());
    std::vector<train::HeadSnapshot> snapshots;
    const auto snapshot_dir = args.value("snapshots");
    const std::string log =
        run_steps(trainer, steps, every, snapshots, snapshot_dir.value_or(""), resumed_from);
    if (const auto path = args.value("log")) write_output(*path, resumed_from > 0 ? continue_csv(*path, log, resumed_from + 1) : log);
    if (const auto dir = save_dir(args)) {
        train::save_checkpoint(trainer, *dir);
        std::printf("wrote %s (a model directory with the training state: resume with --resume)\n", dir->c_str());
    }
    if (snapshot_dir)
        std::printf("wrote %zu snapshots and %s/trajectories.csv\n", snapshots.size(), snapshot_dir->c_str());
    return 0;
}

}  // namespace hs
