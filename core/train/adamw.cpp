#include "core/train/adamw.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/train/model_grad.h"
#include "core/train/parameters.h"

namespace hs::train {

void check_adamw(const AdamWOptions& o) {
    const auto need = [](bool ok, const std::string& what) {
        if (!ok) throw Error("AdamW: " + what);
    };
    const auto finite = [](float x) { return std::isfinite(x); };
    need(finite(o.lr) && o.lr > 0.0f && o.lr <= 10.0f, "lr " + std::to_string(o.lr) + " must be in (0, 10]");
    need(finite(o.beta1) && o.beta1 >= 0.0f && o.beta1 < 1.0f, "beta1 " + std::to_string(o.beta1) + " must be in [0, 1)");
    need(finite(o.beta2) && o.beta2 >= 0.0f && o.beta2 < 1.0f, "beta2 " + std::to_string(o.beta2) + " must be in [0, 1)");
    need(finite(o.eps) && o.eps > 0.0f, "eps must be a positive number");
    need(finite(o.weight_decay) && o.weight_decay >= 0.0f && o.weight_decay < 1.0f,
         "weight_decay " + std::to_string(o.weight_decay) + " must be in [0, 1)");
    need(o.warmup_steps >= 0 && o.total_steps >= 0, "warmup_steps and total_steps must not be negative");
    need(finite(o.min_lr_ratio) && o.min_lr_ratio >= 0.0f && o.min_lr_ratio <= 1.0f, "min_lr_ratio must be in [0, 1]");
    need(finite(o.clip_norm) && o.clip_norm >= 0.0f, "clip_norm must not be negative");
}

float learning_rate_at(int step, const AdamWOptions& o) {
    if (o.warmup_steps > 0 && step <= o.warmup_steps)
        return o.lr * static_cast<float>(step) / static_cast<float>(o.warmup_steps);
    if (o.total_steps <= o.warmup_steps) return o.lr;
    const double progress =
        std::min(1.0, static_cast<double>(step - o.warmup_steps) / static_cast<double>(o.total_steps - o.warmup_steps));
    const double cosine = 0.5 * (1.0 + std::cos(M_PI * progress));  // 1 → 0
    return static_cast<float>(o.lr * (o.min_lr_ratio + (1.0 - o.min_lr_ratio) * cosine));
}

AdamW::AdamW(const ModelWeights& shapes, AdamWOptions options)
    : options_(options), m_(zeros_like(shapes)), v_(zeros_like(shapes)) {}

double AdamW::step(ModelWeights& weights, ModelWeights& grads) {
    std::vector<Parameter> p = parameters_of(weights), g = parameters_of(grads), m = parameters_of(m_),
                           v = parameters_of(v_);
    if (g.size() != p.size() || m.size() != p.size()) throw Error("AdamW: gradients do not match the weights");
    const double norm = global_norm(grads);
    // As torch.nn.utils.clip_grad_norm_: scale by clip_norm / (‖g‖ + 1e-6) when that is < 1.
    const double coef = options_.clip_norm > 0.0f ? options_.clip_norm / (norm + 1e-6) : 1.0;
    const float clip = coef < 1.0 ? static_cast<float>(coef) : 1.0f;
    ++t_;
    const float lr = learning_rate_at(t_, options_);
    const float b1 = options_.beta1, b2 = options_.beta2;
    const float c1 = 1.0f - static_cast<float>(std::pow(b1, t_)), c2 = 1.0f - static_cast<float>(std::pow(b2, t_));
    for (std::size_t k = 0; k < p.size(); ++k) {
        if (g[k].size != p[k].size) throw Error("AdamW: a gradient's shape differs from its weight's");
        const float decay = p[k].decays ? 1.0f - lr * options_.weight_decay : 1.0f;
        for (std::size_t i = 0; i < p[k].size; ++i) {
            const float gi = g[k].data[i] * clip;
            g[k].data[i] = gi;
            m[k].data[i] = b1 * m[k].data[i] + (1.0f - b1) * gi;
            v[k].data[i] = b2 * v[k].data[i] + (1.0f - b2) * gi * gi;
            const float m_hat = m[k].data[i] / c1, v_hat = v[k].data[i] / c2;
            p[k].data[i] = p[k].data[i] * decay - lr * m_hat / (std::sqrt(v_hat) + options_.eps);
        }
    }
    return norm;
}

}  // namespace hs::train
