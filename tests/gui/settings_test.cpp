// Settings persistence (app/settings.*): the recent-models list survives a save / load.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "app/settings.h"

namespace hs {
namespace {

TEST(Settings, RecentModelsRoundTripNewestFirst) {
    const std::string path =
        (std::filesystem::temp_directory_path() / ("hs_settings_" + std::to_string(::getpid())) / "s.json").string();
    AppState state;
    state.remember_model("/m/a.bin");
    state.remember_model("/m/gpt2");
    state.remember_model("/m/a.bin");  // reopened: moves to the front, no duplicate
    ASSERT_EQ(state.recent_models, (std::vector<std::string>{"/m/a.bin", "/m/gpt2"}));
    ASSERT_EQ(save_settings(path, state, WindowSize{}), "");
    AppState loaded;
    WindowSize size;
    EXPECT_EQ(load_settings(path, loaded, size), "");
    EXPECT_EQ(loaded.recent_models, (std::vector<std::string>{"/m/a.bin", "/m/gpt2"}));
}

TEST(Settings, RecentModelsKeepAtMostTen) {
    AppState state;
    for (int i = 0; i < 15; ++i) state.remember_model("/m/" + std::to_string(i));
    ASSERT_EQ(state.recent_models.size(), AppState::kMaxRecent);
    EXPECT_EQ(state.recent_models.front(), "/m/14");
    EXPECT_EQ(state.recent_models.back(), "/m/5");
}

TEST(Settings, CorruptRecentModelsAreIgnoredWithANotice) {
    const std::string path =
        (std::filesystem::temp_directory_path() / ("hs_settings_bad_" + std::to_string(::getpid()) + ".json")).string();
    std::ofstream(path) << R"({"recent_models": [1, 2]})";
    AppState state;
    state.remember_model("/kept");
    WindowSize size;
    const std::string notice = load_settings(path, state, size);
    EXPECT_NE(notice.find("Ignored corrupt settings file"), std::string::npos) << notice;
    EXPECT_EQ(state.recent_models, (std::vector<std::string>{"/kept"}));
}

}  // namespace
}  // namespace hs
