// `headscope analyze` end to end: CSV and JSON files, corpus mode, usage errors.
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/analysis/relation_probe.h"
#include "core/corpus/annotated_json.h"
#include "core/open_source.h"
#include "tests/cli_runner.h"

namespace hs::cli_test {
namespace {

const std::string kCliStories = std::string(HEADSCOPE_SHARED_DIR) + "/models/stories260K/stories260K.bin";
const std::string kAnalysisSpec = "random:d_model=16,heads=2,layers=3,seed=4,arch=decoder";

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream ss(text);
    for (std::string line; std::getline(ss, line);) out.push_back(line);
    return out;
}

TEST(CliAnalyze, WritesOneCsvRowPerHeadWithEveryMetricAndLabel) {
    TempDir dir;
    const RunResult r = run_headscope({"analyze", kAnalysisSpec, "--text", "the cat sat on the mat", "--csv",
                                       "m.csv", "--json", "a.json"}, dir);
    ASSERT_TRUE(r.exited);
    ASSERT_EQ(r.status, 0) << r.err;
    const auto rows = lines_of(read_text(dir.file("m.csv")));
    ASSERT_EQ(rows.size(), 7u);  // header + 3 layers × 2 heads
    EXPECT_EQ(rows[0],
              "layer,head,label,labels,entropy,norm_entropy,effective_tokens,distance,distance_no_first,confidence,"
              "prev_token,prev_peak,prev_peak_uniform,next_token,self,first_token,cls,sep,punct,duplicate_token,"
              "induction");
    EXPECT_EQ(rows[1].substr(0, 4), "0,0,");
    EXPECT_EQ(rows[6].substr(0, 4), "2,1,");
    const auto j = nlohmann::json::parse(read_text(dir.file("a.json")));
    EXPECT_EQ(j["heads_table"].size(), 6u);
    EXPECT_EQ(j["jsd"].size(), 6u);
    EXPECT_EQ(j["mds"].size(), 6u);
    EXPECT_EQ(j["rollout"]["bars_from"], "last_row");
    EXPECT_EQ(j["tokens"].size(), 6u);
    EXPECT_TRUE(j["heads_table"][0]["metrics"]["induction"].is_number());
    EXPECT_NE(r.out.find("most redundant pairs"), std::string::npos);
}

TEST(CliAnalyze, CorpusModeAddsStdColumnsAndCountsSentences) {
    TempDir dir;
    test::write_text(dir.file("corpus.txt"), "a b c\n\nthe dog ran\nx y z w\n");
    const RunResult r = run_headscope({"analyze", kAnalysisSpec, "--corpus", "--text-file", "corpus.txt",
                                       "--csv", "c.csv", "--json", "c.json", "--no-induction"}, dir);
    ASSERT_EQ(r.status, 0) << r.err;
    const auto rows = lines_of(read_text(dir.file("c.csv")));
    ASSERT_EQ(rows.size(), 7u);
    EXPECT_NE(rows[0].find(",entropy_std,"), std::string::npos);
    EXPECT_EQ(rows[1].substr(rows[1].rfind(',') + 1), "3");  // three non-empty lines
    const auto j = nlohmann::json::parse(read_text(dir.file("c.json")));
    EXPECT_EQ(j["sentences"]["analysed"], 3);
    EXPECT_TRUE(j["heads_table"][0]["metrics"]["induction"]["mean"].is_null());
}

TEST(CliAnalyze, Stories260KLabelsAPreviousTokenHead) {
    TempDir dir;
    const RunResult r = run_headscope({"analyze", kCliStories, "--corpus", "--csv", "s.csv"}, dir);
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string csv = read_text(dir.file("s.csv"));
    EXPECT_EQ(lines_of(csv).size(), 41u);
    EXPECT_NE(csv.find("previous-token"), std::string::npos);
}

TEST(CliAnalyze, MissingTextIsAUsageError) {
    TempDir dir;
    const RunResult r = run_headscope({"analyze", kAnalysisSpec, "--csv", "m.csv"}, dir);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("headscope analyze: give the input with --text"), std::string::npos) << r.err;
}

TEST(CliAnalyze, WorkedExampleAnalysesWithoutInduction) {
    TempDir dir;
    const RunResult r = run_headscope(
        {"analyze", std::string(HEADSCOPE_ASSETS_DIR) + "/examples/causal_two_heads.json", "--csv", "-"}, dir);
    ASSERT_EQ(r.status, 0) << r.err;
    const auto rows = lines_of(r.out);
    ASSERT_GE(rows.size(), 2u);
    EXPECT_EQ(rows[1].back(), ',');  // induction column empty: a worked example has no token ids
}

// headscope corpus --json writes the grammar's sentences; analyze --relations probes a
// model's heads on them. stories260K's tokenizer spells the grammar's words in pieces: every
// sentence is probed on word-word maps, and the table says so.
TEST(CliAnalyze, RelationsOnASubwordModelAreProbedOnWordWordMaps) {
    TempDir dir;
    RunResult r = run_headscope({"corpus", "--count", "10", "--seed", "3", "--json", dir.file("rel.json")}, dir);
    ASSERT_EQ(r.status, 0) << r.err;
    r = run_headscope({"analyze", kCliStories, "--relations", dir.file("rel.json")}, dir);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("read in pieces: probed on word-word maps"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("language en: 5 sentences"), std::string::npos) << r.out;
}

TEST(CliAnalyze, RelationsProbeTheHeadsOnACorpusFile) {
    TempDir dir;
    const std::string spec = "random:d_model=32,heads=2,layers=2,vocab=3000,max_len=64,seed=4";
    RunResult r = run_headscope({"corpus", "--count", "60", "--seed", "3", "--json", dir.file("rel.json")}, dir);
    ASSERT_EQ(r.status, 0) << r.err;
    r = run_headscope({"analyze", spec, "--relations", dir.file("rel.json"), "--csv", "-"}, dir);
    ASSERT_EQ(r.status, 0) << r.err;
    const auto sentences = corpus::parse_relations_json(read_text(dir.file("rel.json")), "rel.json");
    ASSERT_EQ(sentences.size(), 60u);
    std::vector<std::string> skipped;
    const std::vector<RelationRun> want = probe_relations_by_language(*open_source(spec), sentences, skipped);
    ASSERT_EQ(want.size(), 2u);  // English, then Chinese: each probed on its own sentences
    EXPECT_EQ(want[0].lang, "en");
    EXPECT_EQ(want[1].lang, "zh");
    EXPECT_EQ(want[0].analysed + want[1].analysed, 60);
    EXPECT_TRUE(skipped.empty());
    const RelationRun english = probe_relations(*open_source(spec), [&] {
        std::vector<corpus::AnnotatedSentence> en;
        for (const auto& s : sentences)
            if (s.lang == "en") en.push_back(s);
        return en;
    }());
    EXPECT_EQ(english.scores.size(), want[0].scores.size());
    for (std::size_t i = 0; i < english.scores.size(); ++i)
        EXPECT_EQ(english.scores[i].head_accuracy, want[0].scores[i].head_accuracy);
    EXPECT_EQ(r.out, relations_csv(want));
    EXPECT_EQ(lines_of(r.out).size(), 1 + (want[0].scores.size() + want[1].scores.size()) * 4);  // a row per relation and head
    r = run_headscope({"analyze", spec, "--relations", dir.file("rel.json")}, dir);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("relation      arcs  best   accuracy  offset           position         candidate  best baseline"),
              std::string::npos) << r.out;
    // Each relation's row: core's best head, its three baselines, the strongest, the
    // margin over it and the claim.
    for (const RelationScore& s : want[0].scores) {
        char row[256], candidate[16] = "-";
        if (s.has_candidate_baseline) std::snprintf(candidate, sizeof candidate, "%.3f", s.candidate_accuracy);
        std::snprintf(row, sizeof row, "%-12s %5d  L%d.H%d  %8.3f  %.3f (-%d)", corpus::relation_name(s.relation), s.arcs,
                      s.best_head / want[0].heads, s.best_head % want[0].heads, s.best_accuracy, s.offset_accuracy,
                      s.offset_baseline);
        const std::size_t at = r.out.find(row);
        ASSERT_NE(at, std::string::npos) << row << "\n" << r.out;
        const std::string line = r.out.substr(at, r.out.find('\n', at) - at);
        char position[32], margin[16];
        std::snprintf(position, sizeof position, "%.3f (@%d)", s.position_accuracy, s.position_baseline);
        std::snprintf(margin, sizeof margin, "%+.3f", s.margin());
        for (const std::string& part : {std::string(position), std::string(candidate), s.best_baseline_text(), std::string(margin),
                                        std::string(s.claimed() ? "claimed" : "-")})
            EXPECT_NE(line.find(part), std::string::npos) << part << " in " << line;
    }
    EXPECT_NE(r.out.find("language en: "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("language zh: "), std::string::npos) << r.out;
    // A file that is not one, and options that do not go with it.
    test::write_text(dir.file("bad.json"), "{\"format\": \"x\"}");
    r = run_headscope({"analyze", spec, "--relations", dir.file("bad.json")}, dir);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("is not a relations file"), std::string::npos) << r.err;
    r = run_headscope({"analyze", spec, "--relations", dir.file("rel.json"), "--text", "a b"}, dir);
    EXPECT_EQ(r.status, 2);
}

}  // namespace
}  // namespace hs::cli_test
