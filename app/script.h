#pragma once
// Scripted UI actions (--script FILE), one per line, run between frames once the
// previous action's recomputation has finished. Blank lines and # comments are skipped.
// docs/SCRIPTING.md is the user's reference: keep it in step with this list.
//   set KEY VALUE      any key of a random: spec (core set_spec_key: d_model, heads, norm, kv_heads, …)
//   model MODEL        default, playground spec, model directory or worked example .json
//   drop PATH          as if PATH were dropped on the window (model file/dir or text file)
//   text TEXT          input text (rest of the line)
//   continue N         decoder LMs: append N greedy tokens to the text (worker), recompute
//   dump-state PATH    app state as JSON (app/state_dump.h), analysis results included
//   select layer N | select head N | select map self|decoder-self|cross
//   colormap NAME
//   tab pipeline|layers|export
//   edit x|w_in|w_out ROW COL VALUE   worked example cell edit (recomputes)
//   export-png PATH | export-grid PATH | export-csv PATH | export-json PATH
//   analyze            head analysis of the current trace (waits for the result)
//   ablate L.H | restore L.H | restore all   switch a head off / on (recomputes)
//   ablate-mode zero|mean
//   rank-heads         ablate each head in turn (analysis worker), sorted by effect
//   corpus samples|FILE   corpus mode over the English samples or the lines of FILE
//   relations grammar|samples   relation probes of the current model (waits for the result)
//   relations-show RELATION LANG   that relation's best head, on a LANG sample with gold arcs
//   view attention|analysis | analysis-tab heads|plots|similarity|ablation|rollout|relations
//   export-metrics-csv PATH | export-analysis-json PATH
//   export-analysis-png jsd|rollout|METRIC PATH
//   screenshot PATH    the window after the next frame
//   expect-error       the last edit must have produced a validation/compute error (without
//                      it, a line whose recomputation fails ends the run with that error)
//   quit
#include <string>
#include <vector>

#include "app/context.h"

namespace hs {

class ScriptRunner {
public:
    // Throws hs::Error when the file cannot be read or holds no commands.
    explicit ScriptRunner(const std::string& path);
    // Every action ran and no screenshot or click is still waiting for its frames.
    bool finished() const { return next_ >= lines_.size() && screenshot_.empty() && click_.empty(); }
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

private:
    std::vector<std::string> lines_;
    std::size_t next_ = 0;
    std::string error_;
    std::string expected_error_text_;  // the error expect-error acknowledged: later lines may run on
    std::string screenshot_;
    int screenshot_delay_ = 0;  // frames left before the screenshot is taken
    std::string click_;
    int reveal_tries_ = 0;  // frames spent scrolling the widget of a `click` into view
    // Frames to wait before the next action after a view or tab switch: ImGui shows a tab
    // selected by flag one frame later, and a dump should see it drawn.
    int settle_frames_ = 0;
};

}  // namespace hs
