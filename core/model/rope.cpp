#include "core/model/rope.h"

#include <cmath>

#include "core/error.h"

namespace hs {

namespace {

// θ_i = theta^(−2i/R) for the pair i of R rotated dims, in double so long positions keep
// their precision.
double rope_frequency(int i, int rotated_dims, float theta) {
    return std::pow(static_cast<double>(theta), -2.0 * i / rotated_dims);
}

}  // namespace

RopeTable make_rope_table(int T, int head_dim, float theta, const std::vector<float>& divisors) {
    if (head_dim % 2 != 0)
        throw Error("rotary embeddings need an even head size, got " + std::to_string(head_dim));
    const int half = head_dim / 2;
    RopeTable table{Matrix(T, half), Matrix(T, half)};
    for (int i = 0; i < half; ++i) {
        double freq = rope_frequency(i, head_dim, theta);
        if (!divisors.empty()) freq /= divisors.at(static_cast<std::size_t>(i));
        for (int p = 0; p < T; ++p) {
            table.cos(p, i) = static_cast<float>(std::cos(p * freq));
            table.sin(p, i) = static_cast<float>(std::sin(p * freq));
        }
    }
    return table;
}

std::vector<float> llama3_rope_divisors(const Llama3RopeScaling& s, int head_dim, float theta) {
    const double pi = std::acos(-1.0);
    const double low_wavelength = s.original_max_positions / double(s.low_freq_factor);    // longer: ÷ factor
    const double high_wavelength = s.original_max_positions / double(s.high_freq_factor);  // shorter: kept
    std::vector<float> divisors;
    for (int i = 0; i < head_dim / 2; ++i) {
        const double freq = rope_frequency(i, head_dim, theta);
        const double wavelength = 2.0 * pi / freq;
        double divisor = 1.0;
        if (wavelength > low_wavelength) {
            divisor = s.factor;
        } else if (wavelength >= high_wavelength) {  // between: θ_i·((1 − t)/factor + t)
            const double t = (s.original_max_positions / wavelength - s.low_freq_factor) /
                             (s.high_freq_factor - s.low_freq_factor);
            divisor = 1.0 / ((1.0 - t) / s.factor + t);
        }
        divisors.push_back(static_cast<float>(divisor));
    }
    return divisors;
}

std::optional<Rotary> rotary_for(const ModelConfig& c, int T) {
    if (c.pe != PosEncoding::Rotary) return std::nullopt;
    return Rotary{make_rope_table(T, c.rotary_dim_count(), c.rope_theta, c.rope_freq_divisors), c.rope_layout};
}

StackRotary stack_rotary(const ModelConfig& c, int T) {
    StackRotary out{rotary_for(c, T), std::nullopt};
    if (out.global && c.rope_local_theta > 0.0f)
        out.local = Rotary{make_rope_table(T, c.rotary_dim_count(), c.rope_local_theta), c.rope_layout};
    return out;
}

void apply_rope(Eigen::Ref<Matrix> x, int n_heads, const RopeTable& table, RopeLayout layout) {
    // The table's R = 2·half dims of each head turn; R < Dh: the rest pass (partial rotary).
    const int half = static_cast<int>(table.cos.cols());
    const int Dh = n_heads > 0 ? static_cast<int>(x.cols()) / n_heads : 0;
    if (n_heads < 1 || x.cols() != static_cast<Eigen::Index>(n_heads) * Dh || 2 * half > Dh ||
        x.rows() > table.cos.rows())
        throw Error("rotary embeddings: input (" + std::to_string(x.rows()) + ", " +
                    std::to_string(x.cols()) + ") does not split into " + std::to_string(n_heads) +
                    " heads of at least " + std::to_string(2 * half) + " dimensions");
    for (Eigen::Index p = 0; p < x.rows(); ++p)
        for (int h = 0; h < n_heads; ++h) {
            float* head = x.row(p).data() + h * Dh;  // row-major: a head is contiguous
            for (int i = 0; i < half; ++i) {
                // (a, b) = dims (2i, 2i+1) or (i, i + R/2) of this head
                float& a = layout == RopeLayout::Interleaved ? head[2 * i] : head[i];
                float& b = layout == RopeLayout::Interleaved ? head[2 * i + 1] : head[i + half];
                const float c = table.cos(p, i), s = table.sin(p, i);
                const float a0 = a, b0 = b;
                a = a0 * c - b0 * s;
                b = a0 * s + b0 * c;
            }
        }
}

}  // namespace hs
