// Worked examples: parsing (textbook convention -> PyTorch fused layout), every
// intermediate of the run against NumPy (tests/gen_worked_example_reference.py), a few
// values by hand, and the error messages a learner sees.
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/worked_example.h"
#include "tests/test_util.h"

namespace {

using hs::test::error_of;

using json = nlohmann::json;

const char* const kExamples[] = {"article_single_head", "article_two_heads", "causal_two_heads"};

std::string example_path(const std::string& stem) {
    return std::string(HEADSCOPE_ASSETS_DIR) + "/examples/" + stem + ".json";
}

const json& reference() {
    static const json doc = [] {
        std::ifstream in(std::string(HEADSCOPE_FIXTURES_DIR) + "/worked_examples_expected.json");
        EXPECT_TRUE(in) << "missing fixture; run /usr/bin/python3 tests/gen_worked_example_reference.py";
        return json::parse(in);
    }();
    return doc;
}

// |got − want| ≤ 1e-6 · max(1, |want|): absolute for small values, relative for large.
// null in the reference means −∞ (a masked score).
void expect_matrix_near(const hs::Matrix& got, const json& want, const std::string& what) {
    SCOPED_TRACE(what);
    ASSERT_EQ(got.rows(), static_cast<Eigen::Index>(want.size()));
    for (Eigen::Index r = 0; r < got.rows(); ++r) {
        const json& row = want[static_cast<size_t>(r)];
        ASSERT_EQ(got.cols(), static_cast<Eigen::Index>(row.size()));
        for (Eigen::Index c = 0; c < got.cols(); ++c) {
            const json& w = row[static_cast<size_t>(c)];
            if (w.is_null()) {
                EXPECT_EQ(got(r, c), -std::numeric_limits<float>::infinity()) << "at " << r << "," << c;
                continue;
            }
            const double e = w.get<double>();
            EXPECT_NEAR(got(r, c), e, 1e-6 * std::max(1.0, std::abs(e))) << "at " << r << "," << c;
        }
    }
}

void expect_heads_near(const std::vector<hs::Matrix>& got, const json& want, const std::string& what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    for (size_t h = 0; h < got.size(); ++h) expect_matrix_near(got[h], want[h], what + " head " + std::to_string(h + 1));
}

hs::Matrix mat(std::initializer_list<std::initializer_list<float>> rows) {
    hs::Matrix m(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(rows.begin()->size()));
    Eigen::Index r = 0;
    for (const auto& row : rows) {
        Eigen::Index c = 0;
        for (float v : row) m(r, c++) = v;
        ++r;
    }
    return m;
}

std::string parse_error(const std::string& text) {
    return hs::test::error_of([&] { hs::parse_worked_example(text, "t.json"); });
}

// A valid two-head example (d_model 4, d_k 2) to break one field at a time.
json valid_two_heads() {
    return json::parse(R"({
      "X": [[1,2,3,4],[4,3,2,1]], "heads": 2,
      "W_Q": [[[1,0],[0,1],[0,0],[0,0]], [[0,0],[0,0],[1,0],[0,1]]],
      "W_K": [[[1,0],[0,1],[0,0],[0,0]], [[0,0],[0,0],[1,0],[0,1]]],
      "W_V": [[[1,0],[0,1],[0,0],[0,0]], [[0,0],[0,0],[1,0],[0,1]]]
    })");
}

TEST(WorkedExample, EveryIntermediateMatchesNumpyReference) {
    for (const char* stem : kExamples) {
        SCOPED_TRACE(stem);
        const json& ref = reference().at("examples").at(stem);
        const hs::WorkedExample ex = hs::load_worked_example(example_path(stem));
        const hs::Trace trace = ex.run();
        ASSERT_TRUE(trace.steps);
        const hs::AttentionSteps& s = *trace.steps;
        EXPECT_EQ(static_cast<int>(s.q_heads.size()), ref.at("heads").get<int>());
        EXPECT_NEAR(s.scale, ref.at("scale").get<double>(), 1e-7);
        expect_matrix_near(s.q, ref.at("q"), "Q");
        expect_matrix_near(s.k, ref.at("k"), "K");
        expect_matrix_near(s.v, ref.at("v"), "V");
        expect_heads_near(s.q_heads, ref.at("q_heads"), "Q_h");
        expect_heads_near(s.k_heads, ref.at("k_heads"), "K_h");
        expect_heads_near(s.v_heads, ref.at("v_heads"), "V_h");
        expect_heads_near(s.raw_scores, ref.at("raw_scores"), "Q_h K_hᵀ");
        expect_heads_near(s.scaled_scores, ref.at("scaled_scores"), "Q_h K_hᵀ/√d_k");
        expect_heads_near(s.masked_scores, ref.at("masked_scores"), "masked scores");
        expect_heads_near(s.weights, ref.at("weights"), "softmax weights");
        expect_heads_near(s.head_outputs, ref.at("head_outputs"), "head outputs");
        expect_matrix_near(s.concat, ref.at("concat"), "concat");
        expect_matrix_near(s.output, ref.at("output"), "output");
        // The overview maps and the layer output are the same numbers as the steps.
        expect_heads_near(trace.main.layers.at(0).self_attn.weights, ref.at("weights"), "trace weights");
        expect_matrix_near(trace.main.layers.at(0).output, ref.at("output"), "trace output");
    }
}

TEST(WorkedExample, ArticleSingleHeadValuesByHand) {
    const hs::Trace trace = hs::load_worked_example(example_path("article_single_head")).run();
    const hs::AttentionSteps& s = *trace.steps;
    // Q = X·W_Q = [[1,2],[4,3]], K = X·W_K = [[2,1],[3,4]]; Q·Kᵀ = [[4,11],[11,24]].
    EXPECT_EQ(s.q, mat({{1, 2}, {4, 3}}));
    EXPECT_EQ(s.k, mat({{2, 1}, {3, 4}}));
    EXPECT_EQ(s.raw_scores.at(0), mat({{4, 11}, {11, 24}}));
    const double r2 = std::sqrt(2.0);
    EXPECT_NEAR(s.scaled_scores[0](1, 1), 24 / r2, 1e-5);  // 16.971
    // softmax row 1 = [1/(1+e^{(11−4)/√2}), 1/(1+e^{−(11−4)/√2})] = [0.0070354, 0.9929646].
    const double w01 = 1.0 / (1.0 + std::exp(-(11.0 - 4.0) / r2));
    EXPECT_NEAR(s.weights[0](0, 1), w01, 1e-6);
    EXPECT_NEAR(s.weights[0](0, 0), 1.0 - w01, 1e-6);
    EXPECT_NEAR(s.weights[0](0, 0), 0.0070354, 1e-6);
    // The article prints 0.016 here; that is wrong by more than a factor of two.
    EXPECT_GT(std::abs(s.weights[0](0, 0) - 0.016), 0.008);
    // Row 2: scores differ by (24−11)/√2.
    EXPECT_NEAR(s.weights[0](1, 1), 1.0 / (1.0 + std::exp(-(24.0 - 11.0) / r2)), 1e-6);
    // Output row 1 = w00·[1,2] + w01·[4,3] = [3.979, 2.993] (the article prints [3.952, 2.984]).
    EXPECT_NEAR(s.output(0, 0), (1 - w01) * 1 + w01 * 4, 1e-5);
    EXPECT_NEAR(s.output(0, 1), (1 - w01) * 2 + w01 * 3, 1e-5);
    // No W_O: the output is the single head itself.
    EXPECT_EQ(s.output, s.head_outputs.at(0));
}

TEST(WorkedExample, ArticleTwoHeadsValuesByHand) {
    const hs::Trace trace = hs::load_worked_example(example_path("article_two_heads")).run();
    const hs::AttentionSteps& s = *trace.steps;
    ASSERT_EQ(s.q_heads.size(), 2u);
    for (int h = 0; h < 2; ++h) {
        SCOPED_TRACE(h);
        // X·W_Q = [[1+3, 2+4], [4+2, 3+1]] = [[4,6],[6,4]] (the article prints [[1,2],[4,3]]).
        EXPECT_EQ(s.q_heads[h], mat({{4, 6}, {6, 4}}));
        EXPECT_EQ(s.k_heads[h], mat({{4, 6}, {6, 4}}));
        // [[16+36, 24+24], [24+24, 36+16]]
        EXPECT_EQ(s.raw_scores[h], mat({{52, 48}, {48, 52}}));
        const double w = 1.0 / (1.0 + std::exp(-(52.0 - 48.0) / std::sqrt(2.0)));  // 0.94419
        EXPECT_NEAR(s.weights[h](0, 0), w, 1e-6);
        EXPECT_NEAR(s.weights[h](1, 1), w, 1e-6);
        EXPECT_NEAR(s.head_outputs[h](0, 0), w * 4 + (1 - w) * 6, 1e-5);
    }
    // W_O = identity: the output is the two heads side by side.
    EXPECT_TRUE(s.output.isApprox(s.concat, 1e-6f));
    EXPECT_EQ(s.output.cols(), 4);
}

TEST(WorkedExample, CausalMaskGivesZeroWeightToLaterTokens) {
    const hs::Trace trace = hs::load_worked_example(example_path("causal_two_heads")).run();
    EXPECT_EQ(trace.config.mask, hs::MaskKind::Causal);
    for (const hs::Matrix& a : trace.steps->weights)
        for (int i = 0; i < 3; ++i) {
            for (int j = i + 1; j < 3; ++j) EXPECT_EQ(a(i, j), 0.0f);
            EXPECT_NEAR(a.row(i).sum(), 1.0f, 1e-6f);
        }
    EXPECT_EQ(trace.steps->weights[0](0, 0), 1.0f);  // the first token sees only itself
}

TEST(WorkedExample, ConvertsTextbookMatricesToFusedPytorchLayout) {
    // W_Q per head (D=3, Dh=1): head 1 = [1,2,3]ᵀ, head 2 = [4,5,6]ᵀ -> W_Q (3, 2).
    const hs::WorkedExample ex = hs::parse_worked_example(R"({
      "X": [[1,0,0]], "heads": 2,
      "W_Q": [[[1],[2],[3]], [[4],[5],[6]]],
      "W_K": [[7,10],[8,11],[9,12]],
      "W_V": [[[0],[0],[1]], [[1],[0],[0]]],
      "W_O": [[1,2,3],[4,5,6]]
    })", "inline");
    const hs::AttentionWeights& w = ex.weights;
    EXPECT_EQ(w.heads, 2);
    // in_proj_weight (3I, D) = [W_Qᵀ; W_Kᵀ; W_Vᵀ]
    EXPECT_EQ(w.in_proj_weight, mat({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}, {10, 11, 12}, {0, 0, 1}, {1, 0, 0}}));
    EXPECT_EQ(w.in_proj_bias, hs::Vector::Zero(6));
    // out_proj_weight (D_out, I) = W_Oᵀ
    EXPECT_EQ(w.out_proj_weight, mat({{1, 4}, {2, 5}, {3, 6}}));
    EXPECT_EQ(w.out_proj_bias, hs::Vector::Zero(3));
    EXPECT_EQ(ex.tokens, (std::vector<std::string>{"x1"}));
    EXPECT_FALSE(ex.causal);
}

TEST(WorkedExample, FullMatrixAndPerHeadFormsAreTheSameBlock) {
    json per_head = valid_two_heads();
    json full = per_head;
    for (const char* k : {"W_Q", "W_K", "W_V"})
        full[k] = json::parse("[[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]]");
    const hs::WorkedExample a = hs::parse_worked_example(per_head.dump(), "a");
    const hs::WorkedExample b = hs::parse_worked_example(full.dump(), "b");
    EXPECT_EQ(a.weights.in_proj_weight, b.weights.in_proj_weight);
    // heads inferred from the per-head list when "heads" is absent.
    per_head.erase("heads");
    EXPECT_EQ(hs::parse_worked_example(per_head.dump(), "c").weights.heads, 2);
}

TEST(WorkedExample, WithoutWoTheOutputIsTheConcatenation) {
    const hs::WorkedExample ex = hs::parse_worked_example(valid_two_heads().dump(), "t");
    EXPECT_EQ(ex.weights.out_proj_weight, hs::Matrix::Identity(4, 4));
    const hs::Trace trace = ex.run();
    EXPECT_EQ(trace.steps->output, trace.steps->concat);
}

TEST(WorkedExample, TraceConfigNamesTheExamplesHeadSize) {
    // article_single_head: d_model 4, one head of d_k 2 (W_Q is 4 × 2), not 4 / 1.
    const hs::Trace trace = hs::load_worked_example(example_path("article_single_head")).run();
    EXPECT_EQ(trace.config.d_model, 4);
    EXPECT_EQ(trace.config.heads, 1);
    EXPECT_EQ(trace.config.d_h(), 2);
}

TEST(WorkedExample, StepsSayWhichBiasesAndProjectionTheFormulasNeed) {
    // No biases in any example; article_single_head has no W_O (identity), causal_two_heads
    // mixes its heads with one.
    const hs::Trace single = hs::load_worked_example(example_path("article_single_head")).run();
    ASSERT_TRUE(single.steps);
    EXPECT_FALSE(single.steps->q_bias || single.steps->k_bias || single.steps->v_bias);
    EXPECT_FALSE(single.steps->out_bias);
    EXPECT_TRUE(single.steps->out_identity);
    const hs::Trace causal = hs::load_worked_example(example_path("causal_two_heads")).run();
    ASSERT_TRUE(causal.steps);
    EXPECT_FALSE(causal.steps->out_identity);
}

TEST(WorkedExample, TraceHasOneLayerWithTokensInputAndSteps) {
    const hs::WorkedExample ex = hs::load_worked_example(example_path("causal_two_heads"));
    const hs::Trace trace = ex.run();
    EXPECT_EQ(trace.model_name, "Causal two-head attention, 3 tokens");
    EXPECT_EQ(trace.config.d_model, 4);
    EXPECT_EQ(trace.config.heads, 2);
    EXPECT_EQ(trace.config.layers, 1);
    EXPECT_EQ(trace.config.pe, hs::PosEncoding::None);
    EXPECT_EQ(trace.n_layers(), 1);
    EXPECT_EQ(trace.main.tokens, (std::vector<std::string>{"the", "cat", "sat"}));
    EXPECT_EQ(trace.main.ids, (std::vector<int>{1, 2, 3}));
    EXPECT_EQ(trace.main.input, ex.x);
    EXPECT_EQ(trace.main.layers[0].self_attn.weights.size(), 2u);
    EXPECT_EQ(trace.main.layers[0].self_attn.scores.size(), 2u);
    EXPECT_EQ(trace.main.final_output, trace.main.layers[0].output);
    EXPECT_EQ(trace.steps_layer, 0);
    EXPECT_FALSE(trace.steps_cross);
    EXPECT_EQ(trace.steps->x_query, ex.x);
    EXPECT_EQ(trace.steps->w_in, ex.weights.in_proj_weight);
}

TEST(WorkedExample, JsonRoundTripKeepsEverything) {
    for (const char* stem : kExamples) {
        SCOPED_TRACE(stem);
        const hs::WorkedExample a = hs::load_worked_example(example_path(stem));
        const hs::WorkedExample b = hs::parse_worked_example(hs::worked_example_to_json(a), "roundtrip");
        EXPECT_EQ(a.title, b.title);
        EXPECT_EQ(a.description, b.description);
        EXPECT_EQ(a.title_zh, b.title_zh);
        EXPECT_EQ(a.description_zh, b.description_zh);
        EXPECT_EQ(a.source_zh, b.source_zh);
        EXPECT_EQ(a.tokens, b.tokens);
        EXPECT_EQ(a.x, b.x);
        EXPECT_EQ(a.weights.heads, b.weights.heads);
        EXPECT_EQ(a.weights.in_proj_weight, b.weights.in_proj_weight);
        EXPECT_EQ(a.weights.out_proj_weight, b.weights.out_proj_weight);
        EXPECT_EQ(a.causal, b.causal);
        ASSERT_EQ(a.article.size(), b.article.size());
        for (std::size_t i = 0; i < a.article.size(); ++i) {
            EXPECT_EQ(a.article[i].step, b.article[i].step);
            EXPECT_EQ(a.article[i].head, b.article[i].head);
            EXPECT_EQ(a.article[i].printed, b.article[i].printed);
        }
    }
    // Written numbers are the shortest form that reads back exactly: 0.1, not 0.100000001.
    const hs::WorkedExample c = hs::parse_worked_example(R"({"X": [[0.1]], "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]]})", "c");
    EXPECT_NE(hs::worked_example_to_json(c).find("0.1\n"), std::string::npos);
}

// The numbers a text quotes, in order (digits and decimal points; signs are not compared).
std::vector<std::string> numbers_in(const std::string& text) {
    std::vector<std::string> out;
    std::string current;
    for (std::size_t i = 0; i <= text.size(); ++i) {
        const char c = i < text.size() ? text[i] : ' ';
        if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && !current.empty() && i + 1 < text.size() &&
                                                            std::isdigit(static_cast<unsigned char>(text[i + 1])))) {
            current += c;
        } else if (!current.empty()) {
            out.push_back(current);
            current.clear();
        }
    }
    return out;
}

// Each example reads in Chinese too, and the Chinese description quotes exactly the
// numbers of the English one, in the same order (a translation that drops or changes
// a number fails).
TEST(WorkedExample, ChineseNotesQuoteTheSameNumbersAsTheEnglish) {
    for (const char* stem : kExamples) {
        SCOPED_TRACE(stem);
        const hs::WorkedExample e = hs::load_worked_example(example_path(stem));
        EXPECT_FALSE(e.title_zh.empty());
        EXPECT_FALSE(e.source_zh.empty());
        ASSERT_FALSE(e.description_zh.empty());
        EXPECT_EQ(numbers_in(e.description_zh), numbers_in(e.description));
        EXPECT_EQ(numbers_in(e.title_zh), numbers_in(e.title));
    }
}

TEST(WorkedExample, ErrorsNameTheFieldAndTheShapes) {
    struct Case {
        std::string field;   // JSON pointer of the field to replace ("" = remove X)
        std::string value;   // replacement JSON
        std::string message; // full hs::Error text
    };
    const std::vector<Case> cases = {
        {"/W_Q/1", "[[1,0],[0,1],[0,0]]", "t.json: W_Q head 2 has shape 3×2, expected 4×2 (d_model × d_k)."},
        {"/W_K/0", "[[1,0,0],[0,1,0],[0,0,1],[0,0,0]]", "t.json: W_K head 1 has shape 4×3, expected 4×2 (d_model × d_k)."},
        {"/X", "[[1,2,3,4],[4,3,2]]", "t.json: X row 2 has 3 numbers, but row 1 has 4; every row must have the same length."},
        {"/X", "[[1,\"a\",3,4]]", "t.json: X row 1, column 2 is \"a\", not a number."},
        {"/X", "[[1,2,1e300,4]]", "t.json: X row 1, column 3 is 1e+300, beyond what a 32-bit float holds."},
        {"/X", "[]", "t.json: X must be a non-empty list of rows (a list of lists of numbers), but it is []."},
        {"/W_V", "[[[1,0],[0,1],[0,0],[0,0]]]", "t.json: W_V lists 1 head matrices, but heads is 2."},
        {"/heads", "3", "t.json: W_Q lists 2 head matrices, but heads is 3."},
        {"/heads", "0", "t.json: heads must be a positive whole number, but it is 0."},
        {"/W_O", "[[1,0,0,0],[0,1,0,0],[0,0,1,0]]", "t.json: W_O has shape 3×4, expected 4 rows (heads·d_k = 2·2) and any number of columns."},
        {"/tokens", "[\"a\",\"b\",\"c\"]", "t.json: tokens has 3 labels, but X has 2 rows."},
        {"/mask", "\"future\"", "t.json: mask must be \"none\" or \"causal\", but it is \"future\"."},
        {"/W_q", "[[1]]", "t.json: unknown field \"W_q\"; the fields are title, description, source (each also as …_zh), tokens, X, heads, W_Q, W_K, W_V, W_O, mask and article."},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.field + " = " + c.value);
        json doc = valid_two_heads();
        doc[json::json_pointer(c.field)] = json::parse(c.value);
        EXPECT_EQ(parse_error(doc.dump()), c.message);
    }
    json no_x = valid_two_heads();
    no_x.erase("X");
    EXPECT_EQ(parse_error(no_x.dump()), "t.json: X is missing: give the input as a list of token rows (n × d_model).");
    json no_wv = valid_two_heads();
    no_wv.erase("W_V");
    EXPECT_EQ(parse_error(no_wv.dump()), "t.json: W_V is missing: give a 4 × (heads·d_k) matrix or one 4 × d_k matrix per head.");
}

TEST(WorkedExample, ErrorsForFullMatrixShapes) {
    json doc = valid_two_heads();
    doc["W_Q"] = json::parse("[[1,0,0,0,0],[0,1,0,0,0],[0,0,1,0,0],[0,0,0,1,0]]");
    EXPECT_EQ(parse_error(doc.dump()),
              "t.json: W_Q has 5 columns, which do not split into 2 heads of equal width (expected heads·d_k columns).");
    doc["W_Q"] = json::parse("[[1,0],[0,1],[0,0]]");
    EXPECT_EQ(parse_error(doc.dump()),
              "t.json: W_Q has shape 3×2, expected 4 rows (d_model, the width of X) and heads·d_k columns.");
    doc = valid_two_heads();
    doc["W_V"] = json::parse("[[1,0,0],[0,1,0],[0,0,1],[0,0,0]]");
    EXPECT_EQ(parse_error(doc.dump()),
              "t.json: W_V has shape 4×3, expected 4×4 (d_model × heads·d_k, the same as W_Q).");
}

TEST(WorkedExample, RejectsInvalidJsonAndMissingFiles) {
    EXPECT_EQ(parse_error("{\"X\": [[1,2]").rfind("t.json is not valid JSON: [json.exception.parse_error", 0), 0u);
    EXPECT_EQ(parse_error("[1,2]"), "t.json: a worked example must be a JSON object with X, W_Q, W_K and W_V.");
    EXPECT_EQ(error_of([&] { hs::load_worked_example("/nonexistent/example.json"); }),
              "cannot read /nonexistent/example.json: No such file or directory");
}

TEST(WorkedExample, ShippedExamplesDescribeTheArticleErrors) {
    // The descriptions must explain what the article got wrong, not repeat it.
    const hs::WorkedExample one = hs::load_worked_example(example_path("article_single_head"));
    EXPECT_NE(one.description.find("[0.016, 0.984], is WRONG"), std::string::npos);
    EXPECT_NE(one.description.find("0.00704"), std::string::npos);
    const hs::WorkedExample two = hs::load_worked_example(example_path("article_two_heads"));
    EXPECT_NE(two.description.find("X·W_Q = [[4,6],[6,4]]"), std::string::npos);
}

}  // namespace

namespace {

// (step is a C string: g++ 14 reads a reference returned from a call with a temporary
// std::string argument as possibly dangling.)
const hs::ArticleCell& cell_of(const std::vector<hs::ArticleCell>& cells, const char* step, int head, int row,
                               int col) {
    for (const hs::ArticleCell& c : cells)
        if (c.step == step && c.head == head && c.row == row && c.col == col) return c;
    throw std::runtime_error(std::string("no cell ") + step);
}

}  // namespace

TEST(ArticleComparison, TheSingleHeadSoftmaxRowOneIsWrongAndTheRestAgrees) {
    const hs::WorkedExample ex = hs::load_worked_example(example_path("article_single_head"));
    ASSERT_EQ(ex.article.size(), 8u);
    const std::vector<hs::ArticleCell> cells = hs::compare_with_article(ex, ex.run());
    ASSERT_EQ(cells.size(), 8u * 4u);
    // Softmax of [2.828, 7.778]: 1 / (1 + e^(7/√2)) = 1 / (1 + 141.14) = 0.0070354.
    const hs::ArticleCell& w00 = cell_of(cells, "weights", 0, 0, 0);
    EXPECT_NEAR(w00.ours, 0.0070354, 2e-6);
    EXPECT_FLOAT_EQ(static_cast<float>(w00.printed), 0.016f);  // stored as float
    EXPECT_FALSE(w00.agrees);
    EXPECT_FALSE(cell_of(cells, "weights", 0, 0, 1).agrees);
    EXPECT_TRUE(cell_of(cells, "weights", 0, 1, 0).agrees);  // 0.000102 printed as 0.000
    EXPECT_TRUE(cell_of(cells, "scaled", 0, 1, 1).agrees);    // 24/√2 = 16.9706 printed 16.971
    EXPECT_FALSE(cell_of(cells, "head", 0, 0, 0).agrees);     // 3.979 vs 3.952
    EXPECT_TRUE(cell_of(cells, "head", 0, 1, 0).agrees);      // 3.9997 vs 4.000
    int wrong = 0;
    for (const hs::ArticleCell& c : cells) wrong += !c.agrees;
    EXPECT_EQ(wrong, 2 + 2 + 2);  // weights row 0, head row 0, output row 0
}

TEST(ArticleComparison, TheTwoHeadArticleReusedTheSingleHeadNumbers) {
    const hs::WorkedExample ex = hs::load_worked_example(example_path("article_two_heads"));
    const std::vector<hs::ArticleCell> cells = hs::compare_with_article(ex, ex.run());
    // Q_1 = X·W_Q = [[4, 6], [6, 4]] (hand), printed [[1, 2], [4, 3]].
    EXPECT_DOUBLE_EQ(cell_of(cells, "Q", 1, 0, 0).ours, 4.0);
    EXPECT_FALSE(cell_of(cells, "Q", 1, 0, 0).agrees);
    EXPECT_NEAR(cell_of(cells, "weights", 0, 0, 0).ours, 0.94419, 1e-5);
}

TEST(ArticleComparison, BadEntriesAreNamed) {
    const std::string base = R"({"X": [[1, 0], [0, 1]], "W_Q": [[1], [0]], "W_K": [[1], [0]], "W_V": [[1], [0]], "article": )";
    const auto error = [&](const std::string& article) {
        try {
            const hs::WorkedExample ex = hs::parse_worked_example(base + article + "}", "e.json");
            (void)hs::compare_with_article(ex, ex.run());
        } catch (const hs::Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(error(R"([{"step": "softmax", "values": [[1]]}])"),
              "e.json: article entry 1 has step \"softmax\"; the steps are Q, K, V, scores, scaled, weights, head, "
              "concat and output.");
    EXPECT_EQ(error(R"([{"step": "Q", "head": 1, "values": [[1]]}])"),
              "e.json: article entry 1 has head 1; the example has heads 0 to 0.");
    EXPECT_EQ(error(R"([{"step": "weights", "values": [[1, 0, 0], [0, 1, 0]]}])"),
              "article weights of head 0 is 2×3, but the step is 2×2");
    EXPECT_EQ(error(R"({"step": "Q"})"),
              "e.json: article must be a list of {step, head, values}, but it is {\"step\":\"Q\"}.");
}

TEST(TextbookSteps, PerHeadProjectionsAreTheExamplesOwnMatrices) {
    // causal_two_heads.json writes W_Q, W_K, W_V as the article does: (d_model, heads·d_k),
    // head h in columns h·d_k … The trace's textbook W_Q^h must be exactly those columns,
    // and Q_h = X·W_Q^h (no bias), W_O = W_outᵀ.
    const hs::WorkedExample ex = hs::load_worked_example(example_path("causal_two_heads"));
    const hs::Trace t = ex.run();
    ASSERT_TRUE(t.steps);
    const hs::AttentionSteps& s = *t.steps;
    const int H = ex.weights.heads, I = ex.weights.inner(), Dh = I / H;
    ASSERT_EQ(s.w_q_heads.size(), static_cast<std::size_t>(H));
    const hs::Matrix w_q = ex.weights.in_proj_weight.topRows(I).transpose();  // textbook (D, I)
    const hs::Matrix w_k = ex.weights.in_proj_weight.middleRows(I, I).transpose();
    for (int h = 0; h < H; ++h) {
        SCOPED_TRACE(h);
        EXPECT_EQ(s.w_q_heads[h], w_q.middleCols(h * Dh, Dh));
        EXPECT_EQ(s.w_k_heads[h], w_k.middleCols(h * Dh, Dh));
        EXPECT_TRUE((ex.x * s.w_q_heads[h]).isApprox(s.q_heads[h], 1e-6f));
        EXPECT_TRUE((ex.x * s.w_v_heads[h]).isApprox(s.v_heads[h], 1e-6f));
    }
    EXPECT_EQ(s.w_o, ex.weights.out_proj_weight.transpose());
    EXPECT_TRUE((s.concat * s.w_o).isApprox(s.output, 1e-6f));
}
