// The Train view's worker (app/train_worker.*): it steps exactly the run core's Trainer
// takes, one step per Step, on its own while running; Reset drops the run; Save writes a
// checkpoint that resumes where the worker stopped; a bad setup comes back as a message.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>
#include <unistd.h>

#include "app/experiment_worker.h"
#include "app/train_worker.h"
#include "core/error.h"
#include "core/train/checkpoint.h"

namespace hs {
namespace {

train::TrainingSetup small_setup(int steps) {
    train::TrainingSetup s;
    s.config = train::training_config("random:d_model=16,heads=2,layers=1,vocab=12,max_len=40");
    s.task = train::parse_task("copy", s.config.vocab);
    s.options.batch = 3;
    s.options.seed = 4;
    s.options.adamw.lr = 1e-2f;
    s.options.adamw.warmup_steps = 1;
    s.options.adamw.total_steps = steps;
    s.every = 2;
    return s;
}

// Polls until the worker is idle (the UI never waits; a test may).
TrainProgress wait_idle(const TrainWorker& w) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
    while (!w.idle() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    EXPECT_TRUE(w.idle()) << "still busy after 2 minutes";
    return w.progress();
}

TEST(TrainWorker, StepsTheRunCoresTrainerTakes) {
    const train::TrainingSetup setup = small_setup(6);
    TrainWorker w;
    w.start(setup, false);
    TrainProgress p = wait_idle(w);
    ASSERT_TRUE(p.history) << p.error;
    EXPECT_EQ(p.steps_taken, 0);
    EXPECT_EQ(p.history->snapshots.size(), 1u);  // step 0 measured
    for (int i = 0; i < 3; ++i) w.step_once();
    p = wait_idle(w);
    EXPECT_EQ(p.steps_taken, 3);
    w.resume();
    p = wait_idle(w);
    EXPECT_EQ(p.steps_taken, 6);
    EXPECT_FALSE(p.running);  // stops at the end
    // The same run in core, step by step.
    train::Trainer t(setup.config, train::training_init(setup.config), setup.task, setup.options);
    ASSERT_EQ(p.history->points.size(), 6u);
    for (int s = 0; s < 6; ++s) EXPECT_DOUBLE_EQ(p.history->points[static_cast<std::size_t>(s)].loss, t.step().loss) << s;
    // Snapshots at 0, 2, 4, 6 with core's measurements of the final weights at the last.
    ASSERT_EQ(p.history->snapshots.size(), 4u);
    EXPECT_EQ(p.history->snapshots.back()->step, 6);
    EXPECT_DOUBLE_EQ(p.history->snapshots.back()->held_out_loss, t.held_out_loss(64));
    EXPECT_EQ(p.history->snapshots.back()->probe_maps.size(), 2u);  // 1 layer × 2 heads
}

TEST(TrainWorker, SavesACheckpointThatResumesWhereItStopped) {
    const std::string dir = (std::filesystem::temp_directory_path() / ("hs_train_worker_" + std::to_string(::getpid()))).string();
    TrainWorker w;
    w.start(small_setup(5), false);
    w.step_once();
    w.step_once();
    w.save(dir);
    const TrainProgress p = wait_idle(w);
    EXPECT_NE(p.notice.find("saved " + dir), std::string::npos) << p.error;
    const train::Trainer loaded = train::load_checkpoint(dir);
    EXPECT_EQ(loaded.steps_taken(), 2);
    std::filesystem::remove_all(dir);
}

// Save never replaces a model silently: a directory that holds one (or other files) is
// refused with replace_dir set until Replace is pressed, except where this run saved before.
TEST(TrainWorker, ASaveAsksBeforeReplacingADirectoryThatHoldsAModel) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("hs_train_replace_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    TrainWorker first;
    first.start(small_setup(5), false);
    first.step_once();
    first.step_once();
    first.step_once();
    first.save(dir.string());
    TrainProgress p = wait_idle(first);
    ASSERT_NE(p.notice.find("saved "), std::string::npos) << p.error;
    EXPECT_TRUE(p.replace_dir.empty());
    first.step_once();  // the same run saves over its own checkpoint without asking
    first.save(dir.string());
    p = wait_idle(first);
    EXPECT_TRUE(p.error.empty()) << p.error;
    EXPECT_EQ(train::load_checkpoint(dir.string()).steps_taken(), 4);

    TrainWorker second;  // another run: asked first, the checkpoint of 4 steps stays
    second.start(small_setup(5), false);
    second.step_once();
    second.save(dir.string());
    p = wait_idle(second);
    EXPECT_EQ(p.replace_dir, dir.string());
    EXPECT_EQ(p.error, dir.string() + " already holds a model (config.json): press Replace to put this checkpoint "
                                      "in its place, or type another directory");
    EXPECT_TRUE(p.notice.empty());
    EXPECT_EQ(train::load_checkpoint(dir.string()).steps_taken(), 4);
    second.save(dir.string(), /*replace=*/true);
    p = wait_idle(second);
    EXPECT_TRUE(p.error.empty()) << p.error;
    EXPECT_TRUE(p.replace_dir.empty());
    EXPECT_EQ(train::load_checkpoint(dir.string()).steps_taken(), 1);

    // A directory of other files: asked as well, and its files stay after Replace.
    const fs::path other = dir.string() + "_notes";
    fs::create_directories(other);
    { std::ofstream(other / "notes.txt") << "mine"; }
    second.save(other.string());
    p = wait_idle(second);
    EXPECT_EQ(p.replace_dir, other.string());
    EXPECT_NE(p.error.find("is a directory that is not empty"), std::string::npos) << p.error;
    EXPECT_FALSE(fs::exists(other / "config.json"));
    second.save(other.string(), true);
    p = wait_idle(second);
    EXPECT_TRUE(p.error.empty()) << p.error;
    EXPECT_TRUE(fs::exists(other / "notes.txt"));
    EXPECT_EQ(train::load_checkpoint(other.string()).steps_taken(), 1);
    fs::remove_all(dir);
    fs::remove_all(other);
}

TEST(TrainWorker, ResetDropsTheRunAndABadSetupIsAMessage) {
    TrainWorker w;
    w.start(small_setup(3), true);
    wait_idle(w);
    w.reset();
    TrainProgress p = wait_idle(w);
    EXPECT_FALSE(p.history);
    EXPECT_EQ(p.steps_taken, 0);
    train::TrainingSetup bad = small_setup(3);
    bad.config.max_len = 8;  // copy sequences reach 26 tokens
    w.start(bad, true);
    p = wait_idle(w);
    EXPECT_FALSE(p.history);
    EXPECT_NE(p.error.find("the model's max_len is 8"), std::string::npos) << p.error;
}

}  // namespace
}  // namespace hs

namespace hs {
namespace {

TEST(ExperimentWorker, RunsEveryValueAsCoreDoesAndChecksThemFirst) {
    train::ExperimentSetup e = train::parse_sweep("heads=1,2", small_setup(4));
    ExperimentWorker w;
    w.start(e);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
    while (!w.idle() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    const ExperimentProgress p = w.progress();
    EXPECT_FALSE(p.running);
    EXPECT_EQ(p.error, "");
    ASSERT_EQ(p.runs.size(), 2u);
    EXPECT_EQ(p.done_steps, 8);
    const std::vector<train::TrainingSetup> setups = train::experiment_setups(e);
    for (std::size_t k = 0; k < 2; ++k) {
        train::TrainingRun run(setups[k]);
        while (!run.finished()) run.step();
        const train::ExperimentRun expected = train::summarize_run(run, e.values[k]);
        EXPECT_EQ(p.runs[k].value, expected.value);
        EXPECT_EQ(p.runs[k].d_k, expected.d_k);
        EXPECT_DOUBLE_EQ(p.runs[k].held_out_loss, expected.held_out_loss);
        EXPECT_EQ(p.runs[k].steps, expected.steps);
    }
    // heads=3 does not divide d_model 16: refused before anything runs.
    EXPECT_THROW(w.start(train::parse_sweep("heads=2,3", small_setup(4))), Error);
    EXPECT_EQ(w.progress().runs.size(), 2u);  // the finished experiment is still shown
}

TEST(ExperimentWorker, CancelStopsAtTheNextStep) {
    ExperimentWorker w;
    w.start(train::parse_sweep("heads=1,2", small_setup(100000)));
    while (w.progress().done_steps < 3) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    w.cancel();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    while (!w.idle() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    EXPECT_TRUE(w.idle());
    EXPECT_TRUE(w.progress().runs.empty());
    EXPECT_LT(w.progress().done_steps, 100000);
}

}  // namespace
}  // namespace hs

namespace hs {
namespace {

// Reset while a step is running: the step that ends after it must not bring the run back.
TEST(TrainWorker, ResetWhileTrainingLeavesNoRunBehind) {
    TrainWorker w;
    w.start(small_setup(1'000'000), true);
    while (w.progress().steps_taken < 3) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    w.reset();
    const TrainProgress p = wait_idle(w);
    EXPECT_FALSE(p.history);
    EXPECT_FALSE(p.running);
    EXPECT_EQ(p.steps_taken, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // nothing publishes later
    EXPECT_FALSE(w.progress().history);
}

// Step, Save, Step: the checkpoint holds one step, as asked.
TEST(TrainWorker, ASaveBetweenTwoStepsSavesAfterTheFirst) {
    const std::string dir = (std::filesystem::temp_directory_path() / ("hs_train_order_" + std::to_string(::getpid()))).string();
    TrainWorker w;
    w.start(small_setup(5), false);
    w.step_once();
    w.save(dir);
    w.step_once();
    const TrainProgress p = wait_idle(w);
    EXPECT_EQ(p.steps_taken, 2);
    EXPECT_EQ(train::load_checkpoint(dir).steps_taken(), 1);
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace hs
