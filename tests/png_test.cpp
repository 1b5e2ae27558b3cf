// write_png / read_png round trip and error messages.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "core/error.h"
#include "core/image/png.h"
#include "tests/test_util.h"

namespace fs = std::filesystem;

namespace {

using hs::test::error_of;

hs::RgbImage pattern(int w, int h) {
    hs::RgbImage img(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            img.set(x, y, hs::Rgb8{static_cast<std::uint8_t>(x * 7), static_cast<std::uint8_t>(y * 13),
                                   static_cast<std::uint8_t>((x + y) * 3)});
    return img;
}

}  // namespace

TEST(Png, WriteThenReadBackIsIdentical) {
    const hs::test::TempDir tmp;
    const fs::path& dir = tmp.path();
    const std::string path = (dir / "img.png").string();
    const hs::RgbImage img = pattern(37, 21);
    hs::write_png(path, img);
    const hs::RgbImage back = hs::read_png(path);
    EXPECT_EQ(back.width(), 37);
    EXPECT_EQ(back.height(), 21);
    EXPECT_EQ(back.bytes(), img.bytes());
    // Atomic write leaves no temp file behind, and overwriting works.
    hs::write_png(path, pattern(5, 5));
    EXPECT_EQ(hs::read_png(path).width(), 5);
    int files = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++files;
    EXPECT_EQ(files, 1);
}

TEST(Png, MissingDirectoryIsAnError) {
    const std::string path = "/nonexistent_headscope_dir/out.png";
    EXPECT_EQ(error_of([&] { hs::write_png(path, pattern(2, 2)); }),
              "cannot write /nonexistent_headscope_dir/out.png: directory "
              "/nonexistent_headscope_dir does not exist");
}

TEST(Png, ParentThatIsAFileIsAnError) {
    const hs::test::TempDir tmp;
    const fs::path& dir = tmp.path();
    const fs::path file = dir / "plain";
    std::ofstream(file) << "x";
    const std::string path = (file / "out.png").string();
    EXPECT_EQ(error_of([&] { hs::write_png(path, pattern(2, 2)); }),
              "cannot write " + path + ": " + file.string() + " is not a directory");
}

TEST(Png, UnwritableDirectoryIsAnError) {
    // A read-only directory stops normal users; root writes anywhere except sysfs, which
    // refuses new files even to root — so the test checks a real refusal either way.
    const hs::test::TempDir tmp;
    std::string path;
    fs::path dir;
    if (::geteuid() == 0) {
        path = "/sys/headscope_out.png";
    } else {
        dir = tmp.path();
        fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec);
        path = (dir / "out.png").string();
    }
    EXPECT_EQ(error_of([&] { hs::write_png(path, pattern(2, 2)); }),
              "cannot write " + path + ": Permission denied");
    if (!dir.empty()) fs::permissions(dir, fs::perms::owner_all);  // so it can be removed
}

TEST(Png, EmptyImageIsAnError) {
    EXPECT_EQ(error_of([&] { hs::write_png("/tmp/never.png", hs::RgbImage()); }),
              "cannot write /tmp/never.png: the image is empty (0x0 pixels)");
}

TEST(Png, ReadingMissingOrNonPngFileIsAnError) {
    EXPECT_EQ(error_of([&] { hs::read_png("/nonexistent_headscope.png"); }),
              "cannot read /nonexistent_headscope.png: no such file");
    const hs::test::TempDir tmp;
    const fs::path& dir = tmp.path();
    const std::string path = (dir / "bad.png").string();
    std::ofstream(path) << "not a png";
    EXPECT_THROW(hs::read_png(path), hs::Error);
}
