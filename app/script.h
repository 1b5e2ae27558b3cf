#pragma once
// Scripted UI actions (--script FILE), one per line, run between frames once the
// previous action's recomputation has finished. Blank lines and # comments are skipped.
//   set KEY VALUE      d_model, heads, layers, d_ff, seed, mask, arch, pe, norm, act
//   model MODEL        playground spec, model directory or worked example .json
//   text TEXT          input text (rest of the line)
//   continue N         decoder LMs: append N greedy tokens to the text (worker), recompute
//   dump-state PATH    app state as JSON (app/state_dump.h)
//   select layer N | select head N | select map self|decoder-self|cross
//   colormap NAME
//   tab pipeline|layers|export
//   edit x|w_in|w_out ROW COL VALUE   worked example cell edit (recomputes)
//   export-png PATH | export-grid PATH | export-csv PATH | export-json PATH
//   screenshot PATH    the window after the next frame
//   expect-error       the last edit must have produced a validation/compute error
//   quit
#include <string>
#include <vector>

#include "app/context.h"

namespace hs {

class ScriptRunner {
public:
    // Throws hs::Error when the file cannot be read.
    explicit ScriptRunner(const std::string& path);
    bool finished() const { return next_ >= lines_.size(); }
    // Runs the next action if the app is idle. Returns false and sets `error` on failure.
    bool step(AppContext& ctx);
    const std::string& error() const { return error_; }
    // Screenshot path requested by the last action ("" = none); cleared when taken.
    std::string take_screenshot_request();

private:
    std::vector<std::string> lines_;
    std::size_t next_ = 0;
    std::string error_;
    std::string screenshot_;
};

}  // namespace hs
