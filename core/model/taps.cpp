#include "core/model/taps.h"

#include <algorithm>
#include <initializer_list>

#include "core/error.h"

namespace hs {

namespace {

// One layer's names in the order its sub-layers make them: pre-norm reads each norm's
// input before its sub-layer (norm1_in, attn…), post-norm after adding the sub-layer's
// output (attn…, norm1_in).
void add_layer(std::vector<std::string>& names, const std::string& p, const ModelConfig& c, bool cross) {
    const bool pre = c.norm == NormPlacement::PreLN;
    const auto add = [&](std::initializer_list<const char*> list) {
        for (const char* n : list) names.push_back(p + n);
    };
    const auto sub_layer = [&](const char* norm_in, std::initializer_list<const char*> list) {
        if (pre) add({norm_in});
        add(list);
        if (!pre) add({norm_in});
    };
    if (c.attention_only) {
        add({"attn_in", "attn.q", "attn.k", "attn.v", "attn.concat", "attn_out", "out"});
        return;
    }
    sub_layer("norm1_in", {"attn_in", "attn.q", "attn.k", "attn.v", "attn.concat", "attn_out"});
    if (cross) sub_layer("norm2_in", {"cross_in", "cross.q", "cross.k", "cross.v", "cross.concat", "cross_out"});
    if (is_gated(c.activation))
        sub_layer(cross ? "norm3_in" : "norm2_in", {"ffn_in", "ffn_pre", "ffn_gate", "ffn_hidden", "ffn_out"});
    else
        sub_layer(cross ? "norm3_in" : "norm2_in", {"ffn_in", "ffn_pre", "ffn_hidden", "ffn_out"});
    add({"out"});
}

void add_stack(std::vector<std::string>& names, const ModelConfig& c, const std::string& stack,
               bool cross, bool final_norm) {
    names.push_back(stack + "embed");
    for (int l = 0; l < c.layers; ++l) add_layer(names, stack + "layers." + std::to_string(l) + ".", c, cross);
    if (final_norm) {
        names.push_back(stack + "norm_in");
        names.push_back(stack + "norm");
    }
}

}  // namespace

std::vector<std::string> tap_names(const ModelConfig& c) {
    std::vector<std::string> names;
    const bool pre = c.norm == NormPlacement::PreLN;
    if (c.arch == Arch::EncoderDecoder) {
        add_stack(names, c, "encoder.", false, true);  // nn.Transformer: both final norms always
        add_stack(names, c, "decoder.", true, true);
    } else {
        add_stack(names, c, "", false, pre);
    }
    if (c.lm_head != LmHead::None) names.push_back("logits");
    return names;
}

bool tap_matches(const std::string& pattern, const std::string& name) {
    // Iterative glob with '*' only: remember the last star and retry from there.
    std::size_t p = 0, n = 0, star = std::string::npos, resume = 0;
    while (n < name.size()) {
        if (p < pattern.size() && pattern[p] == '*') {
            star = p++;
            resume = n;
        } else if (p < pattern.size() && pattern[p] == name[n]) {
            ++p;
            ++n;
        } else if (star != std::string::npos) {
            p = star + 1;
            n = ++resume;
        } else {
            return false;
        }
    }
    while (p < pattern.size() && pattern[p] == '*') ++p;
    return p == pattern.size();
}

void check_tap_patterns(const std::vector<std::string>& patterns, const ModelConfig& config,
                        long long tokens) {
    if (patterns.empty()) return;
    const std::vector<std::string> names = tap_names(config);
    long long kept = 0;
    for (const std::string& n : names)
        for (const std::string& pattern : patterns)
            if (tap_matches(pattern, n)) {
                ++kept;
                break;
            }
    const double widest = std::max({config.d_model, config.inner(), config.d_ff, 1});
    const double bytes = double(kept) * double(tokens) * widest * sizeof(float);
    constexpr double kLimit = 4.0 * (1LL << 30);
    if (bytes > kLimit)
        throw Error("keeping " + std::to_string(kept) + " intermediates of " + std::to_string(tokens) +
                    " tokens needs about " + std::to_string(static_cast<long long>(bytes / (1 << 20))) +
                    " MiB, more than the 4096 MiB limit; ask for fewer names or use a shorter text");
    for (const std::string& pattern : patterns) {
        bool any = false;
        for (const std::string& n : names) any = any || tap_matches(pattern, n);
        if (any) continue;
        std::string examples;
        for (const std::string& n : {names.front(), names[1], names[names.size() / 2], names.back()})
            examples += (examples.empty() ? "" : ", ") + n;
        throw Error("no intermediate of this model is named '" + pattern + "' (names look like " +
                    examples + "; headscope forward MODEL --list-taps lists them all)");
    }
}

}  // namespace hs
