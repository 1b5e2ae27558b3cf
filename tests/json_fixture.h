#pragma once
// A JSON fixture read whole (tests/fixtures/…, made by the generator scripts in tests/).
#include <fstream>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/tensor.h"

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

// `got` against the fixture's array `want` of the same length, each value within
// `tolerance`; the first miss is named with `what` and its index (and the test stops there).
inline void expect_values_near(const Vector& got, const nlohmann::json& want, float tolerance, const std::string& what) {
    const auto values = want.get<std::vector<float>>();
    ASSERT_EQ(got.size(), static_cast<Eigen::Index>(values.size())) << what;
    for (Eigen::Index i = 0; i < got.size(); ++i)
        ASSERT_NEAR(got[i], values[static_cast<std::size_t>(i)], tolerance) << what << " " << i;
}

}  // namespace hs::test
