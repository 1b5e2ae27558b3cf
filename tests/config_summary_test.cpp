// core/model/config_summary.h: the architecture lines `inspect` and the Model panel show.
#include <gtest/gtest.h>

#include "core/model/config.h"
#include "core/model/config_summary.h"

namespace hs {
namespace {

ModelConfig rotary_decoder() {
    ModelConfig c;
    c.mask = MaskKind::Causal;
    c.pe = PosEncoding::Rotary;
    c.rope_layout = RopeLayout::Interleaved;
    c.rope_theta = 500000.0f;  // Llama 3's base
    return c;
}

TEST(ConfigSummary, RopeBasesAreWrittenAsConfigsWriteThem) {
    const std::string llama3 = describe_architecture(rotary_decoder(), -1);
    EXPECT_NE(llama3.find("positions:  rotary, theta 500000, adjacent pairs\n"), std::string::npos) << llama3;
    ModelConfig gemma3 = rotary_decoder();
    gemma3.rope_layout = RopeLayout::RotateHalf;
    gemma3.rope_theta = 1000000.0f;
    gemma3.rope_local_theta = 10000.0f;
    const std::string text = describe_architecture(gemma3, 262144);
    EXPECT_NE(text.find("rope:       θ base 10000 in local layers, 1000000 in global\n"), std::string::npos) << text;
    EXPECT_NE(text.find("positions:  rotary, theta 1000000, rotate-half\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace hs
