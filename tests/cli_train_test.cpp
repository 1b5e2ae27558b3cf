// headscope train (cli/cmd_train.cpp) as a user runs it: a log with one row per step whose
// numbers are the trainer's, a saved model that reopens, and usage mistakes refused.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/image/png.h"
#include "core/io/model_dir.h"
#include "core/model/model.h"
#include "core/train/checkpoint.h"
#include "core/train/trainer.h"
#include "tests/cli_runner.h"

namespace hs {
namespace {

using cli_test::RunResult;
using test::TempDir;
using cli_test::run_headscope;

// Every key the default spec of `train` sets, so the in-process runs build the same model.
constexpr const char* kTrainSpec =
    "random:arch=decoder,d_model=16,heads=2,layers=1,vocab=10,max_len=32,pe=sinusoidal,norm=pre-ln,lm_head=tied";

TEST(CliTrain, LogsEveryStepAsTheTrainerComputesItAndSavesTheModel) {
    TempDir dir;
    const RunResult r = run_headscope({"train", "reverse", "--spec", kTrainSpec, "--steps", "4", "--batch", "3", "--lr",
                                       "1e-2", "--warmup", "1", "--seed", "5", "--log", "log.csv", "--save", "out"},
                                      dir);
    ASSERT_TRUE(r.exited && r.status == 0) << r.err;
    std::ifstream in(dir.file("log.csv"));
    std::string header, line;
    std::getline(in, header);
    EXPECT_EQ(header, "step,loss,grad_norm,lr,tokens,held_out_loss");
    // The same run in-process: losses of each step to the log's 6 decimals.
    ModelConfig c = parse_playground_spec(kTrainSpec);
    train::TrainOptions o;
    o.batch = 3;
    o.seed = 5;
    o.adamw.lr = 1e-2f;
    o.adamw.warmup_steps = 1;
    o.adamw.total_steps = 4;
    train::Trainer t(c, train::training_init(c), train::parse_task("reverse", c.vocab), o);
    for (int s = 1; s <= 4; ++s) {
        ASSERT_TRUE(std::getline(in, line)) << s;
        const train::StepReport rep = t.step();
        std::istringstream fields(line);
        std::string step, loss;
        std::getline(fields, step, ',');
        std::getline(fields, loss, ',');
        EXPECT_EQ(std::stoi(step), s);
        EXPECT_NEAR(std::stod(loss), rep.loss, 1e-6) << line;
    }
    const Model saved = load_model_dir(dir.file("out"));
    EXPECT_TRUE(saved.weights().embed.isApprox(t.weights().embed)) << "the saved weights are the trained ones";
}

// A save never replaces a model silently: a second run's --save into the first run's
// checkpoint, or `save` over it, is refused and leaves it as it was; --force replaces it,
// and then none of the old run's training state (trainer.json, optimizer moments) stays
// beside the new weights, while a file of the user's does. Saving the checkpoint that
// --resume continues is what resuming is for.
TEST(CliTrain, ASaveReplacesAModelOnlyWithForceAndLeavesNoStaleTrainingState) {
    TempDir dir;
    RunResult r = run_headscope({"train", "copy", "--spec", kTrainSpec, "--steps", "2", "--batch", "2", "--save", "a"}, dir);
    ASSERT_TRUE(r.exited && r.status == 0) << r.err;
    std::ofstream(dir.file("a/README")) << "notes\n";
    const std::string refused = "a already holds a model (config.json): choose another directory, or pass --force";
    r = run_headscope({"train", "reverse", "--spec", kTrainSpec, "--steps", "1", "--save", "a"}, dir);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find(refused), std::string::npos) << r.err;
    r = run_headscope({"save", "random:d_model=8,heads=2,layers=1", "a"}, dir);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find(refused), std::string::npos) << r.err;
    EXPECT_TRUE(std::filesystem::exists(dir.file("a/trainer.json"))) << "the refused saves changed nothing";
    r = run_headscope({"train", "--resume", "a", "--steps", "3", "--save", "a"}, dir);
    ASSERT_EQ(r.status, 0) << r.err;
    r = run_headscope({"save", "random:d_model=8,heads=2,layers=1", "a", "--force"}, dir);
    ASSERT_EQ(r.status, 0) << r.err;
    for (const char* stale : {"trainer.json", "optimizer_m.safetensors", "optimizer_v.safetensors"})
        EXPECT_FALSE(std::filesystem::exists(dir.file(std::string("a/") + stale))) << stale;
    EXPECT_TRUE(std::filesystem::exists(dir.file("a/README")));
    EXPECT_EQ(load_model_dir(dir.file("a")).config().d_model, 8);
    std::filesystem::create_directory(dir.file("other"));
    std::ofstream(dir.file("other/photo.jpg")) << "x";
    r = run_headscope({"save", "random:d_model=8,heads=2,layers=1", "other"}, dir);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("other is a directory that is not empty"), std::string::npos) << r.err;
}

TEST(CliTrain, ResumesACheckpointWhereItStopped) {
    TempDir dir;
    RunResult r = run_headscope(
        {"train", "copy", "--spec", kTrainSpec, "--steps", "2", "--batch", "2", "--log", "log.csv", "--save", "a"}, dir);
    ASSERT_TRUE(r.exited && r.status == 0) << r.err;
    r = run_headscope({"train", "--resume", "a", "--steps", "4", "--log", "log.csv", "--save", "b"}, dir);
    ASSERT_TRUE(r.exited && r.status == 0) << r.err;
    // The resumed run's log continues the first one's.
    std::ifstream in(dir.file("log.csv"));
    std::string line, steps;
    std::getline(in, line);
    while (std::getline(in, line)) steps += line.substr(0, line.find(',')) + " ";
    EXPECT_EQ(steps, "1 2 3 4 ");
    EXPECT_EQ(train::load_checkpoint(dir.file("a")).steps_taken(), 2) << "--save b keeps a as it was";
    // Without --save the resumed steps go back into the checkpoint they continue.
    r = run_headscope({"train", "--resume", "b", "--steps", "5"}, dir);
    ASSERT_TRUE(r.exited && r.status == 0) << r.err;
    EXPECT_NE(r.out.find("wrote b "), std::string::npos) << r.out;
    EXPECT_EQ(train::load_checkpoint(dir.file("b")).steps_taken(), 5);
    // A snapshot of --snapshots is not saved back (a later step under step_000002's name):
    // resuming one takes --save, asked before step 1.
    r = run_headscope({"train", "copy", "--spec", kTrainSpec, "--steps", "2", "--batch", "2", "--every", "2",
                       "--snapshots", "snaps"}, dir);
    ASSERT_EQ(r.status, 0) << r.err;
    r = run_headscope({"train", "--resume", "snaps/step_000002", "--steps", "3"}, dir);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("continues a snapshot of --snapshots; say where the continued run goes with --save DIR"),
              std::string::npos) << r.err;
    EXPECT_EQ(train::load_checkpoint(dir.file("snaps/step_000002")).steps_taken(), 2);
    r = run_headscope({"train", "--resume", "b", "--steps", "5"}, dir);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("has already taken 5 steps; ask for more with --steps"), std::string::npos) << r.err;
    r = run_headscope({"train", "--resume", "b", "--steps", "6", "--lr", "1"}, dir);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--lr comes from the checkpoint when resuming"), std::string::npos) << r.err;
}

TEST(CliTrain, ACheckpointWithImpossibleTaskLengthsIsRefusedNamingItsFile) {
    TempDir dir;
    RunResult r = run_headscope({"train", "copy", "--spec", kTrainSpec, "--steps", "1", "--batch", "1", "--save", "a"}, dir);
    ASSERT_TRUE(r.exited && r.status == 0) << r.err;
    std::ifstream in(dir.file("a/trainer.json"));
    std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::size_t at = json.find("\"min_len\": 4");
    ASSERT_NE(at, std::string::npos) << json;
    json.replace(at, 12, "\"min_len\": 13");  // above max_len 12: the generator would divide by zero
    std::ofstream(dir.file("a/trainer.json")) << json;
    r = run_headscope({"train", "--resume", "a", "--steps", "3"}, dir);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("trainer.json does not describe a training run: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("min_len 13, max_len 12"), std::string::npos) << r.err;
}

TEST(CliTrain, SweepsHeadCountsOverTheSpecAndWritesARowPerRun) {
    TempDir dir;
    const RunResult r = run_headscope({"train", "copy", "--spec", kTrainSpec, "--sweep", "heads=1,2", "--steps", "2",
                                       "--batch", "2", "--every", "1", "--sweep-csv", "sweep.csv", "--sweep-png", "sweep.png"},
                                      dir);
    ASSERT_TRUE(r.exited && r.status == 0) << r.err;
    std::ifstream in(dir.file("sweep.csv"));
    std::string header, one, two, extra;
    std::getline(in, header);
    std::getline(in, one);
    std::getline(in, two);
    EXPECT_EQ(header, "heads,d_k,final_loss,held_out_loss,best_induction,first_induction_step,roles");
    EXPECT_EQ(one.substr(0, 5), "1,16,");  // d_model 16 over 1 head
    EXPECT_EQ(two.substr(0, 4), "2,8,");
    EXPECT_FALSE(std::getline(in, extra));
    const RgbImage png = read_png(dir.file("sweep.png"));
    EXPECT_EQ(png.width(), 3 * 480 + 4 * 20);  // three panels
}

TEST(CliTrain, ASweepChecksEveryModelBeforeTheFirstRun) {
    TempDir dir;
    const RunResult r =
        run_headscope({"train", "copy", "--spec", kTrainSpec, "--sweep", "heads=2,3", "--steps", "2", "--batch", "2"}, dir);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("heads=3: "), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("== heads=2"), std::string::npos) << "no run starts before every model is checked";
}

TEST(CliTrain, RefusesModelsThatSeeTheNextTokenAndStrayOptions) {
    TempDir dir;
    RunResult r = run_headscope({"train", "copy", "--spec", "random:arch=encoder", "--steps", "1"}, dir);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("the model must be a causal decoder (arch=decoder or, for copy / reverse / sort, arch=encoder-decoder; mask=causal); got arch=encoder, mask=none"),
              std::string::npos)
        << r.err;
    r = run_headscope({"train", "copy", "--spec", "random:mask=none", "--steps", "1"}, dir);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("got arch=decoder, mask=none"), std::string::npos) << r.err;
    r = run_headscope({"train", "copy", "--steps", "1", "--sweep-csv", "s.csv"}, dir);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--sweep-csv goes with --sweep"), std::string::npos) << r.err;
}

TEST(CliTrain, RefusesAnUnknownTaskAndABadRate) {
    TempDir dir;
    RunResult r = run_headscope({"train", "translate", "--steps", "1"}, dir);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("unknown task 'translate' (choose copy, reverse, sort, induction or grammar)"), std::string::npos) << r.err;
    r = run_headscope({"train", "copy", "--lr", "fast"}, dir);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--lr needs a positive number"), std::string::npos) << r.err;
}

// --save, --log and --snapshots are checked before step 1, with the error the write at
// the end would give: no step runs (none is printed) when one cannot be written.
TEST(CliTrain, AnUnwritableOutputFailsBeforeTheFirstStep) {
    TempDir dir;
    const std::vector<std::vector<std::string>> cases = {
        {"--save", "/proc/x"}, {"--log", "/nonexistent/dir/l.csv"}, {"--snapshots", "/proc/x"}};
    const std::vector<std::string> errors = {"headscope train: cannot save to /proc/x: ",
                                             "headscope train: cannot write /nonexistent/dir/l.csv: directory "
                                             "/nonexistent/dir does not exist",
                                             "headscope train: cannot save to /proc/x/step_000001: "};
    for (std::size_t k = 0; k < cases.size(); ++k) {
        std::vector<std::string> args{"train", "copy", "--spec", kTrainSpec, "--steps", "3"};
        args.insert(args.end(), cases[k].begin(), cases[k].end());
        const RunResult r = run_headscope(args, dir);
        EXPECT_TRUE(r.exited && r.status == 1) << r.status << " " << r.err;
        EXPECT_EQ(r.out, "") << "no step ran";
        EXPECT_NE(r.err.find(errors[k]), std::string::npos) << r.err;
    }
}

// The check leaves nothing behind: not the directory --save names, not the parents its
// save would create, when the run stops there (here at an unwritable --log).
TEST(CliTrain, CheckingTheSaveDirectoryLeavesNothingBehind) {
    TempDir dir;
    const RunResult r = run_headscope(
        {"train", "copy", "--spec", kTrainSpec, "--steps", "3", "--save", "new/sub/ck", "--log", "missing/l.csv"}, dir);
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("cannot write missing/l.csv"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.file("new"))) << "no parent directory left";
    std::vector<std::string> left;
    for (const auto& e : std::filesystem::directory_iterator(dir.path()))
        if (e.path().filename().string()[0] != '.') left.push_back(e.path().filename().string());
    EXPECT_TRUE(left.empty()) << left.front();
}

}  // namespace
}  // namespace hs
