// The committed default model (assets/models/default, scripts/train_default_model.sh):
// the heads docs/DEFAULT_MODEL.md names keep their relation accuracies and role labels
// (the tables are read from that file, so the document and this test cannot drift apart),
// and retraining with the script's settings repeats the committed log's first steps.
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/analysis/corpus.h"
#include "core/analysis/head_labels.h"
#include "core/analysis/relation_probe.h"
#include "core/continuation.h"
#include "core/corpus/grammar.h"
#include "core/error.h"
#include "core/generate.h"
#include "core/kernels/simd.h"
#include "core/open_source.h"
#include "core/source.h"
#include "core/train/checkpoint.h"
#include "core/train/trainer.h"
#include "tests/test_util.h"

namespace hs {
namespace {

std::string read_all(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// The cells of the markdown table rows of `doc` whose first cell is one of `keys`.
std::vector<std::vector<std::string>> table_rows(const std::string& doc, const std::vector<std::string>& keys) {
    std::vector<std::vector<std::string>> rows;
    std::istringstream lines(doc);
    for (std::string line; std::getline(lines, line);) {
        if (line.size() < 2 || line[0] != '|') continue;
        std::vector<std::string> cells;
        std::istringstream parts(line.substr(1));
        for (std::string cell; std::getline(parts, cell, '|');) {
            const auto b = cell.find_first_not_of(' '), e = cell.find_last_not_of(' ');
            cells.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
        }
        for (const std::string& k : keys)
            if (!cells.empty() && cells[0] == k) rows.push_back(cells);
    }
    return rows;
}

// "L2.H5" → layer·H + head.
int head_index(const std::string& name, int heads) {
    int layer = -1, head = -1;
    EXPECT_EQ(std::sscanf(name.c_str(), "L%d.H%d", &layer, &head), 2) << name;
    return layer * heads + head;
}

const std::string kDoc = std::string(HEADSCOPE_ASSETS_DIR) + "/../docs/DEFAULT_MODEL.md";

TEST(DefaultModel, OpensByNameAsTheGrammarModel) {
    const auto source = open_source("default");
    EXPECT_EQ(source->name(), "default");
    EXPECT_EQ(source->config().layers, 4);
    EXPECT_EQ(source->config().heads, 8);
    EXPECT_EQ(source->config().d_model, 128);
    // It reads the grammar's words: a sentence comes back as its tokens after BOS.
    EXPECT_EQ(source->tokenize("the dog is not good .").text,
              (std::vector<std::string>{"<bos>", "the", "dog", "is", "not", "good", "."}));
    std::error_code ec;
    EXPECT_LE(std::filesystem::file_size(default_model_dir() + "/model.safetensors", ec), 4u * 1024 * 1024);
}

// The default model is a decoder with a language-model head: "continue" and `generate`
// extend a sentence in the grammar's words. Independent: each step's most likely next
// token from the forward's own top-k, appended to the text and run again.
TEST(DefaultModel, ContinuesASentenceWithItsMostLikelyWords) {
    const auto source = open_source("default");
    ASSERT_TRUE(can_continue(*source));
    const std::string prompt = "the dog is";
    std::string text = prompt, expected;
    std::vector<int> ids = source->tokenize(prompt).ids;
    for (int i = 0; i < 3; ++i) {
        SourceInput in;
        in.text = text;
        const Trace trace = source->run(in, TraceOptions{});
        ASSERT_FALSE(trace.next_tokens.empty());
        ASSERT_GT(trace.next_tokens.front().id, 1) << "not BOS or <unk>: a three-word sentence goes on";
        const std::string word = trace.next_tokens.front().text;
        expected += " " + word;
        text += " " + word;
        ids.push_back(trace.next_tokens.front().id);
    }
    const Continuation c = continue_text(*source, prompt, 3);
    EXPECT_EQ(c.generated, 3);
    EXPECT_EQ(c.text, expected);
    // The continued text reads back as the same ids: <bos>, the prompt, the three words.
    EXPECT_EQ(source->tokenize(prompt + c.text).ids, ids);
}

// No text: the continuation starts from BOS, as generate does, and BOS is not part of
// what it adds.
TEST(DefaultModel, ContinuesAnEmptyTextFromBos) {
    const auto source = open_source("default");
    const Continuation c = continue_text(*source, "", 4);
    ASSERT_EQ(c.generated, 4);
    const std::vector<int> gen = generate(*source->model(), *source->continuation_tokenizer(), {}, 4);
    ASSERT_EQ(gen.size(), 4u);
    std::vector<std::string> words;
    for (int id : gen) words.push_back(source->continuation_tokenizer()->display(id));
    std::string want;
    for (const std::string& w : words) want += (want.empty() ? "" : " ") + w;
    EXPECT_EQ(c.text, want);  // English words: spaced (the model starts English sentences with "the")
    EXPECT_EQ(c.text.find("<bos>"), std::string::npos);
}

// Words the grammar never used read as <unk> (id 1): the source names each once, in
// order; a playground (hashed words, no unknown token) names none.
TEST(DefaultModel, NamesTheWordsOutsideItsVocabulary) {
    const auto source = open_source("default");
    SourceInput in;
    in.text = "the qwopp dog zzyzx is qwopp";
    const Trace trace = source->run(in, TraceOptions{});
    ASSERT_EQ(trace.main.ids.size(), 7u);
    EXPECT_EQ(trace.main.ids[2], 1);
    EXPECT_EQ(trace.main.ids[4], 1);
    EXPECT_EQ(unknown_words(*source, trace.main), (std::vector<std::string>{"qwopp", "zzyzx"}));
    // As the notes list them: bracketed, the first five, each at most 16 code points.
    EXPECT_EQ(bracketed_words({"qwopp", "“"}), "[qwopp] [“]");
    EXPECT_EQ(bracketed_words({"a", "b", "c", "d", "e", "f"}), "[a] [b] [c] [d] [e] …");
    EXPECT_EQ(bracketed_words({"abcdefghijklmnopq"}), "[abcdefghijklmno…]");
    in.text = "the dog is good .";
    EXPECT_TRUE(unknown_words(*source, source->run(in, TraceOptions{}).main).empty());
    const auto playground = open_source("random:d_model=16,heads=2,layers=1");
    in.text = "qwopp zzyzx";
    EXPECT_TRUE(unknown_words(*playground, playground->run(in, TraceOptions{}).main).empty());
}

// Playground models hash their words: their ids cannot be read back, so they do not
// continue, and say why.
TEST(DefaultModel, APlaygroundModelDoesNotContinueAndSaysWhy) {
    const auto source = open_source("random:d_model=16,heads=2,layers=1,arch=decoder,mask=causal,lm_head=tied");
    EXPECT_FALSE(can_continue(*source));
    try {
        continue_text(*source, "a b", 2);
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("(playground) cannot continue a text: its token ids do not read back"),
                  std::string::npos) << e.what();
    }
}

// | lang | relation | best head | accuracy | best baseline | margin | baseline |: on the
// held-out structure families (sentences the model never trained on in that shape), the
// best head of each documented relation is the one named, at the documented accuracy and
// best baseline accuracy (±0.03), and claimed (at least 0.2 above every baseline).
TEST(DefaultModel, TheDocumentedRelationHeadsKeepTheirAccuracies) {
    const auto rows = table_rows(read_all(kDoc), {"en", "zh"});
    ASSERT_GE(rows.size(), 5u) << "docs/DEFAULT_MODEL.md lists the relation heads of both languages";
    const auto source = open_source("default");
    std::vector<std::string> skipped;
    const std::vector<RelationRun> runs = probe_relations_by_language(*source, corpus::held_out_probe_corpus(), skipped);
    EXPECT_TRUE(skipped.empty()) << skipped.front();
    const int heads = source->config().heads;
    for (const auto& row : rows) {
        SCOPED_TRACE(row[0] + " " + row[1]);
        ASSERT_GE(row.size(), 6u);
        const RelationScore* found = nullptr;
        for (const RelationRun& run : runs)
            if (run.lang == row[0])
                for (const RelationScore& s : run.scores)
                    if (row[1] == corpus::relation_name(s.relation)) found = &s;
        ASSERT_NE(found, nullptr);
        EXPECT_EQ(found->best_head, head_index(row[2], heads));
        // 0.03: about one arc of 40 whose argmax a CPU of another SIMD level could flip
        EXPECT_NEAR(found->best_accuracy, std::stod(row[3]), 0.03);
        EXPECT_NEAR(found->best_baseline_accuracy(), std::stod(row[4]), 0.03);
        EXPECT_TRUE(found->claimed()) << "margin " << found->margin() << " over " << found->best_baseline_text();
    }
    // And the table is every claim the probe makes: a relation claimed but not documented
    // (or documented but no longer claimed) fails.
    std::size_t claimed = 0;
    for (const RelationRun& run : runs)
        for (const RelationScore& s : run.scores) claimed += s.claimed();
    EXPECT_EQ(claimed, rows.size());
}

// | head | label | metric | value |: over the probe corpus's sentences (corpus mode), each
// documented head carries its label, with the documented metric value (±0.03).
TEST(DefaultModel, TheDocumentedRoleHeadsKeepTheirLabels) {
    const std::string doc = read_all(kDoc);
    std::vector<std::string> keys;
    for (int l = 0; l < 4; ++l)
        for (int h = 0; h < 8; ++h) keys.push_back("L" + std::to_string(l) + ".H" + std::to_string(h));
    const auto rows = table_rows(doc, keys);
    ASSERT_GE(rows.size(), 3u) << "docs/DEFAULT_MODEL.md lists the role-labelled heads";
    const auto source = open_source("default");
    std::vector<std::string> texts;
    for (const corpus::AnnotatedSentence& s : corpus::probe_corpus()) texts.push_back(corpus::text_of(s));
    texts.resize(200);
    const CorpusResult result = analyze_corpus(*source, texts);
    std::vector<HeadMetrics> means;
    for (const HeadStats& h : result.heads) means.push_back(h.means());
    const std::vector<HeadLabels> labels = label_heads(means);
    for (const auto& row : rows) {
        SCOPED_TRACE(row[0] + " " + row[1]);
        ASSERT_GE(row.size(), 4u);
        const int k = head_index(row[0], source->config().heads);
        bool has = false;
        for (const HeadLabel& l : labels[static_cast<std::size_t>(k)].all) has |= row[1] == role_name(l.role);
        EXPECT_TRUE(has) << label_list(labels[static_cast<std::size_t>(k)]);
        bool metric_found = false;
        for (int m = 0; m < kMetricCount; ++m)
            if (row[2] == metric_name(static_cast<Metric>(m))) {
                metric_found = true;
                EXPECT_NEAR(means[static_cast<std::size_t>(k)][static_cast<Metric>(m)], std::stod(row[3]), 0.03);
            }
        EXPECT_TRUE(metric_found) << row[2];
    }
}

// The script's run, restarted from its initial weights with the committed trainer.json,
// takes the log's first steps again: the same loss at every step, on a CPU of the SIMD
// level it was trained at, to 2.5e-6 with the log's build (g++ 12, Eigen 3.4, optimised)
// and to 1e-5 with another, to 1e-4 on another level (the kernels sum in another order).
// Not to the log's six decimals: since the forward's linear layers run the packed kernel
// for weights the cache does not hold (a trainer's, which change every step), the log's
// own build repeats it to 1.9e-6 at avx512 (2026-11-30). Another compiler or Eigen orders
// the same level's sums otherwise (g++ 14 with Eigen 3.4 on Debian 13: 1.9e-6; g++ 16 with
// Eigen 5: ~5e-6), and so do the sanitizer builds (-O1: 5.3e-6).
#ifdef NDEBUG
constexpr bool kOptimizedBuild = true;
#else
constexpr bool kOptimizedBuild = false;
#endif
TEST(DefaultModel, RetrainingRepeatsTheFirstStepsOfItsLog) {
    const std::string dir = default_model_dir();
    const train::TrainerState state = train::parse_trainer_state(read_all(dir + "/trainer.json"), "trainer.json");
    const ModelConfig config = open_source("default")->config();
    train::Trainer trainer(config, train::training_init(config), state.task, state.options);
    std::map<int, double> logged;
    std::istringstream log(read_all(dir + "/training_log.csv"));
    std::string line;
    std::getline(log, line);
    ASSERT_EQ(line, "step,loss,grad_norm,lr,tokens,held_out_loss");
    while (std::getline(log, line)) logged[std::stoi(line)] = std::stod(line.substr(line.find(',') + 1));
    const nlohmann::json trained_on = nlohmann::json::parse(read_all(dir + "/trained_on.json"));
    const bool same_level = trained_on.at("simd") == kernels::simd_name(kernels::simd_level());
    // The log's build: g++ 12 and Eigen 3.4 (Eigen 5 says 3.5 here).
#if defined(__GNUC__) && !defined(__clang__)
    const bool same_compiler = __GNUC__ == 12;
#else
    const bool same_compiler = false;
#endif
    const bool same_build = same_compiler && EIGEN_WORLD_VERSION == 3 && EIGEN_MAJOR_VERSION == 4 && kOptimizedBuild;
    for (int s = 1; s <= 12; ++s) {
        const train::StepReport r = trainer.step();
        ASSERT_EQ(logged.count(s), 1u);
        EXPECT_NEAR(r.loss, logged[s], !same_level ? 1e-4 : same_build ? 2.5e-6 : 1e-5) << "step " << s;
    }
}

}  // namespace
}  // namespace hs
