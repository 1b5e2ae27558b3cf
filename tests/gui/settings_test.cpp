// Settings persistence (app/settings.*): the recent-models list survives a save / load.
#include <filesystem>
#include <fstream>
#include <iterator>

#include <sys/stat.h>

#include <gtest/gtest.h>

#include "app/settings.h"
#include "core/error.h"

namespace hs {
namespace {

// 1600×1000 on a 1366×768 laptop (work area 1366×740 under a 28-pixel panel) opens as
// 1366×700; at content scale 2 on a 2560×1440 screen (work area 2560×1400) the window
// units halve the room (1280×660); a window that fits stays; an unknown work area keeps
// the size; a tiny work area never pushes the window below 320×240.
TEST(Settings, WindowSizeShrinksToTheMonitorsWorkArea) {
    const auto fit = [](WindowSize w, int ww, int wh, float s) {
        const WindowSize f = fit_to_work_area(w, ww, wh, s);
        return std::pair{f.width, f.height};
    };
    EXPECT_EQ(fit({1600, 1000}, 1366, 740, 1.0f), std::pair(1366, 700));
    EXPECT_EQ(fit({1600, 1000}, 2560, 1400, 2.0f), std::pair(1280, 660));
    EXPECT_EQ(fit({1280, 720}, 1920, 1040, 1.0f), std::pair(1280, 720));
    EXPECT_EQ(fit({1600, 1000}, 0, 0, 1.0f), std::pair(1600, 1000));
    EXPECT_EQ(fit({1600, 1000}, 200, 100, 1.0f), std::pair(320, 240));
}

TEST(Settings, RecentModelsRoundTripNewestFirst) {
    std::string path =
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

TEST(Settings, ExportFolderFigureOptionsAndTheSelectedHeadRoundTrip) {
    std::string path =
        (std::filesystem::temp_directory_path() / ("hs_settings_fig_" + std::to_string(::getpid())) / "s.json").string();
    AppState state;
    EXPECT_EQ(state.figure_scale, 1);
    EXPECT_TRUE(state.figure_values);
    state.export_dir = "/tmp/figures for the paper";
    state.figure_scale = 4;
    state.figure_values = false;
    state.layer = 2;  // and the selected head
    state.head = 5;
    ASSERT_EQ(save_settings(path, state, WindowSize{}), "");
    AppState loaded;
    WindowSize size;
    EXPECT_EQ(load_settings(path, loaded, size), "");
    EXPECT_EQ(loaded.export_dir, "/tmp/figures for the paper");
    EXPECT_EQ(loaded.figure_scale, 4);
    EXPECT_FALSE(loaded.figure_values);
    EXPECT_EQ(loaded.layer, 2);
    EXPECT_EQ(loaded.head, 5);
    std::filesystem::remove_all(std::filesystem::path(path).parent_path());
}

TEST(Settings, RecentModelsKeepAtMostTen) {
    AppState state;
    for (int i = 0; i < 15; ++i) state.remember_model("/m/" + std::to_string(i));
    ASSERT_EQ(state.recent_models.size(), AppState::kMaxRecent);
    EXPECT_EQ(state.recent_models.front(), "/m/14");
    EXPECT_EQ(state.recent_models.back(), "/m/5");
}

TEST(Settings, CorruptRecentModelsAreIgnoredWithANotice) {
    std::string path =
        (std::filesystem::temp_directory_path() / ("hs_settings_bad_" + std::to_string(::getpid()) + ".json")).string();
    std::ofstream(path) << R"({"recent_models": [1, 2]})";
    AppState state;
    state.remember_model("/kept");
    WindowSize size;
    const std::string notice = load_settings(path, state, size);
    EXPECT_NE(notice.find("Ignored corrupt settings file"), std::string::npos) << notice;
    EXPECT_EQ(state.recent_models, (std::vector<std::string>{"/kept"}));
    // Moved aside before exit rewrites the settings: the user's file is not lost.
    EXPECT_NE(notice.find("kept as " + path + ".bad"), std::string::npos) << notice;
    EXPECT_FALSE(std::filesystem::exists(path));
    std::ifstream bad(path + ".bad");
    std::string content((std::istreambuf_iterator<char>(bad)), std::istreambuf_iterator<char>());
    EXPECT_EQ(content, R"({"recent_models": [1, 2]})");
    std::filesystem::remove(path + ".bad");
}

TEST(Settings, FieldsOfTheWrongTypeAreNamedAndChangeNothing) {
    AppState state;
    state.text = "kept";
    WindowSize size;
    const auto message_of = [&](const std::string& json) {
        try {
            apply_settings_json(json, "s.json", state, size);
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(message_of(R"({"text": "new", "model": 3})"), "\"model\" must be a string, not number");
    EXPECT_EQ(message_of(R"({"window": [1e300, 5]})"), "\"window\" must hold two integers [width, height]");
    EXPECT_EQ(message_of(R"({"window": {"w": 1}})"), "\"window\" must hold two integers [width, height]");
    EXPECT_EQ(message_of(R"({"recent_models": {"a": "/m"}})"), "\"recent_models\" must be an array of paths");
    EXPECT_EQ(message_of("[1]"), "the top level of s.json is not an object");
    EXPECT_EQ(message_of(R"({"figure_scale": 3})"), "\"figure_scale\" must be 1, 2 or 4");
    EXPECT_EQ(message_of(R"({"figure_values": "yes"})"), "\"figure_values\" must be true or false");
    EXPECT_EQ(message_of(R"({"head": -1})"), "\"head\" must be a whole number from 0");
    EXPECT_EQ(message_of(R"({"layer": 1.5})"), "\"layer\" must be a whole number from 0");
    EXPECT_NE(message_of(R"({"d": 1e400})").find("s.json is not valid JSON"), std::string::npos);
    EXPECT_EQ(state.text, "kept");
    EXPECT_EQ(size.width, 1600);
}

TEST(Settings, WindowSidesAreClampedToWhatAScreenCanShow) {
    AppState state;
    WindowSize size;
    apply_settings_json(R"({"window": [2147483647000, -5]})", "s.json", state, size);
    EXPECT_EQ(size.width, kMaxWindowSide);
    EXPECT_EQ(size.height, kMinWindowHeight);
}

TEST(Settings, AFifoInPlaceOfTheFileIsIgnoredWithoutWaiting) {
    const std::string fifo =
        (std::filesystem::temp_directory_path() / ("hs_settings_fifo_" + std::to_string(::getpid()))).string();
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
    AppState state;
    WindowSize size;
    std::string path = fifo;
    const std::string notice = load_settings(path, state, size);
    EXPECT_TRUE(std::filesystem::is_fifo(fifo));  // not moved aside
    std::filesystem::remove(fifo);
    EXPECT_NE(notice.find("it is a FIFO (named pipe), not a regular file"), std::string::npos) << notice;
    EXPECT_EQ(path, "") << "exit must not write over a file that could not be read";
}

TEST(Settings, ACorruptFileBehindASymlinkIsMovedAsideUnderAFreeName) {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("hs_settings_link_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string target = (dir / "real.json").string(), link = (dir / "settings.json").string();
    std::ofstream(target) << "{oops";
    std::ofstream(target + ".bad") << "an earlier corrupt file";
    std::filesystem::create_symlink(target, link);
    AppState state;
    WindowSize size;
    std::string path = link;
    const std::string notice = load_settings(path, state, size);
    EXPECT_NE(notice.find("kept as " + target + ".bad.1"), std::string::npos) << notice;
    EXPECT_TRUE(std::filesystem::is_symlink(link));  // the link itself stays
    std::ifstream earlier(target + ".bad"), moved(target + ".bad.1");
    std::string a((std::istreambuf_iterator<char>(earlier)), std::istreambuf_iterator<char>());
    std::string b((std::istreambuf_iterator<char>(moved)), std::istreambuf_iterator<char>());
    EXPECT_EQ(a, "an earlier corrupt file");
    EXPECT_EQ(b, "{oops");
    EXPECT_EQ(path, link);  // the next save writes through the link
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace hs
