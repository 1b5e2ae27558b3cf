#include "app/script.h"

#include <fstream>
#include <sstream>

#include "app/exporter.h"
#include "app/panels/panels.h"
#include "app/state_dump.h"
#include "core/io/atomic_file.h"
#include "core/error.h"

namespace hs {
namespace {

int to_int(const std::string& key, const std::string& v) {
    try {
        std::size_t used = 0;
        const int x = std::stoi(v, &used);
        if (used == v.size()) return x;
    } catch (const std::exception&) {
    }
    throw Error("'" + key + "' needs a whole number, got '" + v + "'");
}

void set_config(AppState& s, const std::string& key, const std::string& value) {
    ModelConfig& c = s.config;
    if (key == "d_model") c.d_model = to_int(key, value);
    else if (key == "heads") c.heads = to_int(key, value);
    else if (key == "layers") c.layers = to_int(key, value);
    else if (key == "d_ff") c.d_ff = to_int(key, value);
    else if (key == "seed") c.seed = static_cast<std::uint64_t>(to_int(key, value));
    else if (key == "mask") c.mask = parse_mask(value);
    else if (key == "arch") c.arch = parse_arch(value);
    else if (key == "pe") c.pe = parse_pos_encoding(value);
    else if (key == "norm") c.norm = parse_norm_placement(value);
    else if (key == "act") c.activation = parse_activation(value);
    else throw Error("unknown setting '" + key + "'");
    s.source = SourceKind::Playground;
    s.dirty = true;
}

}  // namespace

ScriptRunner::ScriptRunner(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw Error("cannot read script " + path + ".");
    std::string line;
    while (std::getline(in, line)) {
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
        if (line.empty() || line[0] == '#') continue;
        lines_.push_back(line);
    }
}

std::string ScriptRunner::take_screenshot_request() {
    std::string out;
    out.swap(screenshot_);
    return out;
}

bool ScriptRunner::step(AppContext& ctx) {
    if (finished()) return true;
    const std::string line = lines_[next_++];
    std::istringstream ss(line);
    std::string cmd;
    ss >> cmd;
    std::string rest;
    std::getline(ss >> std::ws, rest);
    AppState& s = ctx.state;
    try {
        if (cmd == "set") {
            std::istringstream kv(rest);
            std::string key, value;
            kv >> key >> value;
            set_config(s, key, value);
        } else if (cmd == "model") {
            s.set_model_arg(rest);
        } else if (cmd == "continue") {
            const int n = to_int("continue", rest);
            if (n < 1) throw Error("continue needs at least 1 token, got " + rest);
            s.pending_continue = n;
            s.dirty = true;
        } else if (cmd == "dump-state") {
            write_file_atomic(rest, dump_state(ctx).dump(2) + "\n");
        } else if (cmd == "text") {
            s.text = rest;
            s.dirty = true;
        } else if (cmd == "select") {
            std::istringstream kv(rest);
            std::string what, value;
            kv >> what >> value;
            if (what == "layer") s.layer = to_int(what, value);
            else if (what == "head") s.head = to_int(what, value);
            else if (what == "map")
                s.map = value == "self" ? MapKind::Self
                        : value == "decoder-self" ? MapKind::DecoderSelf
                        : value == "cross" ? MapKind::DecoderCross
                                           : throw Error("map must be self, decoder-self or cross");
            else throw Error("select needs layer, head or map");
            if (ctx.view.trace) {
                const int layer = s.layer, head = s.head;
                clamp_selection(s, *ctx.view.trace);
                if (layer != s.layer || head != s.head)
                    throw Error("the trace has no layer " + std::to_string(layer) + " head " + std::to_string(head));
            }
        } else if (cmd == "edit") {
            std::istringstream kv(rest);
            std::string which;
            int r = 0, c = 0;
            float v = 0.0f;
            if (!(kv >> which >> r >> c >> v)) throw Error("edit needs: x|w_in|w_out ROW COL VALUE");
            const Editable e = which == "x" ? Editable::X : which == "w_in" ? Editable::WIn
                               : which == "w_out" ? Editable::WOut : throw Error("edit x, w_in or w_out");
            edit_worked_example_cell(s, e, r, c, v);
        } else if (cmd == "tab") {
            if (rest != "pipeline" && rest != "layers" && rest != "export")
                throw Error("tab must be pipeline, layers or export");
            s.select_tab = rest;
        } else if (cmd == "colormap") {
            s.colormap = parse_colormap(rest);
        } else if (cmd == "export-png" || cmd == "export-grid" || cmd == "export-csv" || cmd == "export-json") {
            if (!ctx.view.trace) throw Error("nothing to export: no trace");
            if (!s.config_errors.empty()) throw Error("cannot export while the config is invalid: " + s.config_errors.front());
            const Trace& t = *ctx.view.trace;
            if (cmd == "export-png") ctx.export_status.last_path = export_head_png(t, s, rest);
            else if (cmd == "export-grid") ctx.export_status.last_path = export_grid_png(t, s, rest);
            else if (cmd == "export-csv") ctx.export_status.last_path = export_head_csv(t, s, rest);
            else ctx.export_status.last_path = export_trace_json(t, rest);
        } else if (cmd == "screenshot") {
            screenshot_ = rest;
        } else if (cmd == "expect-error") {
            if (s.config_errors.empty() && ctx.view.error.empty())
                throw Error("expected a validation or compute error, but there is none");
        } else if (cmd == "quit") {
            next_ = lines_.size();
        } else {
            throw Error("unknown command '" + cmd + "'");
        }
    } catch (const std::exception& e) {
        error_ = "line '" + line + "': " + e.what();
        return false;
    }
    return true;
}

}  // namespace hs
