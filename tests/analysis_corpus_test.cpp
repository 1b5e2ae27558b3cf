// Corpus aggregation, and the whole analysis on stories260K (../shared/models; a missing
// model FAILS, never skips) over the English sample sentences of assets/samples.json.
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/analysis/corpus.h"
#include "core/analysis/head_labels.h"
#include "core/analysis/trace_analysis.h"
#include "core/model/model.h"
#include "core/open_source.h"
#include "core/source.h"
#include "core/train/tasks.h"
#include "core/train/trained_source.h"
#include "tests/test_util.h"

namespace hs {
namespace {

const std::string kCorpusStories = std::string(HEADSCOPE_SHARED_DIR) + "/models/stories260K/stories260K.bin";
const std::string kSamples = std::string(HEADSCOPE_ASSETS_DIR) + "/samples.json";
const std::string kPlayground = "random:d_model=16,heads=2,layers=2,seed=5,arch=decoder,max_len=16";

std::unique_ptr<TraceSource> open_stories() {
    if (!std::filesystem::exists(kCorpusStories))
        throw Error("stories260K is missing: expected " + kCorpusStories + " (see ../shared/models/README.md)");
    return open_source(kCorpusStories);
}

std::vector<HeadMetrics> metrics_for(const TraceSource& s, const std::string& text) {
    SourceInput in;
    in.text = text;
    return compute_trace_metrics(s.run(in, TraceOptions{}));
}

TEST(Corpus, MeanAndStdMatchPerSentenceMetrics) {
    const auto source = open_source(kPlayground);
    const std::vector<std::string> sentences = {"a b c d", "the cat sat on the mat", "x y"};
    CorpusOptions opt;
    opt.induction = false;
    const CorpusResult r = analyze_corpus(*source, sentences, opt);
    EXPECT_EQ(r.analysed, 3);
    EXPECT_EQ(r.total, 3);
    EXPECT_FALSE(r.cancelled);
    ASSERT_EQ(r.heads.size(), 4u);
    std::vector<std::vector<HeadMetrics>> per;
    for (const auto& s : sentences) per.push_back(metrics_for(*source, s));
    for (std::size_t k = 0; k < 4; ++k) {
        for (Metric m : {Metric::Entropy, Metric::PrevToken, Metric::Distance}) {
            SCOPED_TRACE(testing::Message() << "head " << k << " " << metric_name(m));
            const double x0 = per[0][k][m], x1 = per[1][k][m], x2 = per[2][k][m];
            const double mean = (x0 + x1 + x2) / 3;
            const double var = ((x0 - mean) * (x0 - mean) + (x1 - mean) * (x1 - mean) +
                                (x2 - mean) * (x2 - mean)) / 2;
            EXPECT_NEAR(r.heads[k][m].mean, mean, 1e-9);
            EXPECT_NEAR(r.heads[k][m].std, std::sqrt(var), 1e-9);
            EXPECT_EQ(r.heads[k][m].count, 3);
        }
        // duplicate-token is defined only for "the cat sat on the mat" ("the" twice)
        EXPECT_EQ(r.heads[k][Metric::DuplicateToken].count, 1);
        EXPECT_EQ(r.heads[k][Metric::DuplicateToken].std, 0.0);
        EXPECT_TRUE(std::isnan(r.heads[k][Metric::Induction].mean));
    }
    EXPECT_EQ(r.mean_jsd.rows(), 4);
}

TEST(Corpus, CancelStopsAfterTheCurrentSentence) {
    const auto source = open_source(kPlayground);
    int calls_after_first = 0;
    const CorpusResult r = analyze_corpus(*source, {"a b", "c d", "e f"}, {}, [&](int done, int) {
        if (done >= 1) ++calls_after_first;
        return done < 1;
    });
    EXPECT_TRUE(r.cancelled);
    EXPECT_EQ(r.analysed, 1);
    EXPECT_EQ(calls_after_first, 1);
    EXPECT_EQ(r.heads.size(), 4u);
}

TEST(Corpus, SentencesTheModelRejectsAreSkippedWithTheReason) {
    const auto source = open_source(kPlayground);  // max_len 16
    const std::string too_long = "a b c d e f g h i j k l m n o p q r s t";
    CorpusOptions opt;
    opt.induction = false;
    const CorpusResult r = analyze_corpus(*source, {"a b c", too_long}, opt);
    EXPECT_EQ(r.analysed, 1);
    ASSERT_EQ(r.skipped.size(), 1u);
    test::expect_contains(r.skipped[0], {"sentence 2: "});
    test::expect_error([&] { analyze_corpus(*source, {too_long}, opt); },
                       {"no sentence of the corpus could be analysed", "sentence 1: "});
    test::expect_error([&] { analyze_corpus(*source, {}, opt); }, {"the corpus is empty"});
}

TEST(Corpus, SplitLinesDropsBlankLinesAndCarriageReturns) {
    EXPECT_EQ(split_lines("one\r\n\n  two  \n\n"), (std::vector<std::string>{"one", "two"}));
    EXPECT_TRUE(split_lines("").empty());
}

TEST(Corpus, SampleTextsFilterByLanguage) {
    const auto en = load_sample_texts(kSamples, "en");
    const auto all = load_sample_texts(kSamples);
    EXPECT_GE(en.size(), 10u);
    EXPECT_GT(all.size(), en.size());
    test::expect_error([] { load_sample_texts("/nonexistent/samples.json"); }, {"/nonexistent/samples.json"});
}

TEST(AnalysisStories260K, EverySampleSentenceIsAnalysed) {
    const auto source = open_stories();
    for (const std::string& text : load_sample_texts(kSamples, "en")) {
        SCOPED_TRACE(text);
        SourceInput in;
        in.text = text;
        const Trace t = source->run(in, TraceOptions{});
        AnalysisOptions opt;
        opt.induction = false;
        const TraceAnalysis a = analyze_trace(t, source.get(), opt);
        ASSERT_EQ(a.metrics.size(), 40u);  // 5 layers × 8 heads
        for (const HeadMetrics& m : a.metrics) {
            EXPECT_GE(m[Metric::NormEntropy], 0.0);
            EXPECT_LE(m[Metric::NormEntropy], 1.0 + 1e-6);
            EXPECT_GE(m[Metric::FirstToken], 1.0 / t.main.tokens.size() - 1e-6);  // row 0 sees only BOS
            EXPECT_NEAR(m[Metric::NextToken], 0.0, 1e-9);                          // causal
        }
        EXPECT_EQ(t.main.tokens.front(), "<s>");
    }
}

TEST(AnalysisStories260K, CorpusOfSamplesHasAPreviousTokenHead) {
    const auto source = open_stories();
    const CorpusResult r = analyze_corpus(*source, load_sample_texts(kSamples, "en"));
    EXPECT_EQ(r.analysed, r.total);
    ASSERT_EQ(r.heads.size(), 40u);
    std::vector<HeadMetrics> means;
    for (const HeadStats& h : r.heads) means.push_back(h.means());
    int previous_token_heads = 0;
    for (const HeadLabels& l : label_heads(means))
        for (const HeadLabel& x : l.all) previous_token_heads += x.role == Role::PreviousToken;
    EXPECT_GE(previous_token_heads, 1);
    for (const HeadStats& h : r.heads) EXPECT_FALSE(std::isnan(h[Metric::Induction].mean));
}

TEST(AnalysisStories260K, InductionInputStartsWithBosAndRepeatsOrdinaryTokens) {
    const auto source = open_stories();
    InductionOptions opt;
    opt.m = 16;
    const InductionInput in = make_induction_input(*source, opt);
    EXPECT_EQ(in.prefix, 1);
    ASSERT_EQ(in.ids.size(), 33u);
    EXPECT_EQ(in.ids[0], 1);
    EXPECT_EQ(in.tokens[0], "<s>");
    for (int k = 1; k <= 16; ++k) {
        EXPECT_EQ(in.ids[k], in.ids[k + 16]);
        EXPECT_GT(in.ids[k], 2);  // not <unk>, <s>, </s>
        EXPECT_NE(in.tokens[k].front(), '<');
    }
}

// A model trained on the induction task reads "<bos> #5 #9 …" (its training examples
// begin with <bos>): the induction probe leads with <bos> too and draws its block from the
// task's symbols #2 … #(vocab − 1), never <bos> (0) or <sep> (1). Left without <bos>, a
// trained model's induction heads scored ~0.15 lower than its training log said.
TEST(Induction, AModelTrainedOnATaskIsProbedWithItsBosAndItsSymbols) {
    const ModelConfig c = parse_playground_spec("random:arch=decoder,d_model=16,heads=2,layers=2,vocab=12,max_len=32");
    const auto source = train::make_trained_source(Model::random(c), train::parse_task("induction", c.vocab), "t");
    InductionOptions opt;
    opt.m = 8;
    const InductionInput in = make_induction_input(*source, opt);
    EXPECT_EQ(in.prefix, 1);
    ASSERT_EQ(in.ids.size(), 17u);
    EXPECT_EQ(in.ids[0], 0);
    EXPECT_EQ(in.tokens[0], "<bos>");
    for (int k = 1; k <= 8; ++k) {
        EXPECT_EQ(in.ids[k], in.ids[k + 8]);
        EXPECT_GE(in.ids[k], 2);
        EXPECT_LT(in.ids[k], 12);
        EXPECT_EQ(in.tokens[k], "#" + std::to_string(in.ids[k]));
    }
}

}  // namespace
}  // namespace hs
