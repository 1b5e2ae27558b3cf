#pragma once
// Rotary position embedding (RoPE, Su et al. 2021). Each head's Dh dims form Dh/2 pairs
// (a, b); pair i at position p rotates by angle p·θ_i with θ_i = theta^(−2i/Dh):
//   a' = a·cos(pθ_i) − b·sin(pθ_i)
//   b' = a·sin(pθ_i) + b·cos(pθ_i)
// Layouts: Interleaved pairs dims (2i, 2i+1) (llama2.c); RotateHalf pairs (i, i + Dh/2)
// (HF Llama / Qwen2 "rotate_half").
#include "core/model/config.h"
#include "core/tensor.h"

#include <optional>

namespace hs {

// cos / sin of p·θ_i for positions 0..T−1: both (T, R/2), R = head_dim, the rotated
// dims of a head (θ_i = theta^(−2i/R)). With `divisors` (Dh/2 values,
// Llama-3.1's rope scaling) θ_i is divided by divisors[i].
struct RopeTable {
    Matrix cos, sin;
};
RopeTable make_rope_table(int T, int head_dim, float theta, const std::vector<float>& divisors = {});

// Llama 3.1's rope scaling (HF rope_scaling with rope_type "llama3"): wavelengths 2π/θ_i
// shorter than original_max_positions / high_freq_factor keep θ_i, those longer than
// original_max_positions / low_freq_factor are divided by factor, and between the two
// the divisor moves smoothly: 1 / ((1 − s)/factor + s), s = (original_max_positions /
// wavelength − low_freq_factor) / (high_freq_factor − low_freq_factor).
struct Llama3RopeScaling {
    float factor = 8.0f, low_freq_factor = 1.0f, high_freq_factor = 4.0f;
    int original_max_positions = 8192;
};
// The Dh/2 divisors of θ_i (ModelConfig::rope_freq_divisors) for head size Dh and theta.
std::vector<float> llama3_rope_divisors(const Llama3RopeScaling& s, int head_dim, float theta);

// The rotation one attention applies: the table and the pair layout.
struct Rotary {
    RopeTable table;
    RopeLayout layout = RopeLayout::RotateHalf;
};
// For a config with rotary positions: the rotation of T positions; otherwise none.
std::optional<Rotary> rotary_for(const ModelConfig& config, int T);

// The rotations of one stack's T positions, per layer: `global` (rotary_for), and for
// Gemma 3's local layers (ModelConfig::local_rope) `local`, of base rope_local_theta and
// without the global layers' frequency divisors.
struct StackRotary {
    std::optional<Rotary> global, local;
    const std::optional<Rotary>& of_layer(const ModelConfig& c, int layer) const {
        return c.local_rope(layer) ? local : global;
    }
};
StackRotary stack_rotary(const ModelConfig& config, int T);

// Rotates every head of x: (T, n_heads·Dh) in place (a column block of a wider matrix
// too); row t is position t. The table's R = 2·cols dims of each head turn (pairs within
// them); R < Dh is GPT-NeoX's partial rotary, the last Dh − R dims pass unchanged.
void apply_rope(Eigen::Ref<Matrix> x, int n_heads, const RopeTable& table, RopeLayout layout);

}  // namespace hs
