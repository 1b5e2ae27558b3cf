#include "app/state.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "core/error.h"
#include "core/io/file_names.h"

namespace hs {

std::string home_dir() {
    const char* home = std::getenv("HOME");
    return home ? home : "";
}

std::string typed_path(const std::string& typed) { return expand_home(typed, home_dir()); }

std::string selection_notice(int asked_layer, int asked_head, const AppState& state) {
    std::string notice;
    if (asked_layer >= 0 && state.layer != asked_layer)
        notice = "Layer " + std::to_string(asked_layer) + " does not exist; showing layer " +
                 std::to_string(state.layer) + ".";
    if (asked_head >= 0 && state.head != asked_head)
        notice += (notice.empty() ? "" : " ") + std::string("Head ") + std::to_string(asked_head) +
                  " does not exist; showing head " + std::to_string(state.head) + ".";
    return notice;
}

void SelectionNoticeKeeper::show(AppState& state, const std::string& notice) {
    state.notice = notice_ = notice;
    model_ = state.model_arg();
}

void SelectionNoticeKeeper::drop_when_model_changes(AppState& state) {
    if (notice_.empty()) return;
    if (state.notice == notice_ && state.model_arg() == model_) return;
    if (state.notice == notice_) state.notice.clear();
    notice_.clear();  // replaced, dismissed or dropped: nothing more to watch
}

std::string default_export_dir() {
    const std::string home = home_dir();
    if (!home.empty()) return (std::filesystem::path(home) / "Pictures" / "HeadScope").string();
    return "headscope-exports";
}

AppState::ModelChoice AppState::model_choice() const {
    return {source, config, example_path, model_dir, edited_example, trained_run, trained_step};
}

std::string AppState::model_arg() const { return model_choice().arg(); }

std::string AppState::ModelChoice::arg() const {
    switch (source) {
        case SourceKind::Playground: return to_playground_spec(config);
        case SourceKind::WorkedExample: return example_path;
        case SourceKind::ModelDirectory: return model_dir;
        case SourceKind::Default: return "default";
        case SourceKind::Trained:
            return "training run " + std::to_string(trained_run) + ", step " + std::to_string(trained_step);
    }
    return {};
}

void AppState::set_model_arg(const std::string& arg) {
    edited_example.reset();
    if (arg == "default") {
        source = SourceKind::Default;
    } else if (arg.rfind("random:", 0) == 0) {
        config = parse_playground_spec(arg);
        source = SourceKind::Playground;
    } else if (arg.size() > 5 && arg.compare(arg.size() - 5, 5, ".json") == 0) {
        example_path = arg;
        source = SourceKind::WorkedExample;
    } else {
        model_dir = arg;
        source = SourceKind::ModelDirectory;
    }
    if (!view_before_open) view_before_open = ViewBeforeOpen{map, layer, head, ablated};
    layer = 0;
    head = 0;
    map = MapKind::Self;
    pending_continue = 0;
    ablated.clear();  // head indices of another model mean nothing
    dirty = true;
}

void AppState::restore_view_before_open() {
    if (!view_before_open) return;
    map = view_before_open->map;
    layer = view_before_open->layer;
    head = view_before_open->head;
    ablated = std::move(view_before_open->ablated);
    view_before_open.reset();
}

void AppState::keep_shown_model(const std::string& arg, const std::string& why) {
    restore_view_before_open();
    failed_model_arg = arg;
    open_error = why;
    dirty = true;
}

void AppState::toggle_ablation(const HeadRef& head) {
    const auto it = std::find(ablated.begin(), ablated.end(), head);
    if (it == ablated.end()) ablated.push_back(head);
    else ablated.erase(it);
    dirty = true;
}

bool AppState::is_ablated(int layer, int head) const {
    return std::find(ablated.begin(), ablated.end(), HeadRef{layer, head, false, false}) != ablated.end();
}

void AppState::remember_model(const std::string& path) {
    if (path.empty()) return;
    recent_models.erase(std::remove(recent_models.begin(), recent_models.end(), path), recent_models.end());
    recent_models.insert(recent_models.begin(), path);
    if (recent_models.size() > kMaxRecent) recent_models.resize(kMaxRecent);
}

}  // namespace hs
