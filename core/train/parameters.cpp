#include "core/train/parameters.h"

#include <cmath>

namespace hs::train {

namespace {

void add(std::vector<Parameter>& out, Matrix& m) {
    if (m.size() > 0) out.push_back({m.data(), static_cast<std::size_t>(m.size()), true});
}
void add(std::vector<Parameter>& out, Vector& v) {
    if (v.size() > 0) out.push_back({v.data(), static_cast<std::size_t>(v.size()), false});
}
void add(std::vector<Parameter>& out, LayerNormWeights& n) {
    add(out, n.weight);
    add(out, n.bias);
}
void add(std::vector<Parameter>& out, AttentionWeights& a) {
    add(out, a.in_proj_weight);
    add(out, a.in_proj_bias);
    add(out, a.out_proj_weight);
    add(out, a.out_proj_bias);
    add(out, a.q_norm);
    add(out, a.k_norm);
}
void add(std::vector<Parameter>& out, FeedForwardWeights& f) {
    add(out, f.linear1_weight);
    add(out, f.linear1_bias);
    add(out, f.linear2_weight);
    add(out, f.linear2_bias);
    add(out, f.gate_weight);
    add(out, f.gate_bias);
}

}  // namespace

std::vector<Parameter> parameters_of(ModelWeights& w) {
    std::vector<Parameter> out;
    add(out, w.embed);
    add(out, w.pos_embed);
    add(out, w.type_embed);
    if (w.embed_norm) add(out, *w.embed_norm);
    add(out, w.lm_head);
    for (EncoderLayerWeights& l : w.layers) {
        add(out, l.self_attn);
        add(out, l.ffn);
        add(out, l.norm1);
        add(out, l.norm2);
        for (auto* norm : {&l.post_attn_norm, &l.post_ffn_norm})
            if (*norm) add(out, **norm);
    }
    for (DecoderLayerWeights& l : w.decoder_layers) {
        add(out, l.self_attn);
        add(out, l.cross_attn);
        add(out, l.ffn);
        add(out, l.norm1);
        add(out, l.norm2);
        add(out, l.norm3);
    }
    if (w.final_norm) add(out, *w.final_norm);
    if (w.decoder_final_norm) add(out, *w.decoder_final_norm);
    return out;
}

double global_norm(ModelWeights& g) {
    double sum = 0.0;
    for (const Parameter& p : parameters_of(g))
        for (std::size_t i = 0; i < p.size; ++i) sum += static_cast<double>(p.data[i]) * p.data[i];
    return std::sqrt(sum);
}

}  // namespace hs::train
