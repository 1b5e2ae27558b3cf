#include "core/rng.h"

#include <cmath>

namespace hs {

namespace {

std::uint64_t splitmix64(std::uint64_t& x) {
    std::uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

Rng::Rng(std::uint64_t seed) {
    std::uint64_t x = seed;
    for (auto& s : s_) s = splitmix64(x);
}

// xoshiro256** (Blackman & Vigna): state update and output scrambler.
std::uint64_t Rng::next_u64() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
}

float Rng::uniform01() { return static_cast<float>(next_u64() >> 40) * (1.0f / 16777216.0f); }

float Rng::uniform(float lo, float hi) { return lo + (hi - lo) * uniform01(); }

// Box-Muller: two uniforms -> two independent normals (the second kept for the next call).
// Computed in double so results do not depend on float libm differences.
float Rng::normal() {
    if (has_spare_) {
        has_spare_ = false;
        return spare_;
    }
    double u1 = 0.0;
    do {
        u1 = static_cast<double>(next_u64() >> 11) * (1.0 / 9007199254740992.0);
    } while (u1 <= 0.0);
    const double u2 = static_cast<double>(next_u64() >> 11) * (1.0 / 9007199254740992.0);
    const double r = std::sqrt(-2.0 * std::log(u1));
    const double theta = 6.283185307179586 * u2;
    spare_ = static_cast<float>(r * std::sin(theta));
    has_spare_ = true;
    return static_cast<float>(r * std::cos(theta));
}

void Rng::fill_uniform(float* out, std::size_t n, float lo, float hi) {
    const float width = hi - lo;
    for (std::size_t i = 0; i < n; ++i)
        out[i] = lo + width * (static_cast<float>(next_u64() >> 40) * (1.0f / 16777216.0f));
}

// A plain loop over independent elements, which the compiler vectorises (64-bit
// multiplies and shifts, one int → float conversion and one multiply per element).
void fill_uniform_counter(float* out, std::size_t n, std::uint64_t key, std::uint64_t first, float bound) {
    const float scale = bound * (1.0f / 8388608.0f);  // bound / 2²³, exact
    std::uint64_t z0 = key + (first + 1) * 0x9E3779B97F4A7C15ULL;
    for (std::size_t i = 0; i < n; ++i) {
        std::uint64_t z = z0 + i * 0x9E3779B97F4A7C15ULL;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        z ^= z >> 31;
        const std::int32_t k = static_cast<std::int32_t>(z >> 40) - 8388608;  // [−2²³, 2²³)
        out[i] = static_cast<float>(k) * scale;
    }
}

namespace {

// Ziggurat for f(x) = exp(-x²/2) on x ≥ 0, cut into 128 layers of equal area v:
// layer 0 = the rectangle [0, r] × [0, f(r)] plus the tail beyond r (width x[0] = v / f(r));
// layer i ≥ 1 = [0, x[i]] × [f(x[i]), f(x[i+1])], with x[1] = r, x[128] = 0 and
// x[i+1] = f⁻¹(v / x[i] + f(x[i])) = √(-2 ln(v / x[i] + f(x[i]))).
struct Ziggurat {
    static constexpr int kLayers = 128;
    static constexpr double kR = 3.442619855899;         // start of the tail
    static constexpr double kV = 9.91256303526217e-3;    // area of every layer
    double x[kLayers + 1];
    double f[kLayers + 1];  // f(x[i])

    Ziggurat() {
        x[0] = kV / std::exp(-0.5 * kR * kR);
        x[1] = kR;
        for (int i = 1; i < kLayers - 1; ++i)
            x[i + 1] = std::sqrt(-2.0 * std::log(kV / x[i] + std::exp(-0.5 * x[i] * x[i])));
        x[kLayers] = 0.0;
        for (int i = 0; i <= kLayers; ++i) f[i] = std::exp(-0.5 * x[i] * x[i]);
    }
};

const Ziggurat kZiggurat;

// Uniform in (0, 1] with 53 bits (never 0, so its logarithm is finite).
double open_uniform(std::uint64_t bits) {
    return (static_cast<double>(bits >> 11) + 1.0) * (1.0 / 9007199254740992.0);
}

}  // namespace

// One draw: bits 0-6 pick the layer i, bits 11-63 a signed uniform u in [-1, 1), x = u·x[i].
// |x| < x[i+1] lies under the curve (accept); otherwise layer 0 samples the tail
// (Marsaglia: a = -ln U₁ / r, b = -ln U₂, accept when 2b > a², x = r + a) and other layers
// accept x when a uniform height in [f(x[i]), f(x[i+1])] falls below f(x).
void Rng::fill_normal(float* out, std::size_t n) {
    const Ziggurat& z = kZiggurat;
    for (std::size_t k = 0; k < n; ++k) {
        for (;;) {
            const std::uint64_t bits = next_u64();
            const int i = static_cast<int>(bits & (Ziggurat::kLayers - 1));
            const double u = static_cast<double>(static_cast<std::int64_t>(bits >> 11) -
                                                 (std::int64_t{1} << 52)) *
                             (1.0 / 4503599627370496.0);
            const double xv = u * z.x[i];
            if (std::abs(xv) < z.x[i + 1]) {
                out[k] = static_cast<float>(xv);
                break;
            }
            if (i == 0) {
                double a = 0.0, b = 0.0;
                do {
                    a = -std::log(open_uniform(next_u64())) / Ziggurat::kR;
                    b = -std::log(open_uniform(next_u64()));
                } while (b + b < a * a);
                out[k] = static_cast<float>(u < 0.0 ? -(Ziggurat::kR + a) : Ziggurat::kR + a);
                break;
            }
            const double height = z.f[i] + open_uniform(next_u64()) * (z.f[i + 1] - z.f[i]);
            if (height < std::exp(-0.5 * xv * xv)) {
                out[k] = static_cast<float>(xv);
                break;
            }
        }
    }
}

}  // namespace hs
