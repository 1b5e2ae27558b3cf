#include "app/settings.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/io/atomic_file.h"
#include "core/error.h"

namespace hs {

std::string default_settings_path() {
    const char* xdg = std::getenv("XDG_CONFIG_HOME");
    std::filesystem::path base;
    if (xdg && *xdg) base = xdg;
    else if (const char* home = std::getenv("HOME"); home && *home) base = std::filesystem::path(home) / ".config";
    else return {};
    return (base / "headscope" / "settings.json").string();
}

std::string load_settings(const std::string& path, AppState& state, WindowSize& size) {
    if (path.empty() || !std::filesystem::exists(path)) return {};
    try {
        std::ifstream in(path);
        std::stringstream ss;
        ss << in.rdbuf();
        const nlohmann::json j = nlohmann::json::parse(ss.str());
        if (!j.is_object()) throw Error("the top level is not an object");
        // Parse everything first, so a bad field leaves the state untouched.
        AppState next = state;
        WindowSize next_size = size;
        if (j.contains("model")) next.set_model_arg(j.at("model").get<std::string>());
        if (j.contains("text")) next.text = j.at("text").get<std::string>();
        if (j.contains("decoder_text")) next.decoder_text = j.at("decoder_text").get<std::string>();
        if (j.contains("recent_models")) {
            next.recent_models.clear();
            for (const auto& m : j.at("recent_models")) next.remember_model(m.get<std::string>());
            std::reverse(next.recent_models.begin(), next.recent_models.end());
        }
        if (j.contains("colormap")) next.colormap = parse_colormap(j.at("colormap").get<std::string>());
        if (j.contains("window")) {
            next_size.width = std::max(320, j.at("window").at(0).get<int>());
            next_size.height = std::max(240, j.at("window").at(1).get<int>());
        }
        state = std::move(next);
        size = next_size;
        return {};
    } catch (const std::exception& e) {
        return "Ignored corrupt settings file " + path + " (" + e.what() + ").";
    }
}

std::string save_settings(const std::string& path, const AppState& state, const WindowSize& size) {
    if (path.empty()) return {};
    nlohmann::json j;
    j["model"] = state.model_arg();
    j["text"] = state.text;
    j["decoder_text"] = state.decoder_text;
    j["colormap"] = to_string(state.colormap);
    j["recent_models"] = state.recent_models;
    j["window"] = {size.width, size.height};
    try {
        std::filesystem::create_directories(std::filesystem::path(path).parent_path());
        write_file_atomic(path, j.dump(2) + "\n");
        return {};
    } catch (const std::exception& e) {
        return e.what();
    }
}

}  // namespace hs
