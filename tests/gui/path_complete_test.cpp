// The Model panel's path completion (app/path_complete.*): entries of the typed
// directory matching the typed prefix, only what HeadScope can open or descend into.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "app/path_complete.h"

namespace hs {
namespace {

namespace fs = std::filesystem;

// tmp/{gpt2/config.json, gpt2_bf16/, stories.bin, notes.txt, example.json, .hidden/}
fs::path make_tree() {
    const fs::path root = fs::temp_directory_path() / ("hs_complete_" + std::to_string(::getpid()));
    fs::remove_all(root);
    fs::create_directories(root / "gpt2");
    fs::create_directories(root / "gpt2_bf16");
    fs::create_directories(root / ".hidden");
    std::ofstream(root / "gpt2" / "config.json") << "{}";
    std::ofstream(root / "stories.bin") << "x";
    std::ofstream(root / "notes.txt") << "x";
    std::ofstream(root / "example.json") << "{}";
    return root;
}

std::vector<std::string> paths(const std::vector<PathMatch>& m) {
    std::vector<std::string> out;
    for (const PathMatch& x : m) out.push_back(x.path);
    return out;
}

TEST(PathComplete, ListsEntriesOfTheTypedDirectoryStartingWithThePrefix) {
    const std::string dir = make_tree().string() + "/";
    const auto m = complete_path(dir + "gp");
    EXPECT_EQ(paths(m), (std::vector<std::string>{dir + "gpt2/", dir + "gpt2_bf16/"}));
    ASSERT_EQ(m.size(), 2u);
    EXPECT_TRUE(m[0].directory);
    EXPECT_TRUE(m[0].model) << "gpt2/ has a config.json";
    EXPECT_FALSE(m[1].model) << "gpt2_bf16/ has none";
    EXPECT_EQ(m[0].name, "gpt2");
}

TEST(PathComplete, ListsOnlyDirectoriesBinAndJsonAndHidesDotEntries) {
    const std::string dir = make_tree().string() + "/";
    EXPECT_EQ(paths(complete_path(dir)),
              (std::vector<std::string>{dir + "example.json", dir + "gpt2/", dir + "gpt2_bf16/", dir + "stories.bin"}));
    const auto bin = complete_path(dir + "st");
    ASSERT_EQ(bin.size(), 1u);
    EXPECT_TRUE(bin[0].model) << "a .bin opens as a llama2.c checkpoint";
    EXPECT_FALSE(bin[0].directory);
    EXPECT_EQ(paths(complete_path(dir + ".h")), (std::vector<std::string>{dir + ".hidden/"}));
}

TEST(PathComplete, RespectsTheLimitAndMissingDirectoriesGiveNothing) {
    const std::string dir = make_tree().string() + "/";
    EXPECT_EQ(complete_path(dir, 2).size(), 2u);
    EXPECT_TRUE(complete_path(dir + "no_such_dir/x").empty());
}

TEST(PathComplete, CommonPrefixIsWhatTabCompletesToWithSeveralMatches) {
    const std::string dir = make_tree().string() + "/";
    EXPECT_EQ(common_prefix(complete_path(dir + "g")), dir + "gpt2");
    EXPECT_EQ(common_prefix({}), "");
}

}  // namespace
}  // namespace hs
