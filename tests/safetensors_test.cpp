// safetensors reader/writer: round trips, hand-built f16/bf16 files, and one test per
// malformed-file case with its message.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/error.h"
#include "core/io/safetensors.h"
#include "tests/test_util.h"

namespace fs = std::filesystem;

namespace {

using hs::test::error_of;
using hs::test::expect_error;

// A fresh directory per test, removed afterwards.
class SafetensorsFixture : public testing::Test {
protected:
    std::string path(const std::string& name) const { return tmp_.file(name); }

    // Writes [u64 LE header length][header][data] byte by byte.
    std::string write_raw(const std::string& name, const std::string& header,
                          const std::vector<std::uint8_t>& data) const {
        std::string bytes;
        const std::uint64_t n = header.size();
        for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<char>((n >> (8 * i)) & 0xFF));
        bytes += header;
        bytes.append(data.begin(), data.end());
        return write_bytes(name, bytes);
    }
    std::string write_bytes(const std::string& name, const std::string& bytes) const {
        const std::string p = path(name);
        std::ofstream out(p, std::ios::binary);
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        return p;
    }

    // Expects open(p) to throw hs::Error whose message contains the path and every part.
    static void expect_open_error(const std::string& p, const std::vector<std::string>& parts) {
        const std::string msg = hs::test::error_of([&] { hs::SafetensorsFile::open(p); });
        EXPECT_NE(msg.find(p), std::string::npos) << "message does not name the file: " << msg;
        hs::test::expect_contains(msg, parts);
    }

    hs::test::TempDir tmp_{"hs_safetensors"};
};
using SafetensorsReader = SafetensorsFixture;
using SafetensorsWriter = SafetensorsFixture;

std::vector<std::uint8_t> u16_le(const std::vector<std::uint16_t>& values) {
    std::vector<std::uint8_t> out;
    for (std::uint16_t v : values) {
        out.push_back(static_cast<std::uint8_t>(v & 0xFF));
        out.push_back(static_cast<std::uint8_t>(v >> 8));
    }
    return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Writer + reader round trip (f32)

TEST_F(SafetensorsWriter, RoundTripPreservesF32ValuesShapesAndMetadata) {
    const std::vector<hs::NamedTensor> tensors = {
        {"weight", {2, 3}, {1.0f, -2.5f, 3.25f, 0.0f, 1e-30f, -7e20f}},
        {"bias", {4}, {0.5f, -0.5f, std::numeric_limits<float>::infinity(), 1.0f / 3.0f}},
        {"empty", {0, 5}, {}},
    };
    const std::string p = path("model.safetensors");
    hs::write_safetensors(p, tensors, {{"format", "pt"}});

    const auto file = hs::SafetensorsFile::open(p);
    ASSERT_EQ(file->tensors().size(), 3u);
    EXPECT_EQ(file->metadata().at("format"), "pt");

    const hs::TensorInfo& w = file->info("weight");
    EXPECT_EQ(w.dtype, hs::DType::F32);
    EXPECT_EQ(w.shape, (std::vector<std::int64_t>{2, 3}));
    const hs::Matrix m = file->matrix("weight");
    ASSERT_EQ(m.rows(), 2);
    ASSERT_EQ(m.cols(), 3);
    for (int i = 0; i < 6; ++i) EXPECT_EQ(m(i / 3, i % 3), tensors[0].data[i]) << "i=" << i;

    const hs::Vector b = file->vector("bias");
    ASSERT_EQ(b.size(), 4);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(b(i), tensors[1].data[i]) << "i=" << i;
    // A 1-D tensor read as a matrix is one row.
    const hs::Matrix bm = file->matrix("bias");
    EXPECT_EQ(bm.rows(), 1);
    EXPECT_EQ(bm.cols(), 4);

    EXPECT_EQ(file->info("empty").numel(), 0);
    EXPECT_EQ(file->matrix("empty").rows(), 0);
}

TEST_F(SafetensorsWriter, SortsKeysPadsHeaderToEightBytesAndPacksData) {
    const std::string p = path("w.safetensors");
    hs::write_safetensors(p, {{"zeta", {1}, {2.0f}}, {"alpha", {2}, {1.0f, 3.0f}}});
    const std::string bytes = hs::test::read_text(p);
    ASSERT_GE(bytes.size(), 8u);
    std::uint64_t n = 0;
    for (int i = 0; i < 8; ++i) n |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[i])) << (8 * i);
    EXPECT_EQ(n % 8, 0u);
    ASSERT_EQ(bytes.size(), 8 + n + 12);  // 3 floats
    const std::string header = bytes.substr(8, n);
    EXPECT_LT(header.find("\"alpha\""), header.find("\"zeta\""));
    // Data in sorted order: alpha (1, 3) then zeta (2).
    EXPECT_NE(header.find("\"data_offsets\":[0,8]"), std::string::npos) << header;
    EXPECT_NE(header.find("\"data_offsets\":[8,12]"), std::string::npos) << header;
    float first = 0;
    std::memcpy(&first, bytes.data() + 8 + n, 4);
    EXPECT_EQ(first, 1.0f);
    // Padding is spaces after the closing brace.
    const auto close = header.find_last_of('}');
    EXPECT_EQ(header.find_first_not_of(' ', close + 1), std::string::npos);
}

TEST_F(SafetensorsWriter, LeavesNoTemporaryFileAndReplacesExisting) {
    const std::string p = path("m.safetensors");
    hs::write_safetensors(p, {{"a", {1}, {1.0f}}});
    hs::write_safetensors(p, {{"a", {1}, {5.0f}}});
    int count = 0;
    for (const auto& entry : fs::directory_iterator(tmp_.path())) {
        (void)entry;
        ++count;
    }
    EXPECT_EQ(count, 1);
    EXPECT_EQ(hs::SafetensorsFile::open(p)->vector("a")(0), 5.0f);
}

TEST_F(SafetensorsWriter, RejectsUnwritablePath) {
    EXPECT_EQ(error_of([&] { hs::write_safetensors("/nonexistent/x", {{"a", {1}, {1.0f}}}); }),
              "cannot write /nonexistent/x: directory /nonexistent does not exist");
}

TEST_F(SafetensorsWriter, RejectsDataNotMatchingShape) {
    expect_error([&] { hs::write_safetensors(path("bad.safetensors"), {{"a", {2, 2}, {1.0f, 2.0f, 3.0f}}}); },
                 {"'a' has shape [2, 2] (4 values) but 3 values"});
    EXPECT_FALSE(fs::exists(path("bad.safetensors")));
}

// ---------------------------------------------------------------------------------------
// f16 / bf16 files built by hand

TEST_F(SafetensorsReader, ReadsHandBuiltF16FileIncludingSubnormalsInfAndNan) {
    // 0x3C00 = 1.0, 0xC000 = −2.0, 0x0001 = 2^−24, 0x03FF = 1023·2^−24 (largest subnormal),
    // 0x7BFF = 65504 (largest finite), 0x3555 = (1 + 341/1024)·2^−2 = 0.333251953125,
    // 0x7C00 = +inf, 0xFC00 = −inf, 0x8000 = −0, 0x7E00 = NaN.
    const std::string p = write_raw(
        "h.safetensors", R"({"h":{"dtype":"F16","shape":[2,5],"data_offsets":[0,20]}})",
        u16_le({0x3C00, 0xC000, 0x0001, 0x03FF, 0x7BFF, 0x3555, 0x7C00, 0xFC00, 0x8000, 0x7E00}));
    const auto file = hs::SafetensorsFile::open(p);
    EXPECT_EQ(file->info("h").dtype, hs::DType::F16);
    const hs::Matrix m = file->matrix("h");
    ASSERT_EQ(m.rows(), 2);
    ASSERT_EQ(m.cols(), 5);
    EXPECT_EQ(m(0, 0), 1.0f);
    EXPECT_EQ(m(0, 1), -2.0f);
    EXPECT_EQ(m(0, 2), 5.9604644775390625e-08f);  // 2^-24
    EXPECT_EQ(m(0, 3), 6.0975551605224609e-05f);  // 1023 · 2^-24
    EXPECT_EQ(m(0, 4), 65504.0f);
    EXPECT_EQ(m(1, 0), 0.333251953125f);
    EXPECT_EQ(m(1, 1), std::numeric_limits<float>::infinity());
    EXPECT_EQ(m(1, 2), -std::numeric_limits<float>::infinity());
    EXPECT_EQ(m(1, 3), 0.0f);
    EXPECT_TRUE(std::signbit(m(1, 3)));
    EXPECT_TRUE(std::isnan(m(1, 4)));
}

TEST_F(SafetensorsReader, ReadsHandBuiltBf16File) {
    // bf16 is the top half of an f32: 0x3F80 = 1.0, 0xC040 = −3.0, 0x4049 = 3.140625,
    // 0x7F80 = +inf, 0x0001 = 2^−133 (subnormal), 0x7FC0 = NaN.
    const std::string p = write_raw(
        "b.safetensors", R"({"b":{"dtype":"BF16","shape":[6],"data_offsets":[0,12]}})",
        u16_le({0x3F80, 0xC040, 0x4049, 0x7F80, 0x0001, 0x7FC0}));
    const hs::Vector v = hs::SafetensorsFile::open(p)->vector("b");
    ASSERT_EQ(v.size(), 6);
    EXPECT_EQ(v(0), 1.0f);
    EXPECT_EQ(v(1), -3.0f);
    EXPECT_EQ(v(2), 3.140625f);
    EXPECT_EQ(v(3), std::numeric_limits<float>::infinity());
    EXPECT_EQ(v(4), std::ldexp(1.0f, -133));
    EXPECT_TRUE(std::isnan(v(5)));
}

TEST_F(SafetensorsReader, ReadsMixedDtypesAtUnalignedOffsets) {
    // The F32 starts at data offset 2: the reader must not assume 4-byte alignment.
    std::string header = R"({"a":{"dtype":"BF16","shape":[1],"data_offsets":[0,2]},)"
                         R"("b":{"dtype":"F32","shape":[1],"data_offsets":[2,6]}})";
    std::vector<std::uint8_t> data = u16_le({0xC000});  // bf16 −2.0
    for (std::uint8_t byte : {0x00, 0x00, 0x20, 0x41}) data.push_back(byte);  // f32 10.0
    const auto file = hs::SafetensorsFile::open(write_raw("m.safetensors", header, data));
    EXPECT_EQ(file->vector("a")(0), -2.0f);
    EXPECT_EQ(file->vector("b")(0), 10.0f);
}

TEST(HalfConversion, F16RoundTripsEveryNonNanBitPattern) {
    for (std::uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
        const auto h = static_cast<std::uint16_t>(bits);
        const float f = hs::f16_to_f32(h);
        if (std::isnan(f)) {
            EXPECT_TRUE(std::isnan(hs::f16_to_f32(hs::f32_to_f16(f)))) << std::hex << bits;
            continue;
        }
        ASSERT_EQ(hs::f32_to_f16(f), h) << std::hex << bits;
    }
}

TEST(HalfConversion, Bf16RoundTripsEveryNonNanBitPattern) {
    for (std::uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
        const auto b = static_cast<std::uint16_t>(bits);
        const float f = hs::bf16_to_f32(b);
        if (std::isnan(f)) {
            EXPECT_TRUE(std::isnan(hs::bf16_to_f32(hs::f32_to_bf16(f)))) << std::hex << bits;
            continue;
        }
        ASSERT_EQ(hs::f32_to_bf16(f), b) << std::hex << bits;
    }
}

TEST(HalfConversion, F32ToF16RoundsToNearestEven) {
    struct Case { float in; std::uint16_t out; };
    const float two_m11 = std::ldexp(1.0f, -11);  // half an f16 ulp at 1.0
    for (const Case& c : {Case{1.0f, 0x3C00}, Case{-2.0f, 0xC000},
                          Case{1.0f + two_m11, 0x3C00},          // tie -> even (down)
                          Case{1.0f + 3 * two_m11, 0x3C02},      // tie -> even (up)
                          Case{1.0f + 1.5f * two_m11, 0x3C01},   // above the tie
                          Case{65504.0f, 0x7BFF}, Case{65520.0f, 0x7C00},  // tie rounds to inf
                          Case{1e6f, 0x7C00}, Case{-1e6f, 0xFC00},
                          Case{std::ldexp(1.0f, -24), 0x0001},
                          Case{std::ldexp(1.0f, -25), 0x0000},   // tie -> even zero
                          Case{std::ldexp(1.5f, -25), 0x0001},
                          Case{std::ldexp(1.0f, -30), 0x0000},
                          Case{std::ldexp(1023.5f, -24), 0x0400},  // rounds up into normals
                          Case{std::ldexp(1.0f, -14), 0x0400}}) {
        SCOPED_TRACE(testing::Message() << "in=" << c.in);
        EXPECT_EQ(hs::f32_to_f16(c.in), c.out);
    }
    EXPECT_TRUE(std::isnan(hs::f16_to_f32(hs::f32_to_f16(std::nanf("")))));
}

TEST(HalfConversion, F32ToBf16RoundsToNearestEven) {
    const float half_ulp = std::ldexp(1.0f, -8);  // bf16 ulp at 1.0 is 2^-7
    EXPECT_EQ(hs::f32_to_bf16(1.0f), 0x3F80);
    EXPECT_EQ(hs::f32_to_bf16(1.0f + half_ulp), 0x3F80);      // tie -> even
    EXPECT_EQ(hs::f32_to_bf16(1.0f + 3 * half_ulp), 0x3F82);  // tie -> even
    EXPECT_EQ(hs::f32_to_bf16(1.0f + 1.5f * half_ulp), 0x3F81);
    EXPECT_EQ(hs::f32_to_bf16(-3.0f), 0xC040);
}

// ---------------------------------------------------------------------------------------
// Malformed files: each gives its own message naming the file.

TEST_F(SafetensorsReader, RejectsFileShorterThanEightBytes) {
    expect_open_error(write_bytes("short.safetensors", "abcd"), {"too small", "4 bytes"});
}

TEST_F(SafetensorsReader, RejectsMissingFile) {
    expect_open_error(path("absent.safetensors"), {"cannot open", "No such file or directory"});
}

TEST_F(SafetensorsReader, RejectsHeaderLengthPastEndOfFile) {
    std::string bytes(8, '\0');
    bytes[0] = static_cast<char>(0xE8);  // 1000
    bytes[1] = 0x03;
    bytes += "{}  ";
    expect_open_error(write_bytes("long.safetensors", bytes),
                      {"header length 1000 runs past the end of the file", "12 bytes"});
}

TEST_F(SafetensorsReader, RejectsHugeHeaderLengthWithoutOverflow) {
    std::string bytes(8, static_cast<char>(0xFF));
    bytes += "{}";
    expect_open_error(write_bytes("huge.safetensors", bytes),
                      {"header length 18446744073709551615 runs past the end"});
}

TEST_F(SafetensorsReader, RejectsHeaderThatIsNotJson) {
    expect_open_error(write_raw("j.safetensors", "{not json", {}),
                      {"header is not valid JSON", "parse error"});
}

TEST_F(SafetensorsReader, RejectsHeaderThatIsNotAnObject) {
    expect_open_error(write_raw("arr.safetensors", "[1, 2]", {}),
                      {"header is not a JSON object (got array)"});
}

TEST_F(SafetensorsReader, RejectsEntryMissingRequiredField) {
    struct Case { const char* header; const char* missing; };
    for (const Case& c : {
             Case{R"({"t":{"shape":[1],"data_offsets":[0,4]}})", "\"dtype\""},
             Case{R"({"t":{"dtype":"F32","data_offsets":[0,4]}})", "\"shape\""},
             Case{R"({"t":{"dtype":"F32","shape":[1]}})", "\"data_offsets\""}}) {
        SCOPED_TRACE(c.header);
        expect_open_error(write_raw("m.safetensors", c.header, std::vector<std::uint8_t>(4, 0)),
                          {"tensor 't' is missing " + std::string(c.missing)});
    }
}

TEST_F(SafetensorsReader, RejectsEntryFieldsOfWrongJsonType) {
    struct Case { const char* header; const char* message; };
    for (const Case& c : {
             Case{R"({"t":5})", "tensor 't' is not a JSON object (got number)"},
             Case{R"({"t":{"dtype":32,"shape":[1],"data_offsets":[0,4]}})",
                  "\"dtype\" that is not a string (got number)"},
             Case{R"({"t":{"dtype":"F32","shape":"1","data_offsets":[0,4]}})",
                  "\"shape\" that is not an array (got string)"},
             Case{R"({"t":{"dtype":"F32","shape":[1.5],"data_offsets":[0,4]}})",
                  "non-integer dimension in \"shape\": 1.5"},
             Case{R"({"t":{"dtype":"F32","shape":[1],"data_offsets":[4]}})",
                  "\"data_offsets\" that is not a [begin, end] pair: [4]"},
             Case{R"({"t":{"dtype":"F32","shape":[1],"data_offsets":[-4,0]}})",
                  "\"data_offsets\" that are not non-negative integers"},
             Case{R"({"t":{"dtype":"F32","shape":[0],"data_offsets":[4,0]}})",
                  "begin after end"},
             Case{R"({"__metadata__":{"format":1}})",
                  "metadata value for \"format\" is not a string"},
             Case{R"({"__metadata__":[]})", "\"__metadata__\" is not a JSON object"}}) {
        SCOPED_TRACE(c.header);
        expect_open_error(write_raw("m.safetensors", c.header, std::vector<std::uint8_t>(4, 0)),
                          {c.message});
    }
}

TEST_F(SafetensorsReader, RejectsUnknownDtypeByName) {
    expect_open_error(
        write_raw("q4.safetensors", R"({"w":{"dtype":"Q4","shape":[1],"data_offsets":[0,8]}})",
                  std::vector<std::uint8_t>(8, 0)),
        {"tensor 'w' has unknown dtype Q4", "F32, F16, BF16"});
}

TEST_F(SafetensorsReader, OpensIntegerBuffersButRefusesToReadThemAsWeights) {
    // HF checkpoints may hold I64 buffers such as BERT's embeddings.position_ids.
    const std::string path = write_raw(
        "i64.safetensors",
        R"({"ids":{"dtype":"I64","shape":[1],"data_offsets":[0,8]},"w":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})",
        std::vector<std::uint8_t>{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x3F});
    const auto file = hs::SafetensorsFile::open(path);
    EXPECT_EQ(file->info("ids").dtype, hs::DType::I64);
    EXPECT_EQ(file->vector("w")(0), 1.0f);
    expect_error([&] { file->vector("ids"); }, {"tensor 'ids' has unsupported dtype I64"});
}

TEST_F(SafetensorsReader, RejectsNegativeDimensions) {
    expect_open_error(
        write_raw("neg.safetensors", R"({"t":{"dtype":"F32","shape":[-2,3],"data_offsets":[0,24]}})",
                  std::vector<std::uint8_t>(24, 0)),
        {"tensor 't' has negative dimension -2"});
}

TEST_F(SafetensorsReader, RejectsShapeTimesDtypeNotEqualToByteLength) {
    expect_open_error(
        write_raw("size.safetensors", R"({"t":{"dtype":"F32","shape":[2,3],"data_offsets":[0,20]}})",
                  std::vector<std::uint8_t>(20, 0)),
        {"tensor 't' has shape [2, 3] × F32 = 24 bytes", "span 20 bytes"});
}

TEST_F(SafetensorsReader, RejectsOffsetsOutsideDataBlock) {
    expect_open_error(
        write_raw("out.safetensors", R"({"t":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})",
                  std::vector<std::uint8_t>(4, 0)),
        {"tensor 't' has data_offsets [0, 8] outside the data block of 4 bytes"});
}

TEST_F(SafetensorsReader, RejectsOverlappingTensors) {
    expect_open_error(
        write_raw("overlap.safetensors",
                  R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                  R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                  std::vector<std::uint8_t>(12, 0)),
        {"tensors 'a' [0, 8) and 'b' [4, 12) overlap"});
}

TEST_F(SafetensorsReader, AcceptsAdjacentAndEmptyTensors) {
    const auto file = hs::SafetensorsFile::open(write_raw(
        "adj.safetensors",
        R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
        R"("e":{"dtype":"F32","shape":[0],"data_offsets":[2,2]},)"
        R"("b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
        {0, 0, 0x80, 0x3F, 0, 0, 0, 0x40}));  // 1.0f, 2.0f
    EXPECT_EQ(file->vector("a")(0), 1.0f);
    EXPECT_EQ(file->vector("b")(0), 2.0f);
    EXPECT_EQ(file->vector("e").size(), 0);
}

TEST_F(SafetensorsReader, AccessorsNameUnknownTensorAndWrongRank) {
    const std::string p = path("a.safetensors");
    hs::write_safetensors(p, {{"m", {2, 2}, {1, 2, 3, 4}}, {"c", {1, 1, 2}, {1, 2}}});
    const auto file = hs::SafetensorsFile::open(p);
    EXPECT_EQ(error_of([&] { file->info("nope"); }), p + " has no tensor named 'nope'");
    EXPECT_THROW(
        {
            try {
                file->vector("m");
            } catch (const hs::Error& e) {
                EXPECT_NE(std::string(e.what()).find("'m' has shape [2, 2], expected a 1-D tensor"),
                          std::string::npos)
                    << e.what();
                throw;
            }
        },
        hs::Error);
    EXPECT_THROW(file->matrix("c"), hs::Error);
}
