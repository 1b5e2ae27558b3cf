#pragma once
// Command-line options of the window (no subcommand): scripted and measured runs.
#include <string>

namespace hs {

struct GuiOptions {
    std::string model;            // --model MODEL (playground spec, directory, example .json)
    std::string text;             // --text TEXT
    std::string decoder_text;     // --decoder-text TEXT
    int layer = -1, head = -1;    // --layer L --head H
    std::string screenshot;       // --screenshot FILE
    std::string layout;           // --layout FILE: JSON of where the heatmap was drawn
    int frames = 3;               // --frames N: frames rendered (after the first result)
    int bench_frames = 0;         // --bench-frames N: print p50/p95/max frame ms and exit
    std::string bench_view = "all";  // --bench-view all|heatmap|grid: panels drawn
    bool bench_pan = false;       // --bench-pan: pan/zoom the heatmap every timed frame
    bool bench_busy = false;      // --bench-busy: keep the worker recomputing the trace
    bool bench_train = false;     // --bench-train: frames drawn while the Train view trains
                                  // and time the frames drawn while it computes
    int bench_edits = 0;          // --bench-edits N: N live edits, edit -> new maps on screen
    std::string bench_edit = "heads";  // --bench-edit heads|d_model: what the edits halve/restore
    std::string script;           // --script FILE: one UI action per line (app/script.h)
    int width = 1600, height = 1000;  // --size WxH
    std::string colormap;         // --colormap NAME
    bool size_given = false;      // --size was on the command line (it wins over the settings)
    std::string lang;             // --lang en|zh (normalised), "" = the settings' or English
    bool no_settings = false;     // --no-settings: neither read nor write settings.json
    bool hidden = false;          // --hidden: invisible window (screenshots still work)
    bool timing = false;          // --timing: print load / forward ms and the frame times
                                  // while the worker computed, on exit
};

// Throws hs::Error naming the bad option.
GuiOptions parse_gui_options(int argc, char** argv);
std::string gui_usage();

}  // namespace hs
