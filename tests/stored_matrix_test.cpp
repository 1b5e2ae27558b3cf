// Weights left as their file stores them (core/kernels/stored_matrix.h): the product of a
// stored weight (gemm::nn_stored through matmul_nt) gives the same floats as the packed
// product of its values converted to f32, at every SIMD level, for row ranges of mixed
// types, partial panels and column blocks; and the layer that holds them
// (core/model/stored_layer.h) points the layer's weights at them only when every row was read.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core/kernels/gemm.h"
#include "core/kernels/parallel.h"
#include "core/kernels/stored_matrix.h"
#include "core/model/stored_layer.h"
#include "core/rng.h"
#include "tests/simd_levels.h"
#include "tests/stored_bytes.h"
#include "tests/test_util.h"

namespace hs {
namespace {

using test::BytesFile;
using test::random_rows;

struct Part {
    StoredType type;
    int rows;
};

// A stored (Σ rows, cols) weight from parts in order: the even parts in `file`, read by
// the products, the odd ones in memory (in `storage`).
StoredMatrix stored_weight(const std::vector<Part>& parts, int cols, std::vector<std::vector<std::uint8_t>>& storage,
                           BytesFile& file, Rng& rng) {
    StoredMatrix w{0, cols, {}};
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const Part& p = parts[i];
        const StoredTypeInfo& info = stored_type_info(p.type);
        StoredRows rows{w.rows, p.rows, p.type, static_cast<std::int64_t>(cols / info.block_values) * info.block_bytes};
        std::vector<std::uint8_t> bytes = random_rows(p.type, p.rows, cols, rng);
        if (i % 2 == 0) {
            rows.source = &file;
            rows.name = &file.name;
            rows.offset = file.bytes.size() + 5;  // not where the previous part ends
            file.bytes.resize(rows.offset);
            file.bytes.insert(file.bytes.end(), bytes.begin(), bytes.end());
        } else {
            storage.push_back(std::move(bytes));
            rows.bytes = storage.back().data();
        }
        w.parts.push_back(rows);
        w.rows += p.rows;
    }
    return w;
}

// W as f32, row by row through dequantize (each type's converter, tested against numpy
// in gguf_test.cpp).
Matrix to_f32(const StoredMatrix& w) {
    Matrix out(w.rows, w.cols);
    std::vector<std::uint8_t> row;
    for (const StoredRows& p : w.parts)
        for (int r = 0; r < p.rows; ++r) {
            const std::uint8_t* bytes = p.bytes ? p.bytes + r * p.row_bytes : nullptr;
            if (!bytes) {
                row.resize(static_cast<std::size_t>(p.row_bytes));
                p.source->read(p.offset + static_cast<std::uint64_t>(r * p.row_bytes), row.size(), row.data(), "a row");
                bytes = row.data();
            }
            dequantize(p.type, bytes, w.cols, out.row(p.first_row + r).data());
        }
    return out;
}

class GemmStored : public test::AtSimdLevel {};
HEADSCOPE_AT_EVERY_SIMD_LEVEL(GemmStored);

TEST_P(GemmStored, AStoredWeightGivesThePackedProductOfItsValues) {
    // Up to 4 rows (a token being generated: the dot products, gemm::nt_stored), a few
    // more, 100, and more than one block of rows (256);
    // 70 and 200 outputs end in part-empty panels; 320 and 544 inputs end in a column
    // block narrower than 256; a fused [q; k; v] of three types, one of a single type; a
    // Q4_K_M-like weight whose second column block starts at its rows' second super-block.
    struct Case {
        int m, cols;
        std::vector<Part> parts;
    };
    const std::vector<Case> cases = {
        {1, 96, {{StoredType::BF16, 70}}},
        {4, 320, {{StoredType::BF16, 64}, {StoredType::Q8_0, 40}, {StoredType::F16, 96}}},
        {3, 512, {{StoredType::Q4_K, 70}, {StoredType::Q6_K, 30}}},
        {5, 320, {{StoredType::BF16, 64}, {StoredType::Q8_0, 40}, {StoredType::F16, 96}}},
        {100, 544, {{StoredType::Q4_0, 130}, {StoredType::Q8_0, 70}}},
        {300, 288, {{StoredType::F32, 10}, {StoredType::Q4_0, 60}, {StoredType::BF16, 130}}},
        {7, 512, {{StoredType::Q4_K, 70}, {StoredType::Q6_K, 30}}},  // 256-value blocks: two column blocks
        {8, 96, {{StoredType::Q8_0, 75}, {StoredType::BF16, 5}}},     // Q8_0 read from the file, 3 rows past 8s
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(testing::Message() << c.m << " rows, " << c.cols << " inputs, " << c.parts.size() << " parts");
        Rng rng(11);
        std::vector<std::vector<std::uint8_t>> storage;
        BytesFile file;
        const StoredMatrix w = stored_weight(c.parts, c.cols, storage, file, rng);
        Matrix x(c.m, c.cols);
        for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = rng.uniform(-1, 1);
        Vector bias(w.rows);
        for (Eigen::Index i = 0; i < bias.size(); ++i) bias(i) = rng.uniform(-1, 1);

        const Matrix w32 = to_f32(w);
        const gemm::PackedWeights packed = gemm::pack(w32.data(), w.rows, w.cols, w.cols);
        Matrix want(c.m, w.rows), got(c.m, w.rows), no_bias(c.m, w.rows), want_no_bias(c.m, w.rows);
        if (c.m <= gemm::kDotRows) {  // the dots of W's rows as they lie, the bias added after
            gemm::nt_dots(c.m, w.rows, c.cols, x.data(), c.cols, w32.data(), c.cols, want_no_bias.data(), w.rows);
            want = want_no_bias.rowwise() + bias.transpose();
        } else {  // the packed product
            gemm::nn_packed(c.m, x.data(), c.cols, packed, 0, packed.panels(), bias.data(), want.data(), w.rows);
            gemm::nn_packed(c.m, x.data(), c.cols, packed, 0, packed.panels(), nullptr, want_no_bias.data(), w.rows);
        }
        matmul_nt(x, w, &bias, got);
        matmul_nt(x, w, nullptr, no_bias);
        EXPECT_EQ(got, want);  // the same floats, bit for bit
        EXPECT_EQ(no_bias, want_no_bias);
        // and the product it stands for, in double
        const Eigen::MatrixXd exact =
            (x.cast<double>() * w32.cast<double>().transpose()).rowwise() + bias.cast<double>().transpose();
        EXPECT_LT((got.cast<double>() - exact).cwiseAbs().maxCoeff(), 1e-5 * c.cols);
        // The file's rows read where they lie in its map: the same floats, and no read.
        file.map = true;
        const int reads = file.reads;
        Matrix mapped(c.m, w.rows);
        matmul_nt(x, w, &bias, mapped);
        EXPECT_EQ(mapped, want);
        EXPECT_EQ(file.reads, reads);
    }
}

TEST(StoredMatrix, WrongShapesAndNoInputsAreHandled) {
    Rng rng(3);
    std::vector<std::vector<std::uint8_t>> storage;
    BytesFile file;
    const StoredMatrix w = stored_weight({{StoredType::BF16, 70}}, 64, storage, file, rng);
    Matrix c(3, 70);
    test::expect_error([&] { matmul_nt(Matrix(3, 32), w, nullptr, c); },
                       {"cannot multiply (3 × 32) by the transpose of a stored (70 × 64)"});
    const StoredMatrix none{5, 0, {}};
    const Vector bias = Vector::LinSpaced(5, -1.0f, 1.0f);
    Matrix out = Matrix::Constant(2, 5, 7.0f);
    matmul_nt(Matrix(2, 0), none, &bias, out);
    for (int i = 0; i < 2; ++i) EXPECT_EQ(Vector(out.row(i).transpose()), bias);
    // a file that no longer holds the rows: the product names what it was reading
    file.bytes.resize(100);
    test::expect_error([&] { matmul_nt(Matrix::Ones(3, 64), w, nullptr, c); }, {"the file ends before"});
}

// Where the products request a panel's stored rows ahead of their conversion: rows in
// memory where they are, rows in a mapped file where they lie in its map (from the first
// part holding any of the rows asked for), and nothing for a file read with pread.
TEST(StoredMatrix, BytesInPlaceAreTheFirstPartsRowsInMemoryOrInTheMap) {
    Rng rng(4);
    std::vector<std::vector<std::uint8_t>> storage;
    BytesFile file;  // parts 0 and 2 (BF16 rows of 128 bytes, Q8_0 rows of 68), part 1 in memory
    const StoredMatrix w =
        stored_weight({{StoredType::BF16, 10}, {StoredType::F16, 20}, {StoredType::Q8_0, 30}}, 64, storage, file, rng);
    ASSERT_EQ(w.parts[2].offset, 5u + 10 * 128 + 5);
    StoredMatrix::BytesInPlace in_memory = w.bytes_in_place(12, 40);  // rows 12…29 of part 1 (from its row 2)
    EXPECT_EQ(in_memory.data, storage[0].data() + 2 * 128);
    EXPECT_EQ(in_memory.size, 18u * 128);
    EXPECT_EQ(w.bytes_in_place(4, 64).data, nullptr);  // part 0 is in a file that has no map
    file.map = true;
    StoredMatrix::BytesInPlace mapped = w.bytes_in_place(4, 64);  // rows 4…9 of part 0
    EXPECT_EQ(mapped.data, file.bytes.data() + 5 + 4 * 128);
    EXPECT_EQ(mapped.size, 6u * 128);
    mapped = w.bytes_in_place(33, 27);  // rows 3…29 of part 2
    EXPECT_EQ(mapped.data, file.bytes.data() + w.parts[2].offset + 3 * 68);
    EXPECT_EQ(mapped.size, 27u * 68);
    EXPECT_EQ(w.bytes_in_place(60, 4).data, nullptr);  // past the last row
    EXPECT_EQ(file.reads, 0);
}

TEST(StoredLayer, AttachPointsEachWeightAtItsRowsOnlyWhenAllWereRead) {
    EncoderLayerWeights layer;
    StoredLayer stored;
    const std::uint8_t q[34] = {2}, k[64] = {3}, v[64] = {1}, down[128] = {4};
    stored.declare(layer.self_attn.in_proj_weight, 6, 32);
    // [q; k; v] read out of order: v, then q, then k
    stored.add_rows(layer.self_attn.in_proj_weight, StoredRows{4, 2, StoredType::BF16, 64, v});
    stored.add_rows(layer.self_attn.in_proj_weight, StoredRows{0, 2, StoredType::Q8_0, 34, q});
    stored.add_rows(layer.self_attn.in_proj_weight, StoredRows{2, 2, StoredType::F16, 64, k});
    stored.declare(layer.ffn.linear2_weight, 4, 64);
    stored.add_rows(layer.ffn.linear2_weight, StoredRows{0, 4, StoredType::BF16, 128, down});
    stored.attach(layer);
    const StoredMatrix* qkv = layer.self_attn.in_proj_stored;
    ASSERT_NE(qkv, nullptr);
    EXPECT_EQ(layer.self_attn.in_rows(), 6);
    EXPECT_EQ(layer.self_attn.d_in(), 32);
    ASSERT_EQ(qkv->parts.size(), 3u);
    EXPECT_EQ(qkv->parts[0].type, StoredType::Q8_0);
    EXPECT_EQ(qkv->parts[0].bytes, q);
    EXPECT_EQ(qkv->parts[1].first_row, 2);
    EXPECT_EQ(qkv->parts[1].bytes, k);
    EXPECT_EQ(qkv->parts[2].bytes, v);
    EXPECT_EQ(layer.ffn.linear2_stored->parts[0].bytes, down);
    EXPECT_EQ(layer.self_attn.out_proj_stored, nullptr);
    EXPECT_EQ(layer.ffn.linear1_stored, nullptr);
    EXPECT_FALSE(layer.ffn.gated());

    // rows left in a file: the next layer lets their mapped pages go (the file decides
    // whether it keeps them: ReadOnlyFile::release); rows in memory have none
    BytesFile file;
    file.bytes.assign(6 * 64, 0);
    StoredRows in_file{0, 4, StoredType::BF16, 64}, more_in_file{4, 2, StoredType::BF16, 64};
    in_file.source = more_in_file.source = &file;
    more_in_file.offset = 4 * 64;
    stored.declare(layer.ffn.linear1_weight, 6, 32);
    stored.add_rows(layer.ffn.linear1_weight, in_file);
    stored.add_rows(layer.ffn.linear1_weight, more_in_file);
    stored.attach(layer);
    EXPECT_EQ(file.releases, 0);

    stored.clear(layer);  // the next layer: no pointer to the last one's matrices survives
    EXPECT_EQ(file.releases, 2);  // one per part in the file; none for in_proj's and linear2's, in memory
    EXPECT_EQ(layer.self_attn.in_proj_stored, nullptr);
    EXPECT_EQ(layer.ffn.linear1_stored, nullptr);
    EXPECT_EQ(layer.ffn.linear2_stored, nullptr);
    // a weight missing rows, or rows read twice, is refused
    stored.declare(layer.ffn.linear1_weight, 8, 32);
    stored.add_rows(layer.ffn.linear1_weight, StoredRows{0, 4, StoredType::BF16, 64, down});
    test::expect_error([&] { stored.attach(layer); }, {"a weight of 8 rows was read with 4 rows"});
    stored.add_rows(layer.ffn.linear1_weight, StoredRows{0, 4, StoredType::BF16, 64, down});
    test::expect_error([&] { stored.attach(layer); }, {"a weight of 8 rows was read with 8 rows, not each once"});
    test::expect_error([&] { stored.add_rows(layer.ffn.linear1_weight, StoredRows{6, 4, StoredType::BF16, 64, down}); },
                       {"rows [6, 10) do not fit"});
    test::expect_error([&] { stored.add_rows(layer.ffn.gate_weight, StoredRows{0, 1, StoredType::BF16, 64, down}); },
                       {"do not fit"});
    // a matrix that is not one of the layer's linear weights
    stored.clear(layer);
    const Matrix elsewhere;
    stored.declare(elsewhere, 1, 32);
    stored.add_rows(elsewhere, StoredRows{0, 1, StoredType::BF16, 64, down});
    test::expect_error([&] { stored.attach(layer); }, {"not one of the layer's linear weights"});
    EXPECT_EQ(layer.ffn.linear1_stored, nullptr);
}

}  // namespace
}  // namespace hs
