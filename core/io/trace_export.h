#pragma once
// Trace -> JSON (DESIGN §5 schema) and CSV, shared by the CLI and the app's Export panel.
//   {"tokens": [...], "ids": [...], "config": {...}, "model": "...", "input": [[...]],
//    "layers": [{"heads": [{"weights": [[...]]}], "output": [[...]]}],
//    "final_output": [[...]],
//    "decoder": {"tokens", "ids", "input", "layers": [{"heads", "cross_heads", "output"}]}}
#include <string>

#include <nlohmann/json.hpp>

#include "core/model/trace.h"

namespace hs {

nlohmann::json matrix_to_json(const Matrix& m);
nlohmann::json trace_to_json(const Trace& trace);
// Every intermediate of one attention block ("steps" in the trace JSON; −∞ masked
// scores are written as null, since JSON has no infinity).
nlohmann::json steps_to_json(const AttentionSteps& steps);

// One attention map as CSV: a header row of key tokens, then one row per query token
// ("query,key0,key1,…"). Tokens are quoted with "" escaping.
std::string weights_to_csv(const Matrix& weights, const std::vector<std::string>& query_tokens,
                           const std::vector<std::string>& key_tokens);

}  // namespace hs
