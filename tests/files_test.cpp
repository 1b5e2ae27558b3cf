// Files from anywhere, written anywhere (issue 12): symbolic links, FIFOs and devices,
// files that shrink while read, endless inputs, JSON numbers out of range, and output
// lost on standard output. Each test failed (or crashed, or hung) before its fix.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "core/error.h"
#include "core/io/atomic_file.h"
#include "core/io/json_file.h"
#include "core/io/safetensors.h"
#include "tests/test_util.h"

namespace hs {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

std::string message_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "(no hs::Error)";
}

TEST(AtomicWrite, WritesThroughASymbolicLinkAndKeepsTheLink) {
    TempDir dir;
    const std::string target = dir.file("real.csv"), link = dir.file("link.csv");
    write_file_atomic(target, "old");
    fs::create_symlink("real.csv", link);  // relative, as users make them
    write_file_atomic(link, "new");
    EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link)));
    EXPECT_EQ(read_file(target), "new");
    EXPECT_EQ(read_file(link), "new");
}

TEST(AtomicWrite, RefusesAFifoAndLeavesItAFifo) {
    TempDir dir;
    const std::string fifo = dir.file("pipe");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
    const std::string msg = message_of([&] { write_file_atomic(fifo, "x"); });
    EXPECT_NE(msg.find("cannot write " + fifo + ": it is a FIFO (named pipe), not a regular file"),
              std::string::npos) << msg;
    EXPECT_TRUE(fs::is_fifo(fifo));
}

TEST(AtomicWrite, NamesDevicesAndDirectoriesAsNotRegularFiles) {
    // Classification only: a regression here must not replace a real device node.
    EXPECT_EQ(special_file_kind("/dev/null"), "a character device");
    TempDir dir;
    EXPECT_EQ(special_file_kind(dir.path().string()), "a directory");
    EXPECT_EQ(special_file_kind(dir.file("absent")), "");
    write_file_atomic(dir.file("plain"), "x");
    EXPECT_EQ(special_file_kind(dir.file("plain")), "");
    const std::string msg = message_of([&] { write_file_atomic(dir.path().string(), "x"); });
    EXPECT_NE(msg.find("it is a directory, not a regular file"), std::string::npos) << msg;
}

TEST(AtomicWrite, TheNullDeviceTakesTheBytesAndStaysTheNullDevice) {
    // `--json /dev/null` (and a link to it): everything is produced, nothing is kept, and the
    // device node is never replaced by a file.
    bool produced = false;
    write_file_atomic("/dev/null", [&](const PutBytes& put) {
        put("abc", 3);
        produced = true;
    });
    EXPECT_TRUE(produced);
    EXPECT_EQ(special_file_kind("/dev/null"), "a character device");
    TempDir dir;
    fs::create_symlink("/dev/null", dir.file("sink"));
    write_file_atomic(dir.file("sink"), "x");
    EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dir.file("sink"))));
    EXPECT_TRUE(is_null_device("/dev/null"));
    EXPECT_FALSE(is_null_device("/dev/zero"));  // another character device: still refused
    const std::string msg = message_of([] { write_file_atomic("/dev/zero", "x"); });
    EXPECT_NE(msg.find("cannot write /dev/zero: it is a character device, not a regular file"), std::string::npos) << msg;
}

TEST(ReadFile, StopsAtItsLimit) {
    TempDir dir;
    write_file_atomic(dir.file("big"), std::string((std::size_t{1} << 20) + 1, 'x'));
    const std::string msg = message_of([&] { (void)read_file(dir.file("big"), std::size_t{1} << 20, "a text file"); });
    EXPECT_EQ(msg, dir.file("big") + " holds more than 1 MiB, the limit for a text file");
}

TEST(JsonFile, ANumberOutOfRangeIsReportedWithTheFileName) {
    const std::string msg = message_of([] { (void)parse_json_text("{\"d_model\": 1e400}", "m/config.json"); });
    EXPECT_NE(msg.find("m/config.json is not valid JSON"), std::string::npos) << msg;
}

TEST(JsonFile, AFifoIsRefusedWithoutWaitingForAWriter) {
    TempDir dir;
    const std::string fifo = dir.file("config.json");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
    const std::string msg = message_of([&] { (void)read_json_file(fifo); });
    EXPECT_EQ(msg, "cannot read " + fifo + ": it is a FIFO (named pipe), not a regular file");
}

TEST(ReadFile, RefusesAFifoADeviceAndADirectoryBeforeReading) {
    TempDir dir;
    const std::string fifo = dir.file("merges.txt");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
    EXPECT_EQ(message_of([&] { (void)read_file(fifo); }),
              "cannot read " + fifo + ": it is a FIFO (named pipe), not a regular file");
    EXPECT_EQ(message_of([] { (void)read_file("/dev/zero"); }),
              "cannot read /dev/zero: it is a character device, not a regular file");
    EXPECT_EQ(message_of([&] { (void)read_file(dir.path().string()); }),
              "cannot read " + dir.path().string() + ": it is a directory, not a regular file");
}

TEST(ReadTextFile, ReadsAPipeToItsEndAndStopsAnEndlessDeviceAtTheTextLimit) {
    TempDir dir;
    const std::string fifo = dir.file("text");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
    std::thread writer([&] { std::ofstream(fifo) << "a piped sentence"; });
    EXPECT_EQ(read_text_file(fifo), "a piped sentence");
    writer.join();
    EXPECT_EQ(message_of([] { (void)read_text_file("/dev/zero"); }),
              "/dev/zero holds more than 64 MiB, the limit for a text file");
}

class SafetensorsFiles : public testing::Test {
protected:
    std::string write_model(const std::string& name) {
        const std::string p = dir_.file(name);
        write_safetensors(p, {{"w", {2, 3}, {1, 2, 3, 4, 5, 6}}, {"empty", {0}, {}}});
        return p;
    }
    TempDir dir_;
};

TEST_F(SafetensorsFiles, AFifoIsRefusedWithoutWaitingForAWriter) {
    const std::string fifo = dir_.file("model.safetensors");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
    const std::string msg = message_of([&] { (void)SafetensorsFile::open(fifo); });
    EXPECT_EQ(msg, fifo + " is a FIFO (named pipe), not a safetensors file");
}

TEST_F(SafetensorsFiles, AFileThatShrinksWhileOpenIsAnErrorNotSigbus) {
    const std::string p = write_model("model.safetensors");
    const auto file = SafetensorsFile::open(p);
    EXPECT_EQ(file->matrix("w")(1, 2), 6.0f);
    // Another program rewrites the file shorter while HeadScope holds it open.
    fs::resize_file(p, 16);
    const std::string msg = message_of([&] { (void)file->matrix("w"); });
    EXPECT_NE(msg.find(p + " changed while it was read: it ends before tensor 'w'"), std::string::npos) << msg;
}

TEST_F(SafetensorsFiles, AnEmptyTensorReadsAsEmpty) {
    const auto file = SafetensorsFile::open(write_model("model.safetensors"));
    EXPECT_EQ(file->vector("empty").size(), 0);
}

TEST_F(SafetensorsFiles, AHeaderNumberOutOfRangeNamesTheFile) {
    const std::string header = R"({"w":{"dtype":"F32","shape":[1e400],"data_offsets":[0,4]}})";
    std::string bytes(8, '\0');
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((header.size() >> (8 * i)) & 0xFF);
    bytes += header + std::string(4, '\0');
    const std::string p = dir_.file("bad.safetensors");
    std::ofstream(p, std::ios::binary) << bytes;
    const std::string msg = message_of([&] { (void)SafetensorsFile::open(p); });
    EXPECT_NE(msg.find(p + ": header is not valid JSON"), std::string::npos) << msg;
}

// Exit status and stderr of `headscope ARGS > /dev/full` (through the shell).
std::pair<int, std::string> run_into_dev_full(const std::string& args) {
    TempDir dir;
    const std::string err = dir.file("err.txt");
    const std::string cmd = std::string(HEADSCOPE_CLI_BINARY) + " " + args + " > /dev/full 2> " + err;
    const int status = std::system(cmd.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, test::read_text(err)};
}

TEST(CliOutput, OutputLostOnStandardOutputIsAnError) {
    for (const std::string args : {"inspect random:d_model=32,heads=2,layers=1",
                                   "forward random:d_model=32,heads=2,layers=1 --text 'a b' --json -",
                                   "export random:d_model=32,heads=2,layers=1 --text 'a b' --layer 0 --head 0 --csv -"}) {
        SCOPED_TRACE(args);
        const auto [status, err] = run_into_dev_full(args);
        EXPECT_EQ(status, 1);
        EXPECT_NE(err.find("cannot write the output to standard output: No space left on device"),
                  std::string::npos) << err;
    }
}

}  // namespace
}  // namespace hs
