#include "app/settings.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <cstdint>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "app/i18n/i18n.h"
#include "core/io/atomic_file.h"
#include "core/io/json_file.h"
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

namespace {

std::string string_at(const nlohmann::json& j, const char* key) {
    const nlohmann::json& v = j.at(key);
    if (!v.is_string()) throw Error(std::string("\"") + key + "\" must be a string, not " + v.type_name());
    return v.get<std::string>();
}

// A window side: an integer clamped to [low, kMaxWindowSide].
int window_side(const nlohmann::json& v, int low) {
    if (!v.is_number_integer()) throw Error("\"window\" must hold two integers [width, height]");
    return static_cast<int>(std::clamp<std::int64_t>(v.get<std::int64_t>(), low, kMaxWindowSide));
}

// The selected layer or head: a whole number ≥ 0 (the first trace clamps it to the model).
int selection_at(const nlohmann::json& j, const char* key) {
    const nlohmann::json& v = j.at(key);
    if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::int64_t>() > 1'000'000)
        throw Error(std::string("\"") + key + "\" must be a whole number from 0");
    return static_cast<int>(v.get<std::int64_t>());
}

}  // namespace

void apply_settings_json(const std::string& text, const std::string& origin, AppState& state, WindowSize& size) {
    const nlohmann::json j = parse_json_text(text, origin);
    if (!j.is_object()) throw Error("the top level of " + origin + " is not an object");
    // Parse everything first, so a bad field leaves the state untouched.
    AppState next = state;
    WindowSize next_size = size;
    if (j.contains("model")) next.set_model_arg(string_at(j, "model"));
    if (j.contains("text")) next.text = string_at(j, "text");
    if (j.contains("decoder_text")) next.decoder_text = string_at(j, "decoder_text");
    if (j.contains("recent_models")) {
        const nlohmann::json& recent = j.at("recent_models");
        if (!recent.is_array()) throw Error("\"recent_models\" must be an array of paths");
        next.recent_models.clear();
        for (const auto& m : recent) {  // oldest last in the file: remember from the end
            if (!m.is_string()) throw Error("\"recent_models\" must be an array of paths");
            next.remember_model(m.get<std::string>());
        }
        std::reverse(next.recent_models.begin(), next.recent_models.end());
    }
    if (j.contains("colormap")) next.colormap = parse_colormap(string_at(j, "colormap"));
    if (j.contains("export_dir")) next.export_dir = string_at(j, "export_dir");
    if (j.contains("figure_scale")) {
        const nlohmann::json& f = j.at("figure_scale");
        if (!f.is_number_integer() || (f != 1 && f != 2 && f != 4))
            throw Error("\"figure_scale\" must be 1, 2 or 4");
        next.figure_scale = f.get<int>();
    }
    if (j.contains("figure_values")) {
        if (!j.at("figure_values").is_boolean()) throw Error("\"figure_values\" must be true or false");
        next.figure_values = j.at("figure_values").get<bool>();
    }
    if (j.contains("layer")) next.layer = selection_at(j, "layer");
    if (j.contains("head")) next.head = selection_at(j, "head");
    if (j.contains("ui_lang")) next.ui_lang = to_string(parse_ui_lang(string_at(j, "ui_lang")));
    if (j.contains("ui_zoom")) {
        const nlohmann::json& z = j.at("ui_zoom");
        if (!z.is_number() || !(z.get<double>() >= AppState::kMinZoom - 1e-6 && z.get<double>() <= AppState::kMaxZoom + 1e-6))
            throw Error("\"ui_zoom\" must be a number from 0.6 to 2.5");
        next.ui_zoom = std::clamp(z.get<float>(), AppState::kMinZoom, AppState::kMaxZoom);
    }
    if (j.contains("window")) {
        const nlohmann::json& w = j.at("window");
        if (!w.is_array() || w.size() != 2) throw Error("\"window\" must hold two integers [width, height]");
        next_size.width = window_side(w[0], kMinWindowWidth);
        next_size.height = window_side(w[1], kMinWindowHeight);
    }
    state = std::move(next);
    size = next_size;
}

std::string load_settings(std::string& path, AppState& state, WindowSize& size) {
    std::error_code ec;
    if (path.empty() || !std::filesystem::exists(path, ec)) return {};
    std::string text;
    try {
        text = read_file(path);
    } catch (const Error& e) {
        // Unreadable (permissions, a FIFO, too large): left alone, and not written over on exit.
        const std::string notice = std::string(e.what()) + "; settings of this session are not saved.";
        path.clear();
        return notice;
    }
    try {
        apply_settings_json(text, path, state, size);
        return {};
    } catch (const Error& e) {
        // Exit rewrites the settings: the corrupt file (through a symlink: the file it
        // points to) is moved aside first under a name no earlier .bad file has.
        std::string kept;
        try {
            const std::filesystem::path target = resolve_links(path);
            std::filesystem::path bad = target.string() + ".bad";
            for (int n = 1; std::filesystem::exists(std::filesystem::symlink_status(bad, ec)) && n < 1000; ++n)
                bad = target.string() + ".bad." + std::to_string(n);
            if (!std::filesystem::exists(std::filesystem::symlink_status(bad, ec)) &&
                std::rename(target.c_str(), bad.c_str()) == 0)
                kept = "; kept as " + bad.string();
        } catch (const Error&) {
        }
        const std::string notice = "Ignored corrupt settings file " + path + " (" + e.what() + ")";
        if (kept.empty()) {
            path.clear();  // could not move it aside: keep it as it is
            kept = "; left in place (settings of this session are not saved)";
        }
        return notice + kept + ".";
    }
}

WindowSize fit_to_work_area(WindowSize wanted, int work_width, int work_height, float content_scale) {
    if (work_width <= 0 || work_height <= 0) return wanted;
    const float scale = content_scale > 0.0f ? content_scale : 1.0f;
    constexpr int kTitleBar = 40;
    const int max_width = std::max(kMinWindowWidth, static_cast<int>(static_cast<float>(work_width) / scale));
    const int max_height = std::max(kMinWindowHeight, static_cast<int>(static_cast<float>(work_height) / scale) - kTitleBar);
    return {std::clamp(wanted.width, kMinWindowWidth, max_width), std::clamp(wanted.height, kMinWindowHeight, max_height)};
}

std::string save_settings(const std::string& path, const AppState& state, const WindowSize& size) {
    if (path.empty()) return {};
    nlohmann::json j;
    // A trained snapshot lives only as long as its run: the playground is saved instead.
    j["model"] = state.source == SourceKind::Trained ? to_playground_spec(state.config) : state.model_arg();
    j["text"] = state.text;
    j["decoder_text"] = state.decoder_text;
    j["colormap"] = to_string(state.colormap);
    j["recent_models"] = state.recent_models;
    j["window"] = {size.width, size.height};
    j["export_dir"] = state.export_dir;
    j["figure_scale"] = state.figure_scale;
    j["figure_values"] = state.figure_values;
    j["ui_zoom"] = state.ui_zoom;
    j["ui_lang"] = state.ui_lang;
    j["layer"] = state.layer;  // the selected head, shown again at the next start
    j["head"] = state.head;
    try {
        std::filesystem::create_directories(std::filesystem::path(path).parent_path());
        write_file_atomic(path, j.dump(2) + "\n");
        return {};
    } catch (const std::exception& e) {
        return e.what();
    }
}

}  // namespace hs
