#pragma once
// Head ablation (issue 5): switch heads off (TraceOptions::ablate) and measure what
// changes. Shape letters as in trace.h: T tokens, D d_model, H heads, L layers, V vocab.
//   hidden change of layer l:  ‖h'_l − h_l‖_F / ‖h_l‖_F,  h_l: (T, D) the layer's output
//   map change of head (l, h): (1 / (T·S)) Σ_ij |A'_lh[i,j] − A_lh[i,j]|  (all entries,
//                              masked ones included; they are 0 in both)
//   decoder LMs, after the last position: p = softmax(z), p' = softmax(z'), z: (V) logits,
//                              KL(p ‖ p') = Σ_v p_v (ln p_v − ln p'_v) in nats
// Primes (h', A', p') are the ablated run. Worked examples have no model to ablate.
#include <string>
#include <vector>

#include "core/model/model.h"
#include "core/source.h"
#include "core/model/trace.h"

namespace hs {

// One row of the next-token table: a token in the top k before or after ablation.
struct TokenChange {
    int id = 0;
    std::string text;     // display text ("#id" when neither trace names it)
    float p_base = 0.0f;  // probability without ablation
    float p_ablated = 0.0f;
};

struct AblationEffect {
    std::vector<HeadRef> heads;  // what was switched off
    AblationMode mode = AblationMode::Zero;
    // Main stack (encoder of an encoder-decoder): L hidden changes, L × H map changes
    // of self-attention.
    std::vector<double> hidden_change;
    std::vector<std::vector<double>> map_change;
    // Encoder-decoder only (else empty): the decoder's self-attention maps and outputs.
    std::vector<double> decoder_hidden_change;
    std::vector<std::vector<double>> decoder_map_change;
    // Relative change of the last layer's output of the last stack (what rank_heads sorts
    // by when there is no next-token distribution).
    double last_layer_change = 0.0;
    // Decoder language models (Trace::next_token_logits present in both runs).
    bool has_next_token = false;
    double kl = 0.0;                      // KL(p_base ‖ p_ablated), nats
    std::vector<TokenChange> top_tokens;  // union of both top-k lists, by p_base descending
};

// Compares a plain and an ablated trace of the same input (traces with per-layer head
// weights and hidden states). Throws hs::Error if their shapes differ.
AblationEffect compare_traces(const Trace& base, const Trace& ablated, int top_k = 5);

// Runs `source` on `input` plainly and with `heads` ablated and compares the two. Throws
// hs::Error for a worked example, an out-of-range head, or bad input.
AblationEffect ablate(const TraceSource& source, const SourceInput& input,
                      const std::vector<HeadRef>& heads, AblationMode mode = AblationMode::Zero);

struct RankedHead {
    HeadRef head;
    double effect = 0.0;
};

struct HeadRanking {
    std::string measure;            // "kl" (decoder LMs) or "last_layer_change"
    std::vector<RankedHead> heads;  // L·H main-stack self-attention heads, effect descending
};

// Ablates each main-stack self-attention head alone (1 + L·H forward passes) and sorts
// by effect: KL of the next-token distribution for decoder LMs, else the last layer's
// relative hidden-state change. `progress(done, L·H)` after each head; returning false
// throws hs::Cancelled.
HeadRanking rank_heads(const TraceSource& source, const SourceInput& input,
                       AblationMode mode = AblationMode::Zero,
                       const ProgressFn& progress = nullptr);

// "0.3" or "L0.H3" -> layer 0, head 3 (main self-attention); "dec:1.2" decoder
// self-attention; "cross:1.2" decoder cross-attention. Throws hs::Error on anything else.
HeadRef parse_head_ref(const std::string& text);
std::string to_string(const HeadRef& head);
// "zero" / "mean"; throws hs::Error otherwise.
AblationMode parse_ablation_mode(const std::string& text);
const char* to_string(AblationMode mode);

}  // namespace hs
