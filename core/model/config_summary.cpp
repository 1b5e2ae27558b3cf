#include "core/model/config_summary.h"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace hs {

namespace {

// 10000, 500000, 1000000 as they are written in configs; other numbers in %g (0.25).
std::string plain_number(float v) {
    char text[32];
    std::snprintf(text, sizeof text, v == std::floor(v) && std::fabs(v) < 1e12f ? "%.0f" : "%g", static_cast<double>(v));
    return text;
}

}  // namespace

std::string describe_architecture(const ModelConfig& c, int tokenizer_vocab) {
    std::ostringstream out;
    out << "arch:       " << (c.mask == MaskKind::Causal ? "decoder (causal)" : "encoder") << "\n"
        << "d_model:    " << c.d_model << "\n"
        << "heads:      " << c.heads << " query, " << c.kv_head_count() << " key/value (head size " << c.d_h()
        << ")\n"
        << "layers:     " << c.layers << "\n";
    if (c.window > 0)
        out << "window:     " << c.window << " keys (sliding-window attention"
            << (c.window_layers.empty() ? "" : "; layers " + c.window_layers + " repeated, L local, G global") << ")\n";
    if (c.attn_scale > 0.0f) out << "scores:     Q·Kᵀ × " << c.attn_scale << " (not 1/√d_k)\n";
    if (c.qk_norm) out << "qk-norm:    RMSNorm of every head's q and k\n";
    if (c.parallel_block) out << "block:      attention and feed-forward side by side (parallel)\n";
    if (c.embed_scale) out << "embedding:  token embeddings × √d_model\n";
    if (c.sandwich_norm) out << "sandwich:   each sub-layer's output normalised before the residual\n";
    if (c.attn_softcap > 0.0f) out << "soft-cap:   scores " << c.attn_softcap << "·tanh(s / " << c.attn_softcap << ")\n";
    if (c.logit_softcap > 0.0f)
        out << "soft-cap:   logits " << c.logit_softcap << "·tanh(z / " << c.logit_softcap << ")\n";
    if (c.pe == PosEncoding::Rotary && c.rope_local_theta > 0.0f)
        out << "rope:       θ base " << plain_number(c.rope_local_theta) << " in local layers, " << plain_number(c.rope_theta)
            << " in global\n";
    if (c.pe == PosEncoding::Rotary && c.rotary_dims > 0)
        out << "rotary:     the first " << c.rotary_dims << " of each head's " << c.d_h() << " dims\n";
    out << "d_ff:       " << c.d_ff << "\n"
        << "vocab:      " << c.vocab;
    if (tokenizer_vocab >= 0) out << " (tokenizer " << tokenizer_vocab << ")";
    out << "\n"
        << "max_len:    " << c.max_len << "\n"
        << "norm:       " << (c.norm_kind == NormKind::RMSNorm ? "RMSNorm" : "LayerNorm") << ", "
        << (c.norm == NormPlacement::PreLN ? "pre-norm" : "post-norm") << " (eps " << c.norm_eps << ")\n"
        << "positions:  "
        << (c.pe != PosEncoding::Rotary ? to_string(c.pe)
                                        : "rotary, theta " + plain_number(c.rope_theta) +
                                              (c.rope_layout == RopeLayout::Interleaved ? ", adjacent pairs"
                                                                                        : ", rotate-half"))
        << "\n"
        << "mlp:        "
        << (c.activation == Activation::SwiGLU     ? "SwiGLU"
            : c.activation == Activation::GeGLU    ? "GeGLU (tanh)"
            : c.activation == Activation::GELUTanh ? "GELU (tanh)"
            : c.activation == Activation::GELU     ? "GELU (erf)"
                                                   : "ReLU")
        << "\n"
        << "lm head:    "
        << (c.lm_head == LmHead::None ? "none" : c.lm_head == LmHead::Tied ? "tied to embedding" : "separate") << "\n";
    return out.str();
}

}  // namespace hs
