#pragma once
// Runs a test once per SIMD level (core/kernels/simd.h): TEST_P(Suite, Name) on a fixture
// derived from AtSimdLevel, instantiated with HEADSCOPE_AT_EVERY_SIMD_LEVEL(Suite). A
// level this CPU lacks is skipped with its name; the level in use is restored afterwards.
#include <gtest/gtest.h>

#include <string>

#include "core/kernels/simd.h"

namespace hs::test {

class AtSimdLevel : public testing::TestWithParam<kernels::SimdLevel> {
protected:
    void SetUp() override {
        previous_ = kernels::simd_level();
        bool supported = false;
        for (kernels::SimdLevel l : kernels::supported_simd_levels()) supported |= l == GetParam();
        if (!supported)
            GTEST_SKIP() << "this CPU has no " << kernels::simd_name(GetParam()) << " (measured "
                         << "on the next machine that has it)";
        kernels::force_simd_level(GetParam());
    }
    void TearDown() override { kernels::force_simd_level(previous_); }

private:
    kernels::SimdLevel previous_ = kernels::SimdLevel::Generic;
};

inline std::string simd_level_name(const testing::TestParamInfo<kernels::SimdLevel>& info) {
    return kernels::simd_name(info.param);
}

}  // namespace hs::test

#define HEADSCOPE_AT_EVERY_SIMD_LEVEL(Suite)                                                \
    INSTANTIATE_TEST_SUITE_P(, Suite,                                                       \
                             testing::Values(hs::kernels::SimdLevel::Generic,               \
                                             hs::kernels::SimdLevel::AVX2,                  \
                                             hs::kernels::SimdLevel::AVX512),               \
                             hs::test::simd_level_name)
