// The memory plan from the command line: HEADSCOPE_MEMORY_LIMIT makes this machine as small
// as a user's, so a GGUF file opens layer by layer (inspect says so before anything is
// read, bench and forward run so) or is refused with the sizes named.
//   tiny_llama.gguf: 29,600-odd parameters, 237 KB in memory (8 B each), about 100 KB
//   layer by layer (embedding 4 B each + one layer's f32 and F16/Q8_0 bytes).
#include <cstdlib>

#include <gtest/gtest.h>

#include "tests/cli_runner.h"

namespace hs::cli_test {
namespace {

const std::string kTiny = std::string(HEADSCOPE_FIXTURES_DIR) + "/gguf/tiny_llama.gguf";

struct MemoryLimit {
    explicit MemoryLimit(const char* limit) { ::setenv("HEADSCOPE_MEMORY_LIMIT", limit, 1); }
    ~MemoryLimit() { ::unsetenv("HEADSCOPE_MEMORY_LIMIT"); }
};

TEST(CliMemory, ASmallMachineOpensTheFileLayerByLayer) {
    TempDir dir;
    const MemoryLimit limit("128K");
    const RunResult i = run_headscope({"inspect", kTiny}, dir);
    ASSERT_EQ(i.status, 0) << i.err;
    EXPECT_NE(i.out.find("this machine: 0.1 MiB available: opens reading one layer at a time\n"), std::string::npos)
        << i.out;
    const RunResult b = run_headscope({"bench", kTiny, "--tokens", "6", "--repeat", "1"}, dir);
    ASSERT_EQ(b.status, 0) << b.err;
    EXPECT_NE(b.out.find("in GGUF, read one layer at a time\n"), std::string::npos) << b.out;
    const RunResult f = run_headscope({"forward", kTiny, "--text", "the cat sat", "--json", dir.file("t.json")}, dir);
    ASSERT_EQ(f.status, 0) << f.err;
}

TEST(CliMemory, AMachineTooSmallEvenLayerByLayerIsToldBothSizes) {
    TempDir dir;
    const MemoryLimit limit("16K");
    const RunResult i = run_headscope({"inspect", kTiny}, dir);
    ASSERT_EQ(i.status, 0) << i.err;  // inspect reads the header only
    EXPECT_NE(i.out.find(" available: does not open\n"), std::string::npos) << i.out;
    const RunResult f = run_headscope({"forward", kTiny, "--text", "the cat", "--json", dir.file("t.json")}, dir);
    EXPECT_NE(f.status, 0);
    EXPECT_NE(f.err.find("even read one layer at a time, but this machine has 0.0 GiB available"), std::string::npos)
        << f.err;
}

// A Hugging Face directory is described from config.json and the safetensors headers, with
// no tokenizer (the llama fixture has none): 22,688 parameters, 181 KB in memory, about
// 100 KB layer by layer.
TEST(CliMemory, AHuggingFaceDirectoryIsDescribedFromItsHeadersAndOpensLayerByLayer) {
    TempDir dir;
    const MemoryLimit limit("150K");
    const RunResult i = run_headscope({"inspect", std::string(HEADSCOPE_FIXTURES_DIR) + "/hf/llama"}, dir);
    ASSERT_EQ(i.status, 0) << i.err;
    for (const char* line : {"(Hugging Face llama checkpoint)\n", "tokenizer:  none: No tokenizer found", "tensors:    21 (F32 ×21)\n",
                             "parameters: 22688\n", "this machine: 0.1 MiB available: opens reading one layer at a time\n"})
        EXPECT_NE(i.out.find(line), std::string::npos) << line << "\n" << i.out;
}

TEST(CliMemory, ALimitThatIsNotASizeIsNamed) {
    TempDir dir;
    const MemoryLimit limit("lots");
    const RunResult f = run_headscope({"forward", kTiny, "--text", "the cat", "--json", dir.file("t.json")}, dir);
    EXPECT_NE(f.status, 0);
    EXPECT_NE(f.err.find("HEADSCOPE_MEMORY_LIMIT 'lots' is not a size"), std::string::npos) << f.err;
}

}  // namespace
}  // namespace hs::cli_test
