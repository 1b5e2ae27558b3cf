#pragma once
// Trace: everything one forward pass shows the user. The frontend reads only this;
// it never computes attention itself. Shape letters: T tokens (queries), S keys
// (S = T for self-attention, S = T_enc for cross-attention), D d_model, H heads,
// Dh = D / H, L layers. Attention maps are (T, S): rows = queries, cols = keys.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/model/config.h"
#include "core/model/taps.h"
#include "core/tensor.h"

namespace hs {

class Recorder;

// Every intermediate of one multi-head attention block, in the order it is computed.
// Captured for one chosen layer (TraceOptions::detail_layer) for the step-by-step view.
constexpr Eigen::Index kTextbookMaxWeights = 3 * 1024 * 1024;

struct AttentionSteps {
    Matrix x_query;    // (T, D)  input the queries come from
    Matrix x_memory;   // (S, D)  input keys/values come from (= x_query for self-attention)
    Matrix w_in;       // (I + 2·Ikv, D) fused [W_Q; W_K; W_V] (PyTorch in_proj_weight; Ikv = I
                       //                without grouped-query attention)
    Vector b_in;       // (I + 2·Ikv), zeros without a bias
    Matrix qkv;        // self-attention: (T, I + 2·Ikv) = X · W_inᵀ + b_in, before any rotation;
                       // cross-attention: Q (T, I) = X · W_Qᵀ + b_Q
    Matrix kv_memory;  // cross-attention: [K|V] (S, 2·Ikv) = M · [W_K; W_V]ᵀ + b, M = x_memory;
                       // empty for self-attention
    Matrix q, k, v;    // (T, I), (S, I), (S, I): K and V repeated per query head under GQA
    std::vector<Matrix> q_heads, k_heads, v_heads;  // H × (T|S, Dh): column blocks of q/k/v
    // The same projection in textbook form (Q_h = X·W_Q^h + b_Q^h): H × (D, Dh), W_Q^h =
    // (rows h·Dh … (h+1)·Dh − 1 of W_in's Q block)ᵀ; W_K^h and W_V^h are rows g·Dh … of
    // the K and V blocks, g = h / (H / Hkv) (GQA: one copy per query head). Empty, like
    // w_o, when these copies (3·I·D floats) would exceed kTextbookMaxWeights (d_model beyond
    // ~1024): a copy of a large model's projections is not worth its memory, and the
    // Pipeline shows the fused layout instead.
    std::vector<Matrix> w_q_heads, w_k_heads, w_v_heads;
    std::vector<Matrix> raw_scores;     // H × (T, S) = Q_h K_hᵀ
    std::vector<Matrix> scaled_scores;  // H × (T, S) = Q_h K_hᵀ · scale (soft-capped when softcap > 0)
    std::vector<Matrix> masked_scores;  // H × (T, S) = scaled + mask (−inf where masked)
    std::vector<Matrix> weights;        // H × (T, S) = softmax over each row
    std::vector<Matrix> head_outputs;   // H × (T, Dh) = A_h · V_h
    Matrix concat;     // (T, I) = [head_1 | … | head_H]
    Matrix w_out;      // (D, I)  PyTorch out_proj.weight
    Matrix w_o;        // (I, D)  textbook W_O = W_outᵀ: output = concat · W_O + b_o
    Vector b_out;      // (D)
    Matrix output;     // (T, D) = concat · W_oᵀ + b_o
    float scale = 1.0f;  // 1/√Dh, or the model's own (ModelConfig::score_scale)
    float softcap = 0.0f;  // scaled scores s → softcap · tanh(s / softcap); 0: none
    // What the formulas need to say: a bias that is not all zeros (the "+ b" of
    // Q = X·W_Q + b, K, V — Whisper's K has none — and of the output), and an output
    // projection that is the identity (a worked example without W_O: output = concat).
    bool q_bias = false, k_bias = false, v_bias = false, out_bias = false, out_identity = false;
    // The mask hides keys from queries (causal, or padded keys): without it masked_scores
    // equal scaled_scores, and the Pipeline's "+ mask" card says so.
    bool masked = false;
};

// One map's automatic colour range: lo = the finite minimum, hi = robust_high (the value
// 99.9 % of the cells do not exceed; core/model/robust_range.h), max = the finite maximum.
struct MapRange {
    float lo = 0.0f, hi = 1.0f;
    float max = 1.0f;
};

// One attention block's per-head maps for the overview (always captured by default).
struct HeadMaps {
    std::vector<Matrix> weights;  // H × (T, S), softmax output
    std::vector<Matrix> scores;   // H × (T, S), scaled (soft-capped, pre-mask) scores; only when
                                  // TraceOptions::scores is set (hover readout)
    // False when the forward dropped these maps to stay within
    // TraceOptions::map_budget_bytes: weights and scores are then empty, and
    // TraceSource::layer_maps recomputes them from the stored hidden states.
    bool resident = true;
    // Per head, the colour range of weights and scores: filled by fill_map_ranges (the
    // app's workers, so its UI thread never scans a map), empty otherwise.
    std::vector<MapRange> weight_ranges, score_ranges;
};

// One attention head: layer `layer`, head `head` of the main stack's self-attention, or
// of the decoder stack (encoder-decoder) and its cross-attention block.
struct HeadRef {
    int layer = 0;
    int head = 0;
    bool in_decoder = false;  // encoder-decoder: the decoder stack
    bool cross = false;       // decoder stack: the cross-attention block
    bool operator==(const HeadRef&) const = default;
};

// How an ablated head's output head_h: (T, Dh) is replaced before W_o:
//   Zero: head_h = 0, so the block's output is only the other heads (+ b_o);
//   Mean: every row of head_h = its mean over the T query positions (1/T) Σ_t head_h[t].
enum class AblationMode { Zero, Mean };

struct LayerTrace {
    HeadMaps self_attn;
    std::optional<HeadMaps> cross_attn;  // decoder layers of an encoder-decoder
    Matrix output;                       // (T, D) hidden state leaving the layer
};

// One stack of layers (the model's only stack, or the encoder / decoder of an
// encoder-decoder).
struct StackTrace {
    std::vector<std::string> tokens;  // T display strings
    std::vector<int> ids;             // T token ids
    Matrix input;                     // (T, D) embeddings + positions entering layer 0
    std::vector<LayerTrace> layers;   // L
    Matrix final_output;              // (T, D) after the final norm if any, else = last output
};

struct Trace {
    ModelConfig config;
    std::string model_name;   // "random:…", directory name or example title
    int dropped_tokens = 0;   // tokens past max_len left out (ForwardInput::keep_first)
    int dropped_decoder_tokens = 0;  // the same for the decoder text (encoder-decoder)
    StackTrace main;          // encoder-only / decoder-only: the stack; enc-dec: the encoder
    std::optional<StackTrace> decoder;  // encoder-decoder only
    std::vector<int> key_padding;       // key positions of `main` masked as padding
    // Detailed capture (TraceOptions::detail_layer), if requested; shared, not copied, by
    // the partial traces a big model's window is sent while its forward goes on.
    std::shared_ptr<const AttentionSteps> steps;
    int steps_layer = -1;
    bool steps_in_decoder = false;
    bool steps_cross = false;

    // Models with an LM head (ModelConfig::lm_head): top next-token predictions after the
    // last position of the main stack (the decoder stack of an encoder-decoder).
    struct NextToken {
        int id = 0;
        std::string text;
        float prob = 0.0f;
    };
    std::vector<NextToken> next_tokens;
    // Decoder language models: the full next-token logits (V) after the last position
    // (empty otherwise); next_tokens are the top of softmax(next_token_logits).
    Vector next_token_logits;
    // Every position's logits (T, V) of that stack, when TraceOptions::all_logits asked
    // (training's loss); next_token_logits is then its last row. Empty otherwise.
    Matrix logits;
    // The ablation the forward ran with (TraceOptions::ablate / ablate_mode), so that a
    // dropped layer's maps can be recomputed with the same hidden states.
    std::vector<HeadRef> ablate;
    AblationMode ablate_mode = AblationMode::Zero;
    // The named intermediates TraceOptions::taps asked for (core/model/taps.h), in the order
    // the forward made them.
    struct Tapped {
        std::string name;
        Matrix value;
    };
    std::vector<Tapped> taps;

    int n_layers() const { return static_cast<int>(main.layers.size()); }
};

struct TraceOptions {
    bool head_weights = true;   // per-layer per-head weights
    bool hidden_states = true;  // per-layer outputs
    bool all_logits = false;    // Trace::logits: the LM head at every position, not the last
    bool scores = false;        // per-layer per-head scaled scores too, …
    // … but only while their cells (layers × heads × T × S over every block) stay within
    // this many: the forward decides once it knows T (the app's hover readout asks for
    // scores of short inputs only, without tokenizing on its UI thread).
    std::int64_t scores_cell_limit = std::numeric_limits<std::int64_t>::max();
    // Capture every intermediate of this layer's attention (−1: none).
    int detail_layer = -1;
    bool detail_in_decoder = false;  // encoder-decoder: pick the decoder stack
    bool detail_cross = false;       // decoder stack: the cross-attention block
    // Head ablation (issue 5): these heads' outputs are replaced before W_o, in every
    // model kind except worked examples (which ignore it). Out-of-range heads throw.
    std::vector<HeadRef> ablate;
    AblationMode ablate_mode = AblationMode::Zero;
    // Memory budget for the captured maps (issue 6): full per-head maps (weights, plus
    // scores when asked) are kept for as many attention blocks as fit in this many bytes;
    // the others are not kept (HeadMaps::resident false; computed only when `recorder`
    // wants them).
    // The block of `resident_layer` (in the decoder stack when resident_in_decoder) is
    // always kept. Per block: H · T · S · 4 bytes (× 2 with scores).
    // Default: no budget (every map kept, up to ensure_maps_fit's 8 GB), because analysis
    // code reads every map; the CLI forward/export and the app opt in to a budget.
    std::int64_t map_budget_bytes = std::numeric_limits<std::int64_t>::max();
    int resident_layer = 0;
    bool resident_in_decoder = false;
    // Named intermediates (core/model/taps.h): values whose name matches one of these
    // patterns ("layers.*.attn_out") are copied into Trace::taps; a pattern that matches no
    // name of the model is an hs::Error before anything runs. Worked examples have none.
    std::vector<std::string> taps;
    // Sees the forward's whole stream (recorder.h) on the forward's thread, before the
    // Trace's own recorder: every named value as it is made, and the per-head maps of
    // every block it wants (a block the map budget drops too: the app builds thumbnails of
    // every layer without keeping every map). Null: nobody else listens.
    Recorder* recorder = nullptr;
    // Called on the forward's thread after each layer of the main stack with the trace so
    // far (layers [0, done) filled, the later ones empty; no final output or predictions
    // yet; the Pipeline's steps once their layer ran), so that a window shows a big model's
    // first layers while the others run.
    std::function<void(const Trace& so_far, int done)> on_main_layer;
    // Head indices of one attention block listed in `ablate` (ascending, no repeats).
    std::vector<int> ablated_heads(int layer, bool in_decoder, bool cross) const {
        std::vector<int> out;
        for (const HeadRef& r : ablate)
            if (r.layer == layer && r.in_decoder == in_decoder && r.cross == cross)
                out.push_back(r.head);
        std::sort(out.begin(), out.end());
        out.erase(std::unique(out.begin(), out.end()), out.end());
        return out;
    }
};

// Which blocks of a forward keep their maps: one flag per layer of the main stack, then
// (encoder-decoder) one per decoder layer (its self- and cross-attention count together).
// block_bytes[i]: bytes of block i's maps. The wanted block always stays; the others are
// taken in order 0, 1, … while the running total stays ≤ budget.
std::vector<bool> plan_resident_blocks(const std::vector<double>& block_bytes, double budget,
                                       int wanted);

// The colour range of each map (a map without finite values gets lo = hi = 0).
std::vector<MapRange> map_ranges(const std::vector<Matrix>& maps);
// Fills HeadMaps::weight_ranges / score_ranges of one block, or of every resident block
// of a trace.
void fill_map_ranges(HeadMaps& maps);
void fill_map_ranges(Trace& trace);

// `options` with scores switched off when `score_cells` (the cells of every block's scores)
// exceed options.scores_cell_limit.
TraceOptions with_scores_limit(const TraceOptions& options, double score_cells);

// Per-token L2 norms ‖h_t‖ of the hidden states of one stack: the input to layer 0, then
// every layer's output ((L + 1) rows of T norms), with each row's mean and the largest norm.
struct HiddenNorms {
    std::vector<Vector> norms;  // (L + 1) × (T)
    std::vector<float> means;   // (L + 1)
    float max = 0.0f;
};
// Throws nothing; a stack run without hidden states gives empty rows for its layers.
HiddenNorms hidden_norms(const StackTrace& stack);

// The maps of one block of `trace` (block.head ignored). Throws hs::Error naming the
// valid range when the block does not exist.
const HeadMaps& maps_of(const Trace& trace, const HeadRef& block);
HeadMaps& maps_of(Trace& trace, const HeadRef& block);
// Heads of a block: its maps, or (a block the map budget dropped keeps none) the model's.
int head_count(const Trace& trace, const HeadMaps& maps);
// True when no block of `trace` was dropped by the map budget.
bool all_maps_resident(const Trace& trace);
// The hidden state (T, D) entering layer `layer` of the main (or decoder) stack: the
// stack's input for layer 0, else the previous layer's output. Throws hs::Error when the
// trace was run without hidden states.
const Matrix& layer_input(const Trace& trace, int layer, bool in_decoder);

}  // namespace hs
