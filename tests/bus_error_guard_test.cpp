// A memory map read past its file's end (another program cut the file short after it was
// mapped) is a SIGBUS: inside kernels::run_unless_bus_error it stops the function, which
// returns false, and pread then names what was lost; outside, it still ends the process.
#include "core/kernels/bus_error_guard.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <chrono>

#include "core/io/read_only_file.h"
#include "core/kernels/parallel.h"
#include "core/kernels/stored_matrix.h"
#include "tests/test_util.h"

namespace hs {
namespace {

namespace fs = std::filesystem;

const std::size_t kPage = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));

// DIR/two_pages: two pages of the byte 7.
std::string two_pages(const test::TempDir& dir) {
    const std::string path = dir.file("two_pages");
    test::write_text(path, std::string(2 * kPage, '\7'));
    return path;
}

TEST(BusErrorGuard, AReadPastTheFileEndStopsTheFunctionNotTheProcess) {
    test::TempDir dir;
    const std::string path = two_pages(dir);
    const ReadOnlyFile file(path, "test file");
    const std::uint8_t* bytes = file.mapped(0, 2 * kPage);
    ASSERT_NE(bytes, nullptr);
    EXPECT_EQ(file.mapped(kPage, kPage + 1), nullptr);  // past the size at open: not mapped
    volatile int value = 0;
    EXPECT_TRUE(kernels::run_unless_bus_error([&] { value = bytes[kPage + 3]; }));
    EXPECT_EQ(value, 7);
    EXPECT_TRUE(kernels::run_unless_bus_error([&] { value = bytes[kPage + 4] + 1; }));
    EXPECT_EQ(value, 8);

    fs::resize_file(path, kPage);  // the second page is gone from the file, so from the map
    const int stopped = kernels::bus_errors_stopped();
    volatile bool ran_on = false;
    EXPECT_FALSE(kernels::run_unless_bus_error([&] {
        value = bytes[kPage + 5];
        ran_on = true;
    }));
    EXPECT_FALSE(ran_on);
    EXPECT_EQ(kernels::bus_errors_stopped(), stopped + 1);
    // The guard holds again after a stop, and the first page still reads.
    EXPECT_TRUE(kernels::run_unless_bus_error([&] { value = bytes[1]; }));
    EXPECT_EQ(value, 7);
    EXPECT_FALSE(kernels::run_unless_bus_error([&] { value = bytes[2 * kPage - 1]; }));
    // What the caller does then: read again, which names the tensor; the size check too.
    std::uint8_t byte = 0;
    test::expect_error([&] { file.read(kPage + 5, 1, &byte, "w"); },
                       {"two_pages changed while it was read: it ends before tensor 'w'"});
    test::expect_error([&] { file.require_holds(kPage - 1, 2, "w"); }, {"ends before tensor 'w'"});
    // The bytes of the first page are still there, but the file changed since it opened.
    test::expect_error([&] { file.require_holds(0, kPage, "w"); },
                       {"two_pages changed while it was read: another program rewrote it", "tensor 'w'"});
}

// A file larger than the memory available when it opened lets its mapped pages go after
// use (they could not all stay); a smaller one keeps them. Either way they read the same.
TEST(BusErrorGuard, OnlyAFileLargerThanTheMemoryAvailableLetsItsMappedPagesGo) {
    test::TempDir dir;
    const std::string path = two_pages(dir);
    const char* before = std::getenv("HEADSCOPE_MEMORY_LIMIT");
    const std::string saved = before ? before : "";
    ::unsetenv("HEADSCOPE_MEMORY_LIMIT");
    EXPECT_FALSE(ReadOnlyFile(path, "test file").releases_pages());
    ::setenv("HEADSCOPE_MEMORY_LIMIT", "4K", 1);  // one page: the file is larger
    const ReadOnlyFile file(path, "test file");
    if (before) ::setenv("HEADSCOPE_MEMORY_LIMIT", saved.c_str(), 1);
    else ::unsetenv("HEADSCOPE_MEMORY_LIMIT");
    EXPECT_TRUE(file.releases_pages());
    const std::uint8_t* bytes = file.mapped(0, 2 * kPage);
    ASSERT_NE(bytes, nullptr);
    volatile int value = 0;
    EXPECT_TRUE(kernels::run_unless_bus_error([&] { value = bytes[kPage + 3]; }));
    file.release(0, 2 * kPage);  // the pages leave the process; read again, they come back
    EXPECT_TRUE(kernels::run_unless_bus_error([&] { value = value + bytes[kPage + 4]; }));
    EXPECT_EQ(value, 14);
}

// The products read a weight where it lies in its file's map; the file then cut short
// under them is an error naming the file and tensor, whether the cut leaves whole pages
// of the weight (a SIGBUS, stopped) or only part of one (zeros where the file ended); and
// a file rewritten in place (the same size again) is named as changed, not used.
TEST(BusErrorGuard, AWeightCutShortUnderTheProductsIsAnErrorNamingTheTensor) {
    constexpr int kRows = 512, kCols = 512;  // 512 KiB of BF16, 128 pages; 8 rows: both threads
    std::string bytes(static_cast<std::size_t>(kRows) * kCols * 2, '\0');
    for (std::size_t i = 1; i < bytes.size(); i += 2) bytes[i] = '\x3f';  // every value 0.5 (0x3f00)
    const Matrix x = Matrix::Ones(8, kCols);
    for (const std::size_t cut : {bytes.size() / 2, bytes.size() - 100}) {  // 64 pages lost; 100 bytes
        SCOPED_TRACE(cut);
        test::TempDir dir;
        const std::string path = dir.file("w.bin");
        test::write_text(path, bytes);
        const ReadOnlyFile file(path, "test file");  // the StoredBytes of tensor 'w', as a reader's
        const std::string name = "w";
        StoredRows rows{0, kRows, StoredType::BF16, kCols * 2};
        rows.source = &file;
        rows.name = &name;
        const StoredMatrix w{kRows, kCols, {rows}};
        Matrix y(8, kRows), y1(1, kRows);
        matmul_nt(x, w, nullptr, y);
        EXPECT_EQ(y, Matrix::Constant(8, kRows, 0.5f * kCols));

        fs::resize_file(path, cut);
        const int stopped = kernels::bus_errors_stopped();
        // 8 rows (panels laid out, gemm::nn_stored) and 1 (rows dotted, gemm::nt_stored)
        test::expect_error([&] { matmul_nt(x, w, nullptr, y); },
                           {"w.bin changed while it was read: it ends before tensor 'w'"});
        test::expect_error([&] { matmul_nt(x.topRows(1), w, nullptr, y1); }, {"ends before tensor 'w'"});
        if (cut == bytes.size() / 2) {  // whole pages lost: the SIGBUS was stopped
            EXPECT_GT(kernels::bus_errors_stopped(), stopped);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));  // past the clock's tick
        fs::resize_file(path, 0);
        test::write_text(path, bytes);  // whole again, but rewritten since it was opened
        test::expect_error([&] { matmul_nt(x, w, nullptr, y); },
                           {"w.bin changed while it was read: another program rewrote it"});
    }
}

// Only a guarded call is stopped: a SIGBUS anywhere else ends the process as it would
// without the handler (by the signal, or by the sanitizer's report under ASan).
TEST(BusErrorGuardDeathTest, ASigbusOutsideAGuardedCallStillEndsTheProcess) {
    const std::string style = GTEST_FLAG_GET(death_test_style);
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    test::TempDir dir;
    const std::string path = two_pages(dir);
    const ReadOnlyFile file(path, "test file");
    const volatile std::uint8_t* bytes = file.mapped(0, 2 * kPage);
    ASSERT_NE(bytes, nullptr);
    EXPECT_TRUE(kernels::run_unless_bus_error([] {}));  // the handler is installed
    fs::resize_file(path, kPage);
    EXPECT_DEATH((void)bytes[kPage + 5], "");
    GTEST_FLAG_SET(death_test_style, style);
}

}  // namespace
}  // namespace hs
