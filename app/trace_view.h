#pragma once
// The UI's copy of the newest result: the trace (read-only, shared with the worker),
// GL textures made from it once per trace/selection, and lookups for the selection.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/gl/texture.h"
#include "app/layer_maps_worker.h"
#include "app/mip_worker.h"
#include "app/state.h"
#include "app/worker.h"
#include "core/image/matrix_summary.h"
#include "core/model/trace.h"

namespace hs {

struct TraceView {
    std::shared_ptr<const Trace> trace;
    std::shared_ptr<const TraceThumbnails> thumbnails;
    std::shared_ptr<const HiddenNorms> main_norms, decoder_norms;  // from the worker
    std::shared_ptr<const TokenWords> main_words, decoder_words;  // from the worker
    std::shared_ptr<const MatrixSummaries> summaries;  // ranges and mips of the step matrices
    std::string error;              // last failed compute (the old trace stays shown)
    bool input_error = false;       // `error` is about the text: shown by the text box
    ByteTokens byte_tokens;         // the trace's tokens that are raw bytes (byte fallback)
    std::vector<std::string> unknown_words;  // the trace's words outside the vocabulary
    std::shared_ptr<const std::vector<bool>> samples_read;  // [i]: the model reads sample i whole
    int input_tokens = 0, input_max_len = 0;  // a text over max_len: its size, the limit
    std::string source_kind;
    long long parameter_count = 0;
    double compute_ms = 0.0;
    double load_ms = 0.0;           // last time the model was (re)opened
    double forward_ms = 0.0;
    std::string model_arg;          // what `trace` was computed from
    ModelInfo info;                 // of that model
    std::uint64_t generation = 0;   // of `trace`
    bool partial = false;           // `trace` is a big model's first layers, the others running
    // The selection a partial trace clamped to its few layers, and what the clamp made of
    // it: restored when the whole trace arrives, unless the user chose another meanwhile.
    struct HeldSelection {
        int layer = 0, head = 0;
        MapKind map = MapKind::Self;
        int clamped_layer = 0, clamped_head = 0;
        MapKind clamped_map = MapKind::Self;
    };
    std::optional<HeldSelection> held_selection;
    std::shared_ptr<const TraceSource> source;       // the model `trace` came from (may be null)
    SourceInput input;                               // the input `trace` was computed for
    std::shared_ptr<const Trace> base_trace;         // ablation on: the plain run
    std::shared_ptr<const AblationEffect> effect;    // ablation on: what changed

    // Thumbnail textures per MapKind: [kind][layer][head], uploaded when a trace arrives.
    std::vector<std::vector<FloatTexture>> thumbs[3];
    // The selected map at full resolution, uploaded when the selection changes.
    FloatTexture main;
    std::string main_key;
    float main_lo = 0.0f, main_hi = 1.0f;  // auto colour range of the selected map (MapRange)
    float main_max = 1.0f;                 // its finite max (> main_hi: the range is clipped)

    // Blocks the forward dropped (HeadMaps::resident false) are recomputed off the UI
    // thread (AppContext::layer_maps_worker) when selected; head_maps() then finds them
    // (one block is held at a time, of `trace`: accept() clears it).
    HeadRef recomputed_block;
    std::shared_ptr<const HeadMaps> recomputed_maps;  // null: none held
    std::optional<HeadRef> layer_maps_requested;  // asked for, not yet arrived
    std::string layer_maps_error;                 // last failed recompute, of this block:
    HeadRef layer_maps_error_block;

    // Accepts a finished result: keeps the trace on success, the error otherwise.
    void accept(ComputeResult result);
    // Uploads textures that are out of date (call once per frame, before drawing); takes
    // a recomputed block from `layer_maps` and asks it for the selected one if dropped;
    // asks `mips` for the mip levels of a large selected map and uploads them on arrival.
    void sync_textures(const AppState& state, LayerMapsWorker& layer_maps, MipWorker& mips);
    // The colour scale of the heatmap / the grid under the state's range settings.
    ColorScale heatmap_scale(const AppState& state) const;
    ColorScale grid_scale(const AppState& state) const;
    // The maps of (kind, layer) of `trace`: a block the forward dropped resolves to its
    // recomputed maps once they arrived (else to the empty stored maps, resident false).
    const HeadMaps* head_maps(MapKind kind, int layer) const;
    // How labels name the tokens of `stack` (the trace's main stack or its decoder).
    const TokenWords& words_of(const StackTrace& stack) const;
    // The (T, S) weights (or scaled scores) of the selected layer/head, or nullptr.
    const Matrix* selected_map(const AppState& state, bool scores) const;
    // The same, sharing ownership of the trace or recomputed block that holds it.
    std::shared_ptr<const Matrix> selected_map_shared(const AppState& state, bool scores) const;
};

// Stacks and maps of the current selection; nullptr / empty when the trace lacks them.
const StackTrace* query_stack(const Trace& trace, MapKind kind);
const StackTrace* key_stack(const Trace& trace, MapKind kind);
const std::vector<LayerTrace>* layers_of(const Trace& trace, MapKind kind);
// The maps of (kind, layer) as the trace stores them (resident false for a block the
// forward dropped; TraceView::head_maps finds its recomputed maps).
const HeadMaps* stored_head_maps(const Trace& trace, MapKind kind, int layer);
// The block of (kind, layer) as core names it.
HeadRef block_of(MapKind kind, int layer);
// Whether the selected block was dropped by the map budget and its maps are being
// recomputed (the heatmap shows "computing layer N…").
bool selected_maps_pending(const TraceView& view, const AppState& state);
// Clamps layer/head/map to what the trace has.
void clamp_selection(AppState& state, const Trace& trace);
int heads_in(const Trace& trace, MapKind kind);
// Grouped-query attention: the key/value head query head `head` reads,
// head / (heads / kv_heads); −1 when every head has its own K/V.
int kv_head_of(const Trace& trace, int head);
// Grid / heatmap caption of a head: "H5 · kv2" under GQA, else "H5".
std::string head_caption(const Trace& trace, int head);

}  // namespace hs
