// Building blocks the real-model families need, against hand-computed values: RoPE
// layouts, RMSNorm, grouped-query attention (query head → K/V head), SwiGLU, GELU-tanh,
// and llama2.c loader errors.
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/cli_runner.h"
#include "core/kernels/attend.h"
#include "core/model/attention.h"
#include "core/error.h"
#include "core/model/layers.h"
#include "core/model/model.h"
#include "core/formats/llama2c.h"
#include "core/model/rope.h"
#include "tests/test_util.h"

namespace hs {
namespace {

namespace fs = std::filesystem;

using test::error_of;

Matrix ramp(int rows, int cols, float scale, float offset) {
    Matrix m(rows, cols);
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j)
            m(i, j) = std::sin(scale * static_cast<float>(i * cols + j) + offset);
    return m;
}

TEST(Rope, InterleavedRotatesAdjacentPairsByPositionTimesFrequency) {
    // One head, Dh = 4, theta 100: θ_0 = 1, θ_1 = 100^(−2/4) = 0.1. Row t is position t.
    Matrix x(3, 4);
    x << 1, 2, 3, 4,  //
        1, 2, 3, 4,   //
        1, 2, 3, 4;
    apply_rope(x, 1, make_rope_table(3, 4, 100.0f), RopeLayout::Interleaved);
    for (int p = 0; p < 3; ++p) {
        SCOPED_TRACE(testing::Message() << "position " << p);
        const double a0 = p * 1.0, a1 = p * 0.1;
        EXPECT_NEAR(x(p, 0), 1 * std::cos(a0) - 2 * std::sin(a0), 1e-6);
        EXPECT_NEAR(x(p, 1), 1 * std::sin(a0) + 2 * std::cos(a0), 1e-6);
        EXPECT_NEAR(x(p, 2), 3 * std::cos(a1) - 4 * std::sin(a1), 1e-6);
        EXPECT_NEAR(x(p, 3), 3 * std::sin(a1) + 4 * std::cos(a1), 1e-6);
    }
}

TEST(Rope, RotateHalfPairsDimensionIWithIPlusHalf) {
    // Two heads, Dh = 4: pairs (0, 2) at θ_0 = 1 and (1, 3) at θ_1 = 0.1, per head.
    Matrix x(2, 8);
    x << 1, 2, 3, 4, 5, 6, 7, 8,  //
        1, 2, 3, 4, 5, 6, 7, 8;
    apply_rope(x, 2, make_rope_table(2, 4, 100.0f), RopeLayout::RotateHalf);
    EXPECT_FLOAT_EQ(x(0, 0), 1);  // position 0 is the identity
    EXPECT_FLOAT_EQ(x(0, 7), 8);
    const double c0 = std::cos(1.0), s0 = std::sin(1.0), c1 = std::cos(0.1), s1 = std::sin(0.1);
    EXPECT_NEAR(x(1, 0), 1 * c0 - 3 * s0, 1e-6);
    EXPECT_NEAR(x(1, 2), 1 * s0 + 3 * c0, 1e-6);
    EXPECT_NEAR(x(1, 1), 2 * c1 - 4 * s1, 1e-6);
    EXPECT_NEAR(x(1, 3), 2 * s1 + 4 * c1, 1e-6);
    EXPECT_NEAR(x(1, 4), 5 * c0 - 7 * s0, 1e-6);  // second head, same angles
    EXPECT_NEAR(x(1, 6), 5 * s0 + 7 * c0, 1e-6);
}

TEST(Rope, PreservesRelativePositionInDotProducts) {
    // ⟨R_m q, R_n k⟩ depends only on m − n: shift both positions by 3.
    const Matrix q0 = ramp(1, 8, 0.7f, 0.1f), k0 = ramp(1, 8, 0.3f, 0.5f);
    Matrix q(6, 8), k(6, 8);
    for (int t = 0; t < 6; ++t) q.row(t) = q0, k.row(t) = k0;
    const RopeTable table = make_rope_table(6, 8, 10000.0f);
    apply_rope(q, 1, table, RopeLayout::Interleaved);
    apply_rope(k, 1, table, RopeLayout::Interleaved);
    EXPECT_NEAR(q.row(2).dot(k.row(0)), q.row(5).dot(k.row(3)), 1e-5);
}

TEST(RmsNorm, DividesByRootMeanSquareAndScales) {
    Matrix x(1, 4);
    x << 1, 2, 3, 4;  // mean(x²) = 30 / 4 = 7.5
    Vector w(4);
    w << 1, 1, 2, 0.5;
    const Matrix y = rms_norm(x, LayerNormWeights{w, Vector()}, 1e-5f);
    const double r = std::sqrt(7.5 + 1e-5);
    EXPECT_NEAR(y(0, 0), 1 / r, 1e-6);
    EXPECT_NEAR(y(0, 1), 2 / r, 1e-6);
    EXPECT_NEAR(y(0, 2), 3 / r * 2, 1e-6);
    EXPECT_NEAR(y(0, 3), 4 / r * 0.5, 1e-6);
}

TEST(GqaAttention, EachQueryHeadEqualsAttentionWithItsKeyValueHead) {
    const int T = 5, H = 4, Hkv = 2, Dh = 3;
    const Matrix q = ramp(T, H * Dh, 0.37f, 0.2f), k = ramp(T, Hkv * Dh, 0.53f, 1.0f),
                 v = ramp(T, Hkv * Dh, 0.29f, 2.0f);
    AttentionMask causal;
    causal.causal = true;
    const float scale = 1.0f / std::sqrt(float(Dh));
    struct {
        std::vector<Matrix> weights;
        Matrix concat;
    } r;
    r.concat.resize(T, H * Dh);
    kernels::attend_heads(q, k, v, H, Hkv, {scale}, causal, r.concat, &r.weights, nullptr);
    ASSERT_EQ(r.weights.size(), 4u);
    for (int h = 0; h < H; ++h) {
        SCOPED_TRACE(testing::Message() << "head " << h);
        const int g = h / 2;
        // Naive: softmax_j(q_h[i] · k_g[j] / √Dh) over j ≤ i, in double.
        for (int i = 0; i < T; ++i) {
            std::vector<double> s(T, 0.0);
            double sum = 0;
            for (int j = 0; j <= i; ++j) {
                double dot = 0;
                for (int c = 0; c < Dh; ++c) dot += double(q(i, h * Dh + c)) * k(j, g * Dh + c);
                s[j] = std::exp(dot / std::sqrt(double(Dh)));
                sum += s[j];
            }
            std::vector<double> out(Dh, 0.0);
            for (int j = 0; j < T; ++j) {
                const double a = j <= i ? s[j] / sum : 0.0;
                EXPECT_NEAR(r.weights[h](i, j), a, 1e-6);
                for (int c = 0; c < Dh; ++c) out[c] += a * v(j, g * Dh + c);
            }
            for (int c = 0; c < Dh; ++c) EXPECT_NEAR(r.concat(i, h * Dh + c), out[c], 1e-5);
        }
    }
    // Heads sharing a KV head differ only through their queries: same K gives the same
    // map when the queries are equal.
    Matrix q_same = q;
    q_same.middleCols(Dh, Dh) = q.middleCols(0, Dh);
    std::vector<Matrix> same;
    kernels::attend_heads(q_same, k, v, H, Hkv, {scale}, causal, r.concat, &same, nullptr);
    EXPECT_TRUE(same[0].isApprox(same[1]));
}

TEST(Mlp, SwiGluIsDownOfSiluGateTimesUp) {
    FeedForwardWeights w;  // no biases, as Llama
    w.gate_weight = ramp(3, 2, 0.9f, 0.0f);     // (F=3, D=2)
    w.linear1_weight = ramp(3, 2, 0.4f, 1.0f);  // up
    w.linear2_weight = ramp(2, 3, 0.6f, 2.0f);  // down: (D, F)
    Matrix x(1, 2);
    x << 0.5f, -1.5f;
    const Matrix y = feed_forward(x, w, Activation::SwiGLU);
    for (int d = 0; d < 2; ++d) {
        double expect = 0;
        for (int f = 0; f < 3; ++f) {
            const double g = w.gate_weight(f, 0) * 0.5 + w.gate_weight(f, 1) * -1.5;
            const double u = w.linear1_weight(f, 0) * 0.5 + w.linear1_weight(f, 1) * -1.5;
            expect += w.linear2_weight(d, f) * (g / (1 + std::exp(-g))) * u;  // silu(g)·u
        }
        EXPECT_NEAR(y(0, d), expect, 1e-6);
    }
}

TEST(Mlp, GeluTanhMatchesTheTanhApproximation) {
    Matrix x(1, 3);
    x << -1.0f, 0.5f, 2.0f;
    const Matrix y = activate(x, Activation::GELUTanh);
    for (int i = 0; i < 3; ++i) {
        const double v = x(0, i);
        const double e = 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
        EXPECT_NEAR(y(0, i), e, 1e-6);
    }
    EXPECT_NEAR(y(0, 2), 1.9545977, 1e-6);  // GELU_tanh(2)
}

// A tiny llama2.c checkpoint written by hand: header + floats from a ramp.
struct TinyCheckpoint {
    std::int32_t dim = 8, hidden = 12, layers = 2, heads = 4, kv_heads = 2, vocab = 16, seq_len = 10;
    bool shared = true;
    std::int64_t n_floats() const {
        const std::int64_t D = dim, F = hidden, L = layers, V = vocab, kv = kv_heads * (dim / heads);
        return V * D + L * D + 2 * L * D * D + 2 * L * kv * D + L * D + 3 * L * F * D + D +
               seq_len * (dim / heads) + (shared ? 0 : V * D);
    }
    void write(const std::string& path, std::int64_t drop_floats = 0) const {
        std::ofstream out(path, std::ios::binary);
        const std::int32_t header[7] = {dim, hidden, layers, heads, kv_heads, shared ? vocab : -vocab, seq_len};
        out.write(reinterpret_cast<const char*>(header), sizeof header);
        for (std::int64_t i = 0; i < n_floats() - drop_floats; ++i) {
            const float f = 0.1f * std::sin(0.37f * static_cast<float>(i));
            out.write(reinterpret_cast<const char*>(&f), 4);
        }
    }
};

TEST(Llama2cLoader, RejectsATruncatedCheckpointWithBothSizes) {
    cli_test::TempDir dir;
    TinyCheckpoint tiny;
    tiny.write(dir.file("t.bin"), 5);
    const std::int64_t expected = 28 + 4 * tiny.n_floats();
    EXPECT_EQ(error_of([&] { load_llama2c_model(dir.file("t.bin")); }),
              "llama2.c checkpoint '" + dir.file("t.bin") + "': the file is " +
                  std::to_string(expected - 20) +
                  " bytes but its header (dim 8, hidden_dim 12, n_layers 2, n_heads 4, "
                  "n_kv_heads 2, vocab_size 16, seq_len 10) implies exactly " +
                  std::to_string(expected) + " bytes (truncated download?)");
}

TEST(Llama2cLoader, RejectsAFileShorterThanTheHeader) {
    cli_test::TempDir dir;
    std::ofstream(dir.file("h.bin"), std::ios::binary) << "abc";
    EXPECT_NE(error_of([&] { load_llama2c_model(dir.file("h.bin")); })
                  .find("the file is 3 bytes, shorter than the 28-byte header"),
              std::string::npos);
    EXPECT_NE(error_of([&] { load_llama2c_model(dir.file("none.bin")); })
                  .find("cannot open the llama2.c checkpoint"),
              std::string::npos);
}

TEST(Llama2cLoader, RejectsHeadsThatDoNotShareKeyValueHeadsEvenly) {
    cli_test::TempDir dir;
    TinyCheckpoint tiny;
    tiny.kv_heads = 3;
    tiny.write(dir.file("t.bin"));
    EXPECT_NE(error_of([&] { load_llama2c_model(dir.file("t.bin")); })
                  .find("4 heads cannot share 3 key/value heads evenly"),
              std::string::npos);
}

TEST(Llama2cLoader, NegativeVocabReadsASeparateClassifier) {
    cli_test::TempDir dir;
    TinyCheckpoint tiny;
    tiny.shared = false;
    tiny.write(dir.file("t.bin"));
    const Model model = load_llama2c_model(dir.file("t.bin"));
    EXPECT_EQ(model.config().vocab, 16);
    EXPECT_EQ(model.config().lm_head, LmHead::Separate);
    ASSERT_EQ(model.weights().lm_head.rows(), 16);
    // The classifier is the last V·D floats of the file.
    const std::int64_t first = tiny.n_floats() - 16 * 8;
    EXPECT_FLOAT_EQ(model.weights().lm_head(0, 0), 0.1f * std::sin(0.37f * static_cast<float>(first)));
    // Logits use it: lm_head · final hidden state of the last position.
    const ForwardInput ids = ForwardInput::of({1, 5, 3});
    const Trace trace = model.forward(ids);
    const Vector expected = model.weights().lm_head * trace.main.final_output.row(2).transpose();
    EXPECT_TRUE(model.next_token_logits(ids).isApprox(expected, 1e-5f));
    EXPECT_TRUE(trace.next_token_logits.isApprox(expected, 1e-5f));
}

TEST(Llama2cModel, RejectsIdsOutsideTheVocabularyAndEmptyInput) {
    cli_test::TempDir dir;
    TinyCheckpoint tiny;
    tiny.write(dir.file("t.bin"));
    const Model model = load_llama2c_model(dir.file("t.bin"));
    EXPECT_EQ(error_of([&] { model.forward(ForwardInput::of({1, 16})); }),
              "token id 16 is outside the vocabulary (0..15)");
    EXPECT_EQ(error_of([&] { model.forward(ForwardInput{}); }), "the text has no tokens");
    EXPECT_EQ(error_of([&] { model.forward(ForwardInput::of(std::vector<int>(11, 1))); }),
              "the text has 11 tokens; this model handles at most 10");
}

TEST(TopK, GivesSoftmaxProbabilitiesOfTheLargestLogitsInOrder) {
    Vector logits(4);
    logits << 0.0f, std::log(3.0f), std::log(2.0f), std::log(2.0f);  // softmax: 1/8, 3/8, 2/8, 2/8
    const std::vector<Trace::NextToken> top = top_k(logits, 3);
    ASSERT_EQ(top.size(), 3u);
    EXPECT_EQ(top[0].id, 1);
    EXPECT_NEAR(top[0].prob, 0.375f, 1e-6);
    EXPECT_EQ(top[1].id, 2);  // ties keep the lower id first
    EXPECT_EQ(top[2].id, 3);
    EXPECT_NEAR(top[2].prob, 0.25f, 1e-6);
    EXPECT_EQ(top_k(logits, 10).size(), 4u);
}

}  // namespace
}  // namespace hs
