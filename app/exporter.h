#pragma once
// Export of the current selection through core's exporters (same LUTs as the screen).
// Every function writes atomically and returns the path written; throws hs::Error.
#include <string>

#include "app/state.h"
#include "core/model/trace.h"

namespace hs {

struct TraceView;

// PNG of the selected head with labels, colour bar and a title naming model/layer/head
// (of view.trace; a block the map budget dropped once its maps are recomputed).
// `note`, when given, receives what the image changed ("" or the shrink_note of maps
// drawn as block means to fit).
std::string export_head_png(const TraceView& view, const AppState& state, const std::string& path,
                            std::string* note = nullptr);
// PNG of every layer × head of the selected map kind.
std::string export_grid_png(const Trace& trace, const AppState& state, const std::string& path,
                            std::string* note = nullptr);
// CSV of the selected head's weights (header row of key tokens).
std::string export_head_csv(const TraceView& view, const AppState& state, const std::string& path);
// The whole trace as JSON (DESIGN §5 schema).
std::string export_trace_json(const Trace& trace, const std::string& path);
// "<model kind> L<layer> H<head>" title used by the PNG exports.
std::string export_title(const Trace& trace, const AppState& state);

}  // namespace hs
