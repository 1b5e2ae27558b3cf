#include "core/train/activations.h"

#include <string_view>
#include <utility>

#include "core/model/recorder.h"

namespace hs::train {

namespace {

// The slot of `name` in a layer ("norm1_in", "attn.q", "ffn_pre", …), or null for a value
// the backward does not read (out, a sum; attn_out and ffn_out unless sandwich norms read
// them: `sandwich`).
Matrix* layer_slot(LayerActivations& l, std::string_view name, bool sandwich) {
    if (sandwich && name == "attn_out") return &l.attn_out;
    if (sandwich && name == "ffn_out") return &l.ffn_out;
    const std::pair<std::string_view, Matrix*> slots[] = {
        {"norm1_in", &l.norm1_in},    {"norm2_in", &l.norm2_in},       {"norm3_in", &l.norm3_in},
        {"attn_in", &l.attn.x},       {"attn.q", &l.attn.q},           {"attn.k", &l.attn.k},
        {"attn.v", &l.attn.v},        {"attn.concat", &l.attn.concat}, {"attn.qkv", &l.attn.qkv},
        {"cross_in", &l.cross.x},
        {"cross.q", &l.cross.q},      {"cross.k", &l.cross.k},         {"cross.v", &l.cross.v},
        {"cross.concat", &l.cross.concat}, {"ffn_in", &l.ffn.x},       {"ffn_pre", &l.ffn.pre},
        {"ffn_gate", &l.ffn.gate},    {"ffn_hidden", &l.ffn.hidden},
    };
    for (const auto& [slot_name, slot] : slots)
        if (slot_name == name) return slot;
    return nullptr;
}

// Training's recorder (core/model/recorder.h): keeps what the backward reads, in place in
// Activations, and takes every block's attention maps A_h without a copy.
class ActivationRecorder final : public Recorder {
public:
    // keep_qkv: qk-norm's backward reads self-attention's Q and K before the norm;
    // sandwich: the sandwich norms' backward reads attn_out and ffn_out.
    ActivationRecorder(Activations& a, bool keep_qkv, bool sandwich) : a_(a), keep_qkv_(keep_qkv), sandwich_(sandwich) {}
    bool wants(const TapPoint& point) const override {
        return is_map(point) || (keep_qkv_ && point.layer >= 0 && point.name == "attn.qkv");
    }
    void record(const TapPoint& point, const Eigen::Ref<const Matrix>& value) override {
        StackActivations& stack = stack_of(point);
        if (point.layer < 0) {
            if (point.name == "norm_in") stack.norm_in = value;
            return;
        }
        if (Matrix* slot = layer_slot(stack.layers[static_cast<std::size_t>(point.layer)], point.name, sandwich_))
            *slot = value;
    }
    void record_maps(const TapPoint& point, const std::vector<Matrix>& maps) override {
        if (is_map(point)) probs(point) = maps;
    }
    void take_maps(const TapPoint& point, std::vector<Matrix>& maps) override {
        if (is_map(point)) probs(point) = std::move(maps);
    }

private:
    // a layer's attention maps A_h ("attn.weights", "cross.weights")
    static bool is_map(const TapPoint& point) { return point.layer >= 0 && point.part() == "weights"; }
    StackActivations& stack_of(const TapPoint& point) { return point.in_decoder() ? a_.decoder : a_.main; }
    std::vector<Matrix>& probs(const TapPoint& point) {
        LayerActivations& layer = stack_of(point).layers[static_cast<std::size_t>(point.layer)];
        return (point.block() == "cross" ? layer.cross : layer.attn).probs;
    }
    Activations& a_;
    bool keep_qkv_, sandwich_;
};

}  // namespace

Activations record_forward(const ModelConfig& c, const ModelWeights& w, const ForwardInput& input) {
    const bool enc_dec = c.arch == Arch::EncoderDecoder;
    Activations a;
    a.main.layers.resize(static_cast<std::size_t>(c.layers));
    if (enc_dec) a.decoder.layers.resize(static_cast<std::size_t>(c.layers));
    // The recorder keeps every block's maps: held to the forward's 8 GB limit on maps.
    const double t = static_cast<double>(input.ids.size()), td = static_cast<double>(input.decoder_ids.size());
    ensure_maps_fit(t * t + (enc_dec ? td * td + td * t : 0.0), static_cast<long long>(input.ids.size()), c.layers,
                    c.heads, false);
    ActivationRecorder recorder(a, c.qk_norm, c.sandwich_norm);
    TraceOptions options;
    options.head_weights = false;  // the recorder takes the maps
    options.hidden_states = false;
    options.all_logits = true;
    options.recorder = &recorder;
    Trace trace = run_forward(c, w, input, options);
    a.main.output = std::move(trace.main.final_output);
    if (enc_dec) a.decoder.output = std::move(trace.decoder->final_output);
    a.logits = std::move(trace.logits);
    return a;
}

}  // namespace hs::train
