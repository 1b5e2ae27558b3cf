#include "core/train/activations.h"

#include <charconv>
#include <string_view>
#include <utility>

namespace hs::train {

namespace {

// The slot of `name` in a layer ("norm1_in", "attn.q", "ffn_pre", …), or null for a value
// the backward does not read (attn_out, ffn_out, out: sums it recomputes from others).
Matrix* layer_slot(LayerActivations& l, std::string_view name) {
    const std::pair<std::string_view, Matrix*> slots[] = {
        {"norm1_in", &l.norm1_in},    {"norm2_in", &l.norm2_in},       {"norm3_in", &l.norm3_in},
        {"attn_in", &l.attn.x},       {"attn.q", &l.attn.q},           {"attn.k", &l.attn.k},
        {"attn.v", &l.attn.v},        {"attn.concat", &l.attn.concat}, {"cross_in", &l.cross.x},
        {"cross.q", &l.cross.q},      {"cross.k", &l.cross.k},         {"cross.v", &l.cross.v},
        {"cross.concat", &l.cross.concat}, {"ffn_in", &l.ffn.x},       {"ffn_pre", &l.ffn.pre},
        {"ffn_gate", &l.ffn.gate},    {"ffn_hidden", &l.ffn.hidden},
    };
    for (const auto& [slot_name, slot] : slots)
        if (slot_name == name) return slot;
    return nullptr;
}

// The slot of a full tap name: "[encoder.|decoder.]layers.N.<value>" or "[…]norm_in".
Matrix* slot_of(Activations& a, std::string_view name) {
    StackActivations* stack = &a.main;
    if (name.starts_with("decoder.")) stack = &a.decoder;
    if (name.starts_with("decoder.") || name.starts_with("encoder.")) name.remove_prefix(8);
    if (name == "norm_in") return &stack->norm_in;
    constexpr std::string_view kLayers = "layers.";
    if (!name.starts_with(kLayers)) return nullptr;
    name.remove_prefix(kLayers.size());
    std::size_t layer = 0;
    const auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), layer);
    if (ec != std::errc() || end == name.data() + name.size() || *end != '.' || layer >= stack->layers.size())
        return nullptr;
    return layer_slot(stack->layers[layer], name.substr(static_cast<std::size_t>(end - name.data()) + 1));
}

// The maps of every layer, moved out of the trace (T, S per head).
void take_maps(StackTrace& stack, StackActivations& out, bool cross) {
    for (std::size_t l = 0; l < stack.layers.size(); ++l) {
        out.layers[l].attn.probs = std::move(stack.layers[l].self_attn.weights);
        if (cross) out.layers[l].cross.probs = std::move(stack.layers[l].cross_attn->weights);
    }
}

}  // namespace

Activations record_forward(const ModelConfig& c, const ModelWeights& w, const ForwardInput& input) {
    const bool enc_dec = c.arch == Arch::EncoderDecoder;
    Activations a;
    a.main.layers.resize(static_cast<std::size_t>(c.layers));
    if (enc_dec) a.decoder.layers.resize(static_cast<std::size_t>(c.layers));
    TraceOptions options;
    options.hidden_states = false;
    options.all_logits = true;
    options.on_tap = [&a](const std::string& name, const Eigen::Ref<const Matrix>& value) {
        if (Matrix* slot = slot_of(a, name)) *slot = value;
    };
    Trace trace = run_forward(c, w, input, options);
    take_maps(trace.main, a.main, false);
    a.main.output = std::move(trace.main.final_output);
    if (enc_dec) {
        take_maps(*trace.decoder, a.decoder, true);
        a.decoder.output = std::move(trace.decoder->final_output);
    }
    a.logits = std::move(trace.logits);
    return a;
}

}  // namespace hs::train
