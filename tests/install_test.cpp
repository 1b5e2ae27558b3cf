// `cmake --install` of this build into a fresh prefix: the layout packaging/CMakeLists.txt
// promises, and the installed binary run from another directory finds its own assets
// (core/assets.h), not the source tree's.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "tests/cli_runner.h"

namespace hs::cli_test {
namespace {

TEST(Install, LaysOutTheDesktopFilesAndRunsFromAnywhere) {
    TempDir dir("headscope_install");
    const std::string prefix = dir.file("prefix");
    const RunResult install = run_program(HEADSCOPE_CMAKE_COMMAND, {"--install", HEADSCOPE_BUILD_DIR, "--prefix", prefix}, dir);
    ASSERT_EQ(install.status, 0) << install.out << install.err;
    for (const char* file : {"bin/headscope", "share/headscope/assets/samples.json",
                             "share/headscope/assets/models/default/model.safetensors",
                             "share/headscope/assets/examples/article_two_heads.json",
                             "share/applications/headscope.desktop", "share/metainfo/org.headscope.HeadScope.metainfo.xml",
                             "share/icons/hicolor/scalable/apps/headscope.svg", "share/mime/packages/headscope.xml",
                             "share/doc/headscope/copyright", "share/doc/headscope/changelog.gz"})
        EXPECT_TRUE(std::filesystem::is_regular_file(prefix + "/" + file)) << file;

    // Run from an unrelated directory: the assets are the installed ones.
    TempDir elsewhere;
    const std::string binary = prefix + "/bin/headscope";
    RunResult r = run_program(binary, {"--version"}, elsewhere);
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string installed_assets =
        std::filesystem::weakly_canonical(prefix + "/share/headscope/assets").string();
    EXPECT_NE(r.out.find("assets                   " + installed_assets + "\n"), std::string::npos) << r.out;
    r = run_program(binary, {"forward", "default", "--text", "the cat is hungry", "--json", "out.json"}, elsewhere);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(std::filesystem::is_regular_file(elsewhere.file("out.json")));
}

}  // namespace
}  // namespace hs::cli_test
