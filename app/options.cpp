#include "app/options.h"

#include <cstdio>
#include <cstring>

#include "app/i18n/i18n.h"
#include "core/error.h"

namespace hs {
namespace {

int parse_int(const std::string& option, const std::string& value) {
    try {
        std::size_t used = 0;
        const int v = std::stoi(value, &used);
        if (used == value.size()) return v;
    } catch (const std::exception&) {
    }
    throw Error("option " + option + " needs a whole number, got '" + value + "'.");
}

}  // namespace

std::string gui_usage() {
    return "headscope [OPTIONS] [PATH]: the window (no command); PATH, an existing model file or\n"
           "directory, is opened as --model PATH would (what \"Open with\" in a file manager passes). Options:\n"
           "  --model MODEL         what to open: default (the learned bilingual model), random:…, a model\n"
           "                        directory, a .bin or a worked example .json (see MODEL below)\n"
           "  --text TEXT           the input text      --decoder-text TEXT   an encoder-decoder's decoder input\n"
           "  --layer L, --head H   the head the heatmap shows (0-based)\n"
           "  --colormap NAME       viridis, magma, inferno, greys, redblue\n"
           "  --size WxH            window size in pixels (default 1600x1000, or the last session's,\n"
           "                        shrunk to fit the screen; --size is kept as given)\n"
           "  --lang en|zh          the interface language: English or 简体中文 (remembered)\n"
           "  --no-settings         neither read nor write settings.json (a clean first launch)\n"
           "  --script FILE         run UI actions, one per line (docs/SCRIPTING.md), then close\n"
           "  --script-actions      list the actions a script may use, with their arguments\n"
           "  --screenshot FILE     save the window as PNG after --frames N frames (default 1) and quit\n"
           "  --layout FILE         with --screenshot: write the panels' rectangles as JSON\n"
           "  --hidden              no visible window (scripts, screenshots)\n"
           "  measuring: --frames N --bench-frames N --bench-view all|heatmap|grid --bench-pan --bench-busy\n"
           "             --bench-train --bench-edits N --bench-edit heads|d_model --timing (docs/PERFORMANCE.md)\n";
}

GuiOptions parse_gui_options(int argc, char** argv) {
    GuiOptions o;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw Error("option " + arg + " needs a value.");
            return argv[++i];
        };
        if (arg == "--model") o.model = value();
        else if (arg == "--text") o.text = value();
        else if (arg == "--decoder-text") o.decoder_text = value();
        else if (arg == "--layer" || arg == "--head") {
            const int v = parse_int(arg, value());
            if (v < 0) throw Error("option " + arg + " needs a layer or head number from 0, got " + std::to_string(v) + ".");
            (arg == "--layer" ? o.layer : o.head) = v;
        }
        else if (arg == "--screenshot") o.screenshot = value();
        else if (arg == "--layout") o.layout = value();
        else if (arg == "--frames") o.frames = parse_int(arg, value());
        else if (arg == "--bench-frames") o.bench_frames = parse_int(arg, value());
        else if (arg == "--bench-view") o.bench_view = value();
        else if (arg == "--bench-pan") o.bench_pan = true;
        else if (arg == "--bench-busy") o.bench_busy = true;
        else if (arg == "--bench-train") o.bench_train = true;
        else if (arg == "--bench-edits") o.bench_edits = parse_int(arg, value());
        else if (arg == "--bench-edit") o.bench_edit = value();
        else if (arg == "--script") o.script = value();
        else if (arg == "--colormap") o.colormap = value();
        else if (arg == "--no-settings") o.no_settings = true;
        else if (arg == "--lang") o.lang = to_string(parse_ui_lang(value()));
        else if (arg == "--hidden") o.hidden = true;
        else if (arg == "--timing") o.timing = true;
        else if (arg == "--size") {
            const std::string v = value();
            const auto x = v.find('x');
            if (x == std::string::npos) throw Error("option --size needs WIDTHxHEIGHT, got '" + v + "'.");
            o.width = parse_int(arg, v.substr(0, x));
            o.height = parse_int(arg, v.substr(x + 1));
            // Below 320×240 no panel fits; above 16384 a framebuffer exceeds GL's limits.
            if (o.width < 320 || o.height < 240 || o.width > 16384 || o.height > 16384)
                throw Error("option --size must be between 320x240 and 16384x16384, got '" + v + "'.");
            o.size_given = true;
        } else if (!arg.empty() && arg[0] != '-') {
            // A model file or directory to open, as "Open with" and a file manager pass it.
            if (!o.model.empty())
                throw Error("give one model to open: '" + o.model + "' and '" + arg + "' (or --model once).");
            o.model = arg;
        } else {
            throw Error("unknown option '" + arg + "'; run 'headscope --help' for the options.");
        }
    }
    if (o.frames < 1) throw Error("option --frames needs at least 1 frame.");
    if (o.bench_view != "all" && o.bench_view != "heatmap" && o.bench_view != "grid")
        throw Error("option --bench-view must be all, heatmap or grid, got '" + o.bench_view + "'.");
    if (o.bench_edit != "heads" && o.bench_edit != "d_model")
        throw Error("option --bench-edit must be heads or d_model, got '" + o.bench_edit + "'.");
    if (o.bench_edits < 0) throw Error("option --bench-edits needs 0 or more edits, got " + std::to_string(o.bench_edits) + ".");
    const int modes = int(o.bench_pan) + int(o.bench_busy) + int(o.bench_train) + int(o.bench_edits > 0);
    if (modes > 1)
        throw Error("options --bench-pan, --bench-busy, --bench-train and --bench-edits measure different things: pick one.");
    // --bench-pan / --bench-busy / --bench-train time --bench-frames frames (300 unless given).
    if ((o.bench_pan || o.bench_busy || o.bench_train) && o.bench_frames <= 0) o.bench_frames = 300;
    if (o.bench_edits > 0 && o.bench_frames > 0)
        throw Error("option --bench-edits times edits, not frames: drop --bench-frames.");
    return o;
}

}  // namespace hs
