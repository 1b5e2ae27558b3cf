// Relation probes on a subword model (stories260K, whose tokenizer spells "girl" as " g" "ir"
// "l"): the probe reads word-word maps (Clark et al. 2019). Checked against the trace's own
// token maps summed by hand over the piece indices the tokenizer gives (headscope tokenize
// --pieces), not through core's word_map.
#include <gtest/gtest.h>

#include "core/analysis/relation_probe.h"
#include "core/open_source.h"

namespace hs {
namespace {

TEST(RelationWordMaps, ASubwordModelIsProbedOnWordWordMaps) {
    const auto source = open_source(std::string(HEADSCOPE_SHARED_DIR) + "/models/stories260K/stories260K.bin");
    corpus::AnnotatedSentence s;
    s.lang = "en";
    s.tokens = {"the", "little", "girl", "liked", "her", "red", "ball", "."};
    s.arcs = {{corpus::Relation::Coreference, 4, 2, 3}};  // her → girl
    // <s> " the" " little" " g" "ir" "l" " li" "ked" " her" " r" "ed" " b" "all" " " "."
    const std::vector<std::vector<int>> pieces = {{1}, {2}, {3, 4, 5}, {6, 7}};  // of the words before "her"
    const int her = 8;
    const RelationRun run = probe_relations(*source, {s});
    EXPECT_EQ(run.analysed, 1);
    EXPECT_EQ(run.merged, 1);
    ASSERT_EQ(run.scores.size(), 1u);
    SourceInput input;
    input.text = corpus::text_of(s);
    const Trace trace = source->run(input, TraceOptions{});
    ASSERT_EQ(trace.main.tokens.size(), 15u);
    int k = 0;
    for (const LayerTrace& layer : trace.main.layers)
        for (const Matrix& a : layer.self_attn.weights) {
            // The head's choice for "her": the word before it with the most attention, summed
            // over the word's pieces (her is one piece: the mean over its pieces is its row).
            int best = 0;
            double best_sum = -1.0;
            for (int w = 0; w < 4; ++w) {
                double sum = 0.0;
                for (int p : pieces[static_cast<std::size_t>(w)]) sum += a(her, p);
                if (sum > best_sum) best_sum = sum, best = w;
            }
            const double want = best == 2 ? 1.0 : 0.0;
            EXPECT_EQ(run.scores[0].head_accuracy[static_cast<std::size_t>(k)], want) << "head " << k;
            ++k;
        }
    EXPECT_EQ(k, 5 * 8);
}

}  // namespace
}  // namespace hs
