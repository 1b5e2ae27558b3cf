#pragma once
// The app's state as JSON (script action `dump-state PATH`), for GUI tests: the model
// opened and its info, the text and its tokens, the selection, next-token predictions,
// the KV head each query head reads and the captions the grid shows for them.
#include <string>

#include <nlohmann/json.hpp>

#include "app/context.h"

namespace hs {

nlohmann::json dump_state(const AppContext& ctx);

}  // namespace hs
