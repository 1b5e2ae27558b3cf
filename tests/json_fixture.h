#pragma once
// A JSON fixture read whole (tests/fixtures/…, made by the generator scripts in tests/).
#include <fstream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace hs::test {

// The parsed file; throws naming the file when it is missing (run the generator that
// makes it) or not JSON, which fails the test that asked for it.
inline nlohmann::json json_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error(path + " is missing: run the tests/gen_*.py script that makes it");
    try {
        return nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error(path + " is not JSON: " + e.what());
    }
}

}  // namespace hs::test
