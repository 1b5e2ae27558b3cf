#pragma once
// Scripted UI actions (--script FILE), one per line, run between frames once the
// previous action's recomputation has finished. Blank lines and # comments are skipped.
// The actions are one table in script.cpp (ScriptRunner::actions: name, usage, handler);
// `headscope --script-actions` prints it and docs/SCRIPTING.md, the user's reference, is
// checked against it (tests/run_script_actions_doc_test.sh).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/context.h"
#include "app/keys.h"

namespace hs {

class ScriptRunner {
public:
    // Throws hs::Error when the file cannot be read or holds no commands.
    explicit ScriptRunner(const std::string& path);
    // Every action ran and no screenshot or click is still waiting for its frames.
    bool finished() const {
        return next_ >= lines_.size() && screenshot_.empty() && click_.empty() && !keyboard_pending();
    }
    // Runs the next action if the app is idle. Returns false and sets `error` on failure.
    bool step(AppContext& ctx);
    const std::string& error() const { return error_; }
    // The window's error after the last action, with the line that caused it, unless an
    // expect-error line acknowledged it ("" when there is none): ends the run with status 1.
    std::string unexpected_error(const AppContext& ctx) const;
    // Screenshot path requested by the last action ("" = none), handed out a few frames
    // after the request (tab switches and layout changes settle first); cleared when taken.
    std::string take_screenshot_request();
    // The widget the last action asked to click ("" = none); the script hook plays the
    // pointer over it (move, press, release) before the next action runs.
    const std::string& click_request() const { return click_; }
    void click_done() { click_.clear(); }
    // A key the last action asked to press (`key NAME`), or characters to type (`type
    // TEXT`); the script hook plays them on the keyboard before the next action runs.
    struct KeyboardRequest {
        std::optional<Key> key;
        std::string typed;  // UTF-8
    };
    const KeyboardRequest& keyboard_request() const { return keyboard_; }
    bool keyboard_pending() const { return keyboard_.key || !keyboard_.typed.empty(); }
    void keyboard_done() { keyboard_ = {}; }

    // (name, usage) of every action, in docs/SCRIPTING.md's order.
    static std::vector<std::pair<std::string, std::string>> action_usages();

private:
    // What a handler sees of its line: the app, the action's name and the rest of the line.
    struct Line {
        AppContext& ctx;
        AppState& s;
        const std::string& name;
        const std::string& rest;
    };
    struct Action {
        const char* name;
        const char* usage;  // the arguments, as docs/SCRIPTING.md writes them
        void (*run)(ScriptRunner& runner, Line& line);
    };
    static const std::vector<Action>& actions();
    // The table's parts, in the order docs/SCRIPTING.md lists them.
    static std::vector<Action> input_actions();
    static std::vector<Action> view_actions();
    static std::vector<Action> analysis_actions();
    static std::vector<Action> training_actions();
    static std::vector<Action> output_actions();

    std::vector<std::string> lines_;
    std::size_t next_ = 0;
    std::string error_;
    std::string expected_error_text_;  // the error expect-error acknowledged: later lines may run on
    std::string screenshot_;
    int screenshot_delay_ = 0;  // frames left before the screenshot is taken
    std::string click_;
    KeyboardRequest keyboard_;
    int reveal_tries_ = 0;  // frames spent scrolling the widget of a `click` into view
    int type_tries_ = 0;    // frames spent waiting for a text field to take the keyboard
    // Frames to wait before the next action after a view or tab switch: ImGui shows a tab
    // selected by flag one frame later, and a dump should see it drawn.
    int settle_frames_ = 0;
    // dump-state describes a settled layout: it draws three frames, then dumps
    // (ImGui measures a window's content a frame behind its layout).
    bool dump_settled_ = false;
};

// One line per action: "name usage" (headscope --script-actions).
std::string script_actions_usage();

}  // namespace hs
