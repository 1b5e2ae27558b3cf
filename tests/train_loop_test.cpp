// Tasks and the training loop (core/train/tasks.*, trainer.*): examples are what the task
// says, training lowers the held-out loss, and a step is bit-identical on any thread count.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>

#include <gtest/gtest.h>

#include "core/analysis/head_metrics.h"
#include "core/error.h"
#include "core/kernels/parallel.h"
#include "core/model/weights.h"
#include "core/io/model_dir.h"
#include "core/model/model.h"
#include "core/open_source.h"
#include "core/source.h"
#include "core/train/checkpoint.h"
#include "core/train/parameters.h"
#include "core/train/tasks.h"
#include "core/train/trainer.h"
#include "core/train/trained_source.h"
#include "core/train/training_run.h"
#include "tests/test_util.h"

namespace hs {
namespace {

using train::Example;
using train::TaskKind;

TEST(Tasks, CopyReverseAndSortWriteTheInputThenTheAnswer) {
    for (const char* name : {"copy", "reverse", "sort"}) {
        const train::TaskSpec task = train::parse_task(name, 20);
        for (int i = 0; i < 20; ++i) {
            const Example e = train::make_example(task, 7, 3, i);
            const int n = (static_cast<int>(e.ids.size()) - 2) / 2;  // BOS x SEP y, |x| = |y| = n
            ASSERT_EQ(static_cast<int>(e.ids.size()), 2 * n + 2) << name;
            ASSERT_GE(n, task.min_len);
            ASSERT_LE(n, task.max_len);
            EXPECT_EQ(e.ids[0], train::kBos);
            EXPECT_EQ(e.ids[static_cast<std::size_t>(n + 1)], train::kSep);
            EXPECT_EQ(e.first_target, n + 2);
            std::vector<int> x(e.ids.begin() + 1, e.ids.begin() + 1 + n), y(e.ids.begin() + n + 2, e.ids.end());
            for (int s : x) ASSERT_TRUE(s >= 2 && s < 20);
            if (task.kind == TaskKind::Reverse) std::reverse(x.begin(), x.end());
            if (task.kind == TaskKind::Sort) std::sort(x.begin(), x.end());
            EXPECT_EQ(x, y) << name;
        }
    }
}

TEST(Tasks, InductionRepeatsASequenceAfterAFillerOfVaryingLength) {
    const train::TaskSpec task = train::parse_task("induction", 50);
    std::set<std::size_t> lengths;
    for (int i = 0; i < 40; ++i) {
        const Example e = train::make_example(task, 1, 0, i);
        EXPECT_EQ(e.ids[0], train::kBos);
        EXPECT_EQ(e.first_target, 1);
        EXPECT_LE(static_cast<int>(e.ids.size()), train::longest_example(task));
        // Some r of length 8 … 20 is both right after BOS and at the very end.
        bool found = false;
        for (std::size_t r = 8; r <= 20 && !found; ++r)
            found = 1 + 2 * r <= e.ids.size() &&
                    std::equal(e.ids.begin() + 1, e.ids.begin() + 1 + static_cast<long>(r), e.ids.end() - static_cast<long>(r));
        EXPECT_TRUE(found) << i;
        lengths.insert(e.ids.size());
    }
    EXPECT_GT(lengths.size(), 5u);  // the offset between the copies varies
}

TEST(Tasks, AnExampleIsAFunctionOfSeedStepAndIndex) {
    const train::TaskSpec task = train::parse_task("copy", 30);
    EXPECT_EQ(train::make_example(task, 5, 9, 2).ids, train::make_example(task, 5, 9, 2).ids);
    EXPECT_NE(train::make_example(task, 5, 9, 2).ids, train::make_example(task, 5, 9, 3).ids);
    EXPECT_NE(train::make_example(task, 5, 9, 2).ids, train::make_example(task, 5, 10, 2).ids);
    EXPECT_THROW(train::parse_task("translate", 30), Error);
}

ModelConfig small_decoder(int d_model = 32, int heads = 2) {
    ModelConfig c = ModelConfig::defaults_for(Arch::DecoderOnly);
    c.d_model = d_model;
    c.heads = heads;
    c.layers = 2;
    c.d_ff = 64;
    c.vocab = 12;
    c.max_len = 32;
    c.norm = NormPlacement::PreLN;
    c.mask = MaskKind::Causal;
    c.lm_head = LmHead::Tied;
    c.seed = 4;
    return c;
}

train::TrainOptions options(int steps) {
    train::TrainOptions o;
    o.batch = 16;
    o.seed = 1;
    o.adamw.lr = 3e-3f;
    o.adamw.warmup_steps = steps / 10;
    o.adamw.total_steps = steps;
    return o;
}

TEST(Trainer, LearnsToCopy) {
    // 10 symbols: a model that knows only which ids are symbols predicts the answer at
    // ln 10 = 2.30 nats per token; below 1.6 it reads them from the input (measured with
    // `headscope train copy` and these settings: 1.24, 1.29, 1.34 for model seeds 0, 4, 7).
    const ModelConfig c = small_decoder(64, 4);
    train::Trainer t(c, init_weights(c), train::parse_task("copy", c.vocab), options(400));
    const double before = t.held_out_loss(64);
    EXPECT_GT(before, 2.3);
    for (int s = 0; s < 400; ++s) t.step();
    const double after = t.held_out_loss(64);
    EXPECT_LT(after, 1.6) << "held-out loss " << before << " -> " << after;
    EXPECT_EQ(t.steps_taken(), 400);
}

// parallel_for inside a pool task runs serially: the second trainer steps on one thread,
// the first on HEADSCOPE_THREADS (2 in CTest, under the sanitizers too). Run for a decoder
// and for an encoder–decoder (cross-attention's backward included), so the sanitizer sees
// every training path without the long convergence tests it leaves out.
void expect_same_steps_pooled_and_serial(const ModelConfig& c) {
    train::Trainer pooled(c, init_weights(c), train::parse_task("reverse", c.vocab), options(10));
    train::Trainer serial(c, init_weights(c), train::parse_task("reverse", c.vocab), options(10));
    for (int s = 0; s < 3; ++s) {
        const train::StepReport a = pooled.step();
        train::StepReport b;
        parallel_for(1, [&](int) { b = serial.step(); });
        EXPECT_EQ(a.loss, b.loss) << s;
        EXPECT_EQ(a.grad_norm, b.grad_norm) << s;
        EXPECT_EQ(a.tokens, b.tokens);
    }
    ModelWeights wa = pooled.weights(), wb = serial.weights();
    const std::vector<train::Parameter> pa = train::parameters_of(wa), pb = train::parameters_of(wb);
    ASSERT_EQ(pa.size(), pb.size());
    for (std::size_t k = 0; k < pa.size(); ++k)
        ASSERT_TRUE(std::equal(pa[k].data, pa[k].data + pa[k].size, pb[k].data)) << "parameter " << k;
}

TEST(Trainer, AStepIsTheSameOnOneThreadAsOnThePool) {
    expect_same_steps_pooled_and_serial(small_decoder());
}

TEST(Trainer, AnEncoderDecoderStepIsTheSameOnOneThreadAsOnThePool) {
    ModelConfig c = small_decoder();
    c.arch = Arch::EncoderDecoder;
    expect_same_steps_pooled_and_serial(c);
}

TEST(Trainer, RefusesATaskThatDoesNotFitTheModel) {
    ModelConfig c = small_decoder();
    c.max_len = 16;  // copy reaches 2 + 2·12 = 26 tokens
    EXPECT_THROW(train::Trainer(c, init_weights(c), train::parse_task("copy", c.vocab), options(1)), Error);
    c = small_decoder();
    EXPECT_THROW(train::Trainer(c, init_weights(c), train::parse_task("copy", 40), options(1)), Error);
}

}  // namespace
}  // namespace hs

namespace hs {
namespace {

TEST(Checkpoint, ResumingTakesTheStepsTheUninterruptedRunTakes) {
    test::TempDir dir;
    const ModelConfig c = small_decoder();
    train::Trainer straight(c, init_weights(c), train::parse_task("sort", c.vocab), options(6));
    for (int s = 0; s < 6; ++s) straight.step();
    train::Trainer first(c, init_weights(c), train::parse_task("sort", c.vocab), options(6));
    for (int s = 0; s < 3; ++s) first.step();
    train::save_checkpoint(first, dir.file("ckpt"));
    train::Trainer resumed = train::load_checkpoint(dir.file("ckpt"));
    EXPECT_EQ(resumed.steps_taken(), 3);
    for (int s = 0; s < 3; ++s) resumed.step();
    ModelWeights wa = straight.weights(), wb = resumed.weights();
    const std::vector<train::Parameter> pa = train::parameters_of(wa), pb = train::parameters_of(wb);
    ASSERT_EQ(pa.size(), pb.size());
    for (std::size_t k = 0; k < pa.size(); ++k)
        ASSERT_TRUE(std::equal(pa[k].data, pa[k].data + pa[k].size, pb[k].data)) << "parameter " << k;
    // The checkpoint is a model directory too.
    EXPECT_EQ(load_model_dir(dir.file("ckpt")).config(), c);
}

TEST(Checkpoint, OpensAsATrainedModelThatReadsItsTasksTokens) {
    test::TempDir dir;
    const ModelConfig c = small_decoder();
    train::Trainer t(c, init_weights(c), train::parse_task("sort", c.vocab), options(2));
    t.step();
    train::save_checkpoint(t, dir.file("ckpt"));
    const auto source = open_source(dir.file("ckpt"));
    EXPECT_EQ(source->kind(), "trained model");
    EXPECT_EQ(source->tokenize("<bos> #3 #2 <sep>").ids, (std::vector<int>{0, 3, 2, 1}));
    // Its weights are the trainer's, its trace the model's on those ids.
    SourceInput in;
    in.text = "<bos> #3 #2 <sep> #2 #3";
    const Trace got = source->run(in, TraceOptions{});
    const Trace want = Model(c, t.weights()).forward(ForwardInput::of({0, 3, 2, 1, 2, 3}));
    EXPECT_EQ(got.main.layers[0].self_attn.weights[0], want.main.layers[0].self_attn.weights[0]);
    // An unreadable trainer.json: the model still opens, with hashed words, and says why.
    test::write_text(dir.file("ckpt") + "/trainer.json", "{ not json");
    const auto fallback = open_source(dir.file("ckpt"));
    EXPECT_EQ(fallback->kind().rfind("model directory; its task is unreadable, words are hashed: ", 0), 0u)
        << fallback->kind();
    EXPECT_FALSE(fallback->tokenize("The animal").ids.empty());
}

TEST(Checkpoint, AModelDirectoryWithoutTrainingStateIsNamedAsSuch) {
    test::TempDir dir;
    const ModelConfig c = small_decoder();
    save_model_dir(Model(c, init_weights(c)), dir.file("plain"));
    try {
        (void)train::load_checkpoint(dir.file("plain"));
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()),
                  dir.file("plain") + " is a model directory but not a training checkpoint (it has no trainer.json)");
    }
}

}  // namespace
}  // namespace hs

namespace hs {
namespace {

TEST(TrainingInit, DrawsTheEmbeddingsAtGpt2ScaleAndTheRestAsInitWeights) {
    const ModelConfig c = small_decoder();
    const ModelWeights plain = init_weights(c), w = train::training_init(c);
    EXPECT_TRUE(w.embed.isApprox(plain.embed * 0.02f));
    EXPECT_EQ(w.layers[0].self_attn.in_proj_weight, plain.layers[0].self_attn.in_proj_weight);
    // A tied head over N(0, 0.02²) embeddings starts near the uniform guess, ln V = ln 12.
    train::Trainer t(c, w, train::parse_task("copy", c.vocab), options(1));
    EXPECT_NEAR(t.held_out_loss(16), std::log(12.0), 0.1);
}

}  // namespace
}  // namespace hs

namespace hs::train {
namespace {

// Issue 13's target model (2 layers, d_model 64, 4 heads, learned positions) on the
// variable-offset induction task, batch 32, lr 1e-3 with the schedule of a 1500-step run
// (warm-up 100, cosine), seed 1: by step 1000 the loss has
// left its plateau (ln 30 ≈ 3.40 for random symbols; predicting the second copy brings
// the mean under 2.9) and a second-layer head attends from each token of the second copy
// to the token after its first occurrence (score > 0.5; PyTorch's run of the same model,
// scripts/train_torch.py, crosses 0.5 near step 1000 too). The heads of the first layer
// stay below 0.2: they are the previous-token half of the circuit, which the roles on the
// probe say at the end of the run (step 1500, below). ~25 s in Release.
TEST(Trainer, AnInductionHeadFormsInTheSecondLayer) {
    TrainingSetup setup;
    setup.config = training_config(kDefaultTrainingSpec);
    setup.task = parse_task("induction", setup.config.vocab);
    setup.options.batch = 32;
    setup.options.seed = 1;
    setup.options.adamw.lr = 1e-3f;
    setup.options.adamw.warmup_steps = 100;
    setup.options.adamw.total_steps = 1500;
    setup.every = 500;
    TrainingRun run(setup);
    while (!run.finished()) run.step();
    const auto& snapshots = run.history().snapshots;
    ASSERT_EQ(snapshots.size(), 4u);  // steps 0, 500, 1000, 1500
    const HeadSnapshot& at_1000 = *snapshots[2];
    ASSERT_EQ(at_1000.step, 1000);
    EXPECT_LT(at_1000.held_out_loss, 2.9);
    double first_layer = 0.0, second_layer = 0.0;
    for (const HeadMetrics& m : at_1000.metrics)
        (m.layer == 0 ? first_layer : second_layer) = std::max(m.layer == 0 ? first_layer : second_layer, m[Metric::Induction]);
    EXPECT_GT(second_layer, 0.5);
    EXPECT_LT(first_layer, 0.2);

    // Roles on the probe the Train view draws (BOS + r + r): at step 0 (a random model,
    // the uniform baseline) no head is previous-token; at the end a first-layer head is and
    // no second-layer head is, and every second-layer head is an induction head.
    const auto heads_with = [](const std::vector<HeadLabels>& labels, int layer, Role role) {
        int n = 0;
        for (const HeadLabels& l : labels)
            for (const HeadLabel& r : l.all) n += l.layer == layer && r.role == role;
        return n;
    };
    const HeadSnapshot& start = *snapshots.front();
    const HeadSnapshot& end = *snapshots.back();
    ASSERT_EQ(start.step, 0);
    ASSERT_EQ(end.step, 1500);
    ASSERT_EQ(end.probe_labels.size(), 8u);
    EXPECT_EQ(heads_with(start.probe_labels, 0, Role::PreviousToken) + heads_with(start.probe_labels, 1, Role::PreviousToken), 0);
    EXPECT_GE(heads_with(end.probe_labels, 0, Role::PreviousToken), 1);
    EXPECT_EQ(heads_with(end.probe_labels, 1, Role::PreviousToken), 0);
    EXPECT_EQ(heads_with(end.probe_labels, 1, Role::Induction), 4);
}

TEST(TrainingRun, SnapshotsKeepTheWeightsOfTheirStepThinnedToTheBudget) {
    TrainingSetup setup;
    setup.config = training_config("random:d_model=16,heads=2,layers=1,vocab=12,max_len=32");
    setup.task = parse_task("copy", setup.config.vocab);
    setup.options.batch = 2;
    setup.options.adamw.total_steps = 8;
    setup.every = 1;
    ModelWeights probe = training_init(setup.config);
    std::size_t bytes = 0;
    for (const Parameter& p : parameters_of(probe)) bytes += p.size * sizeof(float);
    setup.snapshot_weight_budget = 4 * bytes;  // room for four models
    TrainingRun run(setup);
    while (!run.finished()) run.step();
    const auto& snaps = run.history().snapshots;
    ASSERT_EQ(snaps.size(), 9u);  // steps 0 … 8
    ASSERT_TRUE(snaps.front()->weights && snaps.back()->weights);
    EXPECT_TRUE(snaps.front()->weights->embed.isApprox(probe.embed));  // step 0: the initial model
    EXPECT_EQ(snaps.back()->weights->embed, run.trainer().weights().embed);
    int kept = 0;
    for (const auto& s : snaps) kept += s->weights ? 1 : 0;
    EXPECT_LE(kept, 4);
    EXPECT_GE(kept, 3);
    // Thinning keeps the metrics of every snapshot.
    for (const auto& s : snaps) EXPECT_EQ(s->metrics.size(), 2u);
}

// One encoder–decoder layer learns to reverse (a one-layer decoder cannot: it has no
// second layer to find the mirrored token), and its cross-attention does it: the answer's
// query t (predicting y_t = x_{n−1−t}) looks at source position n − t (BOS x SEP).
TEST(Trainer, AnEncoderDecoderLearnsToReverseThroughCrossAttention) {
    TrainingSetup setup;
    setup.config = training_config("random:arch=encoder-decoder,d_model=32,layers=1,vocab=16,max_len=32");
    setup.task = parse_task("reverse", setup.config.vocab);
    setup.options.batch = 16;
    setup.options.seed = 1;
    setup.options.adamw.lr = 3e-3f;
    setup.options.adamw.warmup_steps = 100;
    setup.options.adamw.total_steps = 1500;
    setup.every = 1500;
    TrainingRun run(setup);
    while (!run.finished()) run.step();
    const HeadSnapshot& end = *run.history().snapshots.back();
    ASSERT_EQ(end.step, 1500);
    EXPECT_LT(end.held_out_loss, 0.1);
    ASSERT_TRUE(end.probe_is_cross);
    ASSERT_EQ(end.probe_maps.size(), 4u);  // 1 decoder layer × 4 heads
    const Matrix& first = end.probe_maps[0];
    const int n = static_cast<int>(first.rows()) - 1;  // target SEP y: n + 1 rows; source n + 2
    ASSERT_EQ(first.cols(), n + 2);
    EXPECT_EQ(end.probe_query_tokens.size(), static_cast<std::size_t>(n + 1));
    // The heads share the work (and the encoder has already mixed neighbours), so the test
    // reads their mean map: its peak for every answer query is the mirrored source token
    // or a neighbour, and that window holds most of the weight.
    Matrix mean = Matrix::Zero(first.rows(), first.cols());
    for (const Matrix& m : end.probe_maps) mean += m / static_cast<float>(end.probe_maps.size());
    double near_mirror = 0.0;
    for (int t = 0; t < n; ++t) {
        Eigen::Index peak = 0;
        mean.row(t).maxCoeff(&peak);
        EXPECT_LE(std::abs(static_cast<int>(peak) - (n - t)), 1) << "query " << t << " of " << n;
        near_mirror += mean.row(t).segment(n - t - 1, 3).sum();
    }
    EXPECT_GT(near_mirror / n, 0.7);
}

}  // namespace
}  // namespace hs::train

namespace hs::train {
namespace {

// 40 × "ab ba " = 240 characters: a (80), b (80), space (80); words ab, ba (40 each).
std::string ab_text() {
    std::string t;
    for (int i = 0; i < 40; ++i) t += "ab ba ";
    return t;
}

TEST(TextCorpus, NumbersTokensByFrequencyThenFirstOccurrenceAndHoldsOutTheLastTenth) {
    const TextCorpus chars = build_text_corpus(ab_text() + "秦", TextLevel::Char, 10, 8);
    // a and b: 80 each, a first; space 80 (after b in first occurrence); 秦 once.
    EXPECT_EQ(chars.vocab, (std::vector<std::string>{"<bos>", "<unk>", "a", "b", " ", "秦"}));
    EXPECT_EQ(chars.train_ids.size() + chars.held_ids.size(), 241u);
    EXPECT_EQ(chars.held_ids.size(), 24u);  // 241 / 10
    EXPECT_EQ(chars.held_ids.back(), 5);    // 秦 is the text's last token
    EXPECT_EQ(chars.unknown, 0);
    const TextCorpus small = build_text_corpus(ab_text() + "秦", TextLevel::Char, 4, 8);
    EXPECT_EQ(small.vocab.size(), 4u);  // <bos> <unk> a b: spaces and 秦 become <unk>
    EXPECT_EQ(small.unknown, 81);
    const TextCorpus words = build_text_corpus(ab_text(), TextLevel::Word, 10, 4);
    EXPECT_EQ(words.vocab, (std::vector<std::string>{"<bos>", "<unk>", "ab", "ba"}));
    EXPECT_EQ(words.train_ids.size(), 72u);
    EXPECT_EQ(words.held_ids.size(), 8u);
}

// A vocabulary that misses tokens of the text says how much and what would hold them:
// vocab 4 keeps <bos> <unk> a b of "ab ba " × 40 + 秦, 81 of the 241 characters (the 80
// spaces and 秦) are read as <unk>, 34 %; vocab=6 holds the 4 different characters.
TEST(TextCorpus, SaysWhatAVocabularyTooSmallForTheTextReadsAsUnk) {
    EXPECT_EQ(vocabulary_note(build_text_corpus(ab_text() + "秦", TextLevel::Char, 10, 8)), "");
    EXPECT_EQ(vocabulary_note(build_text_corpus(ab_text() + "秦", TextLevel::Char, 4, 8)),
              "the vocabulary (vocab=4) holds 2 of the text's 4 different characters: 34 % of its 241 characters "
              "are read as <unk>, which the model learns to predict instead; vocab=6 in the spec holds them all");
}

TEST(TextCorpus, ATextTooShortForItsWindowsIsNamed) {
    try {
        build_text_corpus("ab ba", TextLevel::Word, 10, 4);
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "the text has 2 word tokens; training windows of 4 need at least 50 (10 % are held out)");
    }
}

TEST(TextCorpus, ExamplesAreWindowsOfTheirSplit) {
    auto corpus = std::make_shared<const TextCorpus>(build_text_corpus(ab_text(), TextLevel::Char, 10, 6));
    const TaskSpec task = text_task(corpus, 6);
    EXPECT_EQ(longest_example(task), 6);
    for (int i = 0; i < 20; ++i) {
        const Example e = make_example(task, 3, i, 0);
        ASSERT_EQ(e.ids.size(), 6u);
        EXPECT_EQ(e.ids[0], kBos);
        EXPECT_EQ(e.first_target, 1);
        // The text repeats "ab ba " (ids 2 3 4 3 2 4): every window is a piece of it.
        const auto start = std::search(corpus->train_ids.begin(), corpus->train_ids.end(), e.ids.begin() + 1, e.ids.end());
        EXPECT_NE(start, corpus->train_ids.end()) << i;
    }
    const Example held = held_out_example(task, 3, 1);
    EXPECT_TRUE(std::equal(held.ids.begin() + 1, held.ids.end(), corpus->held_ids.begin() + 5));  // window 1 starts at 5
}

TEST(TextCorpus, ACheckpointReadsItsTextAgainAndRefusesAChangedOne) {
    test::TempDir dir;
    const std::string file = dir.file("text.txt");
    std::ofstream(file) << ab_text();
    TrainingSetup setup;
    setup.config = training_config("random:d_model=16,heads=2,layers=1,vocab=8,max_len=16");
    setup.text_file = file;
    setup.text_window = 8;
    setup.options.batch = 2;
    setup.options.adamw.total_steps = 4;
    TrainingRun run(setup);
    run.step();
    run.step();
    save_checkpoint(run.trainer(), dir.file("ck"));
    Trainer resumed = load_checkpoint(dir.file("ck"));
    EXPECT_EQ(resumed.task().kind, TaskKind::Text);
    EXPECT_EQ(resumed.task().window, 8);
    run.step();
    EXPECT_EQ(resumed.step().loss, run.history().points.back().loss);  // the same third step
    std::ofstream(file) << ab_text() << "ab";
    try {
        load_checkpoint(dir.file("ck"));
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("has changed since the checkpoint was written"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace hs::train

namespace hs::train {
namespace {

// Found by the trainer_state fuzz target: a float where a whole number belongs was cast
// (2.6e105 to int: undefined behaviour). Every field is now read by its type and range.
TEST(Checkpoint, NumbersOfTheWrongKindOrRangeInTrainerJsonAreNamed) {
    const std::string good = R"({"format":"headscope-trainer","steps_taken":3,"batch":2,"seed":1,
        "task":{"kind":"copy","vocab":10,"min_len":4,"max_len":12},
        "adamw":{"lr":0.001,"beta1":0.9,"beta2":0.95,"eps":1e-8,"weight_decay":0.01,"warmup_steps":0,
                 "total_steps":10,"min_lr_ratio":0.1,"clip_norm":1.0}})";
    EXPECT_EQ(parse_trainer_state(good, "t.json").steps_taken, 3);
    const auto message_of = [&](const std::string& from, const std::string& to) {
        std::string text = good;
        text.replace(text.find(from), from.size(), to);
        try {
            (void)parse_trainer_state(text, "t.json");
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(message_of("\"min_len\":4", "\"min_len\":2.6e105"),
              "t.json does not describe a training run: \"min_len\" must be a whole number");
    EXPECT_EQ(message_of("\"lr\":0.001", "\"lr\":1e300"), "t.json does not describe a training run: \"lr\" is out of range");
    EXPECT_EQ(message_of("\"batch\":2", "\"batch\":4294967296"), "t.json does not describe a training run: \"batch\" is out of range");
    EXPECT_EQ(message_of("\"seed\":1", "\"seed\":-1"),
              "t.json does not describe a training run: \"seed\" must be a whole number ≥ 0");
    EXPECT_EQ(message_of("\"task\":", "\"tusk\":"), "t.json does not describe a training run: \"task\" is missing");
}

TEST(TrainedSource, ReadsTheTasksSymbolsAndNamesWhatIsNotOne) {
    const TaskSpec task = parse_task("induction", 32);
    const Tokens t = encode_task_text(task, "<bos> #5 7  <sep>\t#31");
    EXPECT_EQ(t.ids, (std::vector<int>{0, 5, 7, 1, 31}));
    EXPECT_EQ(t.text, (std::vector<std::string>{"<bos>", "#5", "#7", "<sep>", "#31"}));
    EXPECT_EQ(task_text(task, t.ids), "<bos> #5 #7 <sep> #31");
    try {
        (void)encode_task_text(task, "#5 #32");
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "'#32' is not a token of the induction task: type <bos>, <sep> or symbols #2 … #31");
    }
    EXPECT_THROW((void)encode_task_text(task, "The animal"), Error);
}

TEST(TrainedSource, RunsTheModelOnTheTasksIdsAndReadsATextTasksWords) {
    const ModelConfig c = training_config("random:d_model=16,heads=2,layers=1,vocab=12,max_len=32");
    const ModelWeights w = training_init(c);
    const auto source = make_trained_source(Model(c, w), parse_task("copy", 12), "run 1, step 0");
    EXPECT_EQ(source->name(), "run 1, step 0");
    SourceInput in;
    in.text = "<bos> #3 #4 <sep> #3 #4";
    const Trace t = source->run(in, TraceOptions{});
    const Trace want = Model(c, w).forward(ForwardInput::of({0, 3, 4, 1, 3, 4}));
    EXPECT_EQ(t.main.tokens, (std::vector<std::string>{"<bos>", "#3", "#4", "<sep>", "#3", "#4"}));
    EXPECT_EQ(t.main.layers[0].self_attn.weights[1], want.main.layers[0].self_attn.weights[1]);
    // A text task: the corpus's words, BOS first, unseen words as <unk> (1).
    const TaskSpec text = text_task(std::make_shared<const TextCorpus>(build_text_corpus(ab_text(), TextLevel::Word, 10, 4)), 4);
    const Tokens words = encode_task_text(text, "ab ba zz");
    EXPECT_EQ(words.ids, (std::vector<int>{0, 2, 3, 1}));
    EXPECT_EQ(task_text(text, words.ids), "ab ba <unk>");
}

// A task model offers an example of its own for a window whose text it cannot read: the
// task's first held-out example (seed 1), which it runs; English is an input error (the
// window then switches to the example). The grammar reads sentences: no example needed.
TEST(TrainedSource, OffersAHeldOutExampleOfItsTaskAndRefusesEnglishAsInput) {
    const ModelConfig c = training_config("random:d_model=16,heads=2,layers=1,vocab=12,max_len=32");
    const TaskSpec copy = parse_task("copy", 12);
    const auto source = make_trained_source(Model(c, training_init(c)), copy, "copy model");
    const std::string example = source->example_text();
    EXPECT_EQ(example, task_text(copy, held_out_example(copy, 1, 0).ids));
    EXPECT_EQ(example.rfind("<bos> #", 0), 0u) << example;
    SourceInput in;
    in.text = example;
    EXPECT_EQ(source->run(in, TraceOptions{}).main.ids, held_out_example(copy, 1, 0).ids);
    in.text = "Alice helped John";
    EXPECT_THROW(source->run(in, TraceOptions{}), InputError);
    const ModelConfig g = training_config("random:d_model=16,heads=2,layers=1,vocab=" +
                                          std::to_string(grammar_words()->tokens.size()) + ",max_len=64");
    EXPECT_EQ(make_trained_source(Model(g, training_init(g)), parse_task("grammar", 0), "grammar")->example_text(), "");
}

TEST(GrammarTask, WindowsOfGrammarSentencesOrInductionOverItsWords) {
    const TaskSpec task = parse_task("grammar", 0);
    ASSERT_EQ(task.kind, TaskKind::Grammar);
    EXPECT_EQ(task.vocab, static_cast<int>(grammar_words()->tokens.size()));
    EXPECT_EQ(grammar_words()->tokens[0], "<bos>");
    EXPECT_EQ(grammar_words()->tokens[1], "<unk>");
    int induction = 0;
    for (int i = 0; i < 400; ++i) {
        const Example e = make_example(task, 5, 3, i);
        ASSERT_EQ(e.ids, make_example(task, 5, 3, i).ids);  // a function of (seed, step, index)
        ASSERT_EQ(e.ids[0], kBos);
        ASSERT_LE(static_cast<int>(e.ids.size()), task.window);
        for (std::size_t k = 1; k < e.ids.size(); ++k) ASSERT_GE(e.ids[k], 2) << "no <bos> or <unk> inside";
        for (const int id : e.ids) ASSERT_LT(id, task.vocab);
        if (static_cast<int>(e.ids.size()) < task.window) ++induction;  // sentences fill the window exactly
    }
    EXPECT_GT(induction, 400 * 15 / 100);  // 25 % of them, give or take
    EXPECT_LT(induction, 400 * 35 / 100);
    // Sentence windows read as text again: the grammar's tokens, English and Chinese.
    const Example e = make_example(task, 5, 3, 0);
    std::string text;
    for (std::size_t k = 1; k < e.ids.size(); ++k) text += grammar_words()->tokens[static_cast<std::size_t>(e.ids[k])] + " ";
    EXPECT_NE(text.find(" ."), std::string::npos);
    EXPECT_NE(text.find("。"), std::string::npos);
}

TEST(GrammarTask, ATrainedModelReadsSentencesAndItsCheckpointItsTask) {
    const TaskSpec task = grammar_task(64, 25);
    const Tokens t = encode_task_text(task, "李雷告诉王芳他很高兴。 the dog is xyzzy .");
    ASSERT_EQ(t.text.size(), 17u);  // <bos>, 11 characters, 5 words
    EXPECT_EQ(t.text[1], "李");
    EXPECT_EQ(t.ids[1], grammar_words()->id_of("李"));
    EXPECT_EQ(t.ids[15], 1);  // xyzzy: <unk>
    EXPECT_EQ(tokens_text(task, t.text), "李雷告诉王芳他很高兴。the dog is xyzzy .");  // reads back as the same tokens
    // A checkpoint keeps the task: window, induction share, and the grammar's vocabulary.
    test::TempDir dir;
    ModelConfig c = training_config("random:d_model=16,heads=2,layers=1");
    size_for_task(c, task);
    EXPECT_EQ(c.vocab, task.vocab);
    TrainOptions o;
    o.batch = 2;
    o.adamw.total_steps = 2;
    Trainer trainer(c, training_init(c), grammar_task(60, 10), o);
    trainer.step();
    save_checkpoint(trainer, dir.file("g"));
    const Trainer back = load_checkpoint(dir.file("g"));
    EXPECT_EQ(back.task().kind, TaskKind::Grammar);
    EXPECT_EQ(back.task().window, 60);
    EXPECT_EQ(back.task().induction_percent, 10);
    EXPECT_EQ(open_source(dir.file("g"))->tokenize("the dog").ids, (std::vector<int>{0, grammar_words()->id_of("the"), grammar_words()->id_of("dog")}));
    std::string json = test::read_text(dir.file("g") + "/trainer.json");
    const std::string vocab = "\"vocab\": " + std::to_string(task.vocab);
    ASSERT_NE(json.find(vocab), std::string::npos);
    json.replace(json.find(vocab), vocab.size(), "\"vocab\": 7");
    test::write_text(dir.file("g") + "/trainer.json", json);
    EXPECT_NE(test::error_of([&] { (void)load_checkpoint(dir.file("g")); }).find("this HeadScope writes another grammar"),
              std::string::npos);
}

}  // namespace
}  // namespace hs::train
