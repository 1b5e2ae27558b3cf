#pragma once
// What every gui_check mode shares: one "ok: …" (stdout) or "FAIL: …" (stderr) line per
// check, the count of failures (a mode returns 1 when there was one), and reading a JSON
// file the app dumped.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

namespace hs::gui_check {

inline int failures = 0;

inline void check(bool ok, const std::string& what) {
    std::fprintf(ok ? stdout : stderr, "%s: %s\n", ok ? "ok" : "FAIL", what.c_str());
    if (!ok) ++failures;
}

inline nlohmann::json read_json(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return nlohmann::json::parse(ss.str());
}

}  // namespace hs::gui_check
