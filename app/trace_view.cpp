#include "app/trace_view.h"

#include <algorithm>

namespace hs {

HeadRef block_of(MapKind kind, int layer) {
    return HeadRef{layer, 0, kind != MapKind::Self, kind == MapKind::DecoderCross};
}

bool selected_maps_pending(const TraceView& view, const AppState& state) {
    return view.trace && view.layer_maps_requested &&
           *view.layer_maps_requested == block_of(state.map, state.layer);
}

void TraceView::accept(ComputeResult result) {
    if (!result.trace) {
        if (partial && result.generation == generation) {  // the run whose first layers are shown failed
            trace.reset();
            thumbnails.reset();
            partial = false;
        }
        error = result.error;
        input_error = result.input_error;
        input_tokens = result.input_tokens;
        input_max_len = result.input_max_len;
        return;
    }
    error.clear();
    input_error = false;
    byte_tokens = result.byte_tokens;
    unknown_words = result.unknown_words;
    samples_read = result.samples_read;
    input_tokens = input_max_len = 0;
    recomputed_maps.reset();
    layer_maps_requested.reset();
    layer_maps_error.clear();
    trace = std::move(result.trace);
    thumbnails = std::move(result.thumbnails);
    main_norms = std::move(result.main_norms);
    summaries = std::move(result.summaries);
    decoder_norms = std::move(result.decoder_norms);
    main_words = std::move(result.main_words);
    decoder_words = std::move(result.decoder_words);
    // Every result the worker delivers names its tokens; one made elsewhere gets its names here.
    if (trace && !main_words) main_words = std::make_shared<const TokenWords>(token_words(trace->main.tokens));
    if (trace && trace->decoder && !decoder_words)
        decoder_words = std::make_shared<const TokenWords>(token_words(trace->decoder->tokens));
    source_kind = result.source_kind;
    parameter_count = result.parameter_count;
    compute_ms = result.milliseconds;
    forward_ms = result.forward_ms;
    load_ms = result.load_ms;
    model_arg = result.model_arg;
    info = result.info;
    generation = result.generation;
    partial = result.partial;
    source = std::move(result.source);
    input = std::move(result.input);
    base_trace = std::move(result.base_trace);
    effect = std::move(result.effect);
    // Upload every thumbnail once for this trace, into the textures of the last trace
    // where there are any (same shape: contents replaced in place, no GL object churn).
    const std::vector<std::vector<Matrix>>* sources[3] = {
        &thumbnails->self, &thumbnails->decoder_self, &thumbnails->decoder_cross};
    for (int k = 0; k < 3; ++k) {
        const std::vector<std::vector<Matrix>>& layers = *sources[k];
        thumbs[k].resize(layers.size());
        for (std::size_t l = 0; l < layers.size(); ++l) {
            std::vector<FloatTexture>& row = thumbs[k][l];
            row.resize(layers[l].size());
            for (std::size_t h = 0; h < layers[l].size(); ++h) row[h].upload(layers[l][h]);
        }
    }
    main_key.clear();
}

void TraceView::sync_textures(const AppState& state, LayerMapsWorker& layer_maps, MipWorker& mips) {
    if (!trace) return;
    // 0. The mip levels of the shown map arrived (of this upload: versions are unique).
    if (std::optional<MipResult> r = mips.take_result(); r && r->texture_version == main.version())
        main.upload_mip_levels(r->levels);
    // 1. A recomputed block arrived: hold it (if it is of this trace) and re-upload.
    if (std::optional<LayerMapsResult> r = layer_maps.take_result()) {
        if (r->trace == trace) {
            if (layer_maps_requested && *layer_maps_requested == r->block) layer_maps_requested.reset();
            if (r->maps) {
                recomputed_block = r->block;
                recomputed_maps = r->maps;
                layer_maps_error.clear();
            } else {
                layer_maps_error = r->error;
                layer_maps_error_block = r->block;
            }
            main_key.clear();
        }
    }
    // 2. The selected block was dropped and is not held: ask the worker for it.
    const HeadRef want = block_of(state.map, state.layer);
    const HeadMaps* shown = head_maps(state.map, state.layer);
    if (!layer_maps_error.empty() && !(layer_maps_error_block == want)) layer_maps_error.clear();
    if (shown && !shown->resident && source &&
        !(layer_maps_requested && *layer_maps_requested == want) && layer_maps_error.empty()) {
        layer_maps_requested = want;
        layer_maps.submit(LayerMapsRequest{source, trace, want});
    }
    const std::string key = std::to_string(generation) + "/" + std::to_string(int(state.map)) +
                            "/" + std::to_string(state.layer) + "/" + std::to_string(state.head) +
                            "/" + (state.show_scores ? "s" : "w");
    if (key == main_key) return;
    main_key = key;
    const Matrix* m = selected_map(state, state.show_scores);
    if (m) {
        main.upload(*m);  // level 0 now; the levels below from `mips` a few ms later
        if (std::max(m->rows(), m->cols()) > kMipLevelsAbove)
            mips.submit(MipRequest{selected_map_shared(state, state.show_scores), main.version()});
        // Its colour range, found by the worker that made the maps (core's map_ranges).
        const HeadMaps* maps = head_maps(state.map, state.layer);
        const std::vector<MapRange>& ranges = state.show_scores ? maps->score_ranges : maps->weight_ranges;
        const MapRange r = state.head < static_cast<int>(ranges.size()) ? ranges[static_cast<std::size_t>(state.head)]
                                                                        : MapRange{};
        main_lo = r.lo;
        main_hi = r.hi;
        main_max = r.max;
    } else {
        main.reset();
    }
}

const TokenWords& TraceView::words_of(const StackTrace& stack) const {
    static const TokenWords none;  // no trace: accept() names the tokens of every trace it keeps
    const auto& words = trace && trace->decoder && &stack == &*trace->decoder ? decoder_words : main_words;
    return words ? *words : none;
}

ColorScale TraceView::heatmap_scale(const AppState& state) const {
    ColorScale s = state.scale;
    if (state.auto_range || state.show_scores) {
        s.lo = main_lo;
        s.hi = main_hi;
    }
    return s;
}

ColorScale TraceView::grid_scale(const AppState& state) const {
    ColorScale s = state.scale;
    if (state.auto_range && thumbnails) {
        s.lo = thumbnails->lo[static_cast<int>(state.map)];
        s.hi = thumbnails->hi[static_cast<int>(state.map)];
    }
    return s;
}

const StackTrace* query_stack(const Trace& trace, MapKind kind) {
    if (kind == MapKind::Self) return &trace.main;
    return trace.decoder ? &*trace.decoder : nullptr;
}

const StackTrace* key_stack(const Trace& trace, MapKind kind) {
    if (kind == MapKind::Self) return &trace.main;
    if (kind == MapKind::DecoderCross) return &trace.main;  // keys = encoder tokens
    return trace.decoder ? &*trace.decoder : nullptr;
}

const std::vector<LayerTrace>* layers_of(const Trace& trace, MapKind kind) {
    const StackTrace* s = query_stack(trace, kind);
    return s ? &s->layers : nullptr;
}

const HeadMaps* stored_head_maps(const Trace& trace, MapKind kind, int layer) {
    const std::vector<LayerTrace>* layers = layers_of(trace, kind);
    if (!layers || layer < 0 || layer >= static_cast<int>(layers->size())) return nullptr;
    const LayerTrace& l = (*layers)[static_cast<std::size_t>(layer)];
    if (kind == MapKind::DecoderCross) return l.cross_attn ? &*l.cross_attn : nullptr;
    return &l.self_attn;
}

const HeadMaps* TraceView::head_maps(MapKind kind, int layer) const {
    if (!trace) return nullptr;
    const HeadMaps* stored = stored_head_maps(*trace, kind, layer);
    if (stored && !stored->resident && recomputed_maps && recomputed_block == block_of(kind, layer))
        return recomputed_maps.get();
    return stored;
}

const Matrix* TraceView::selected_map(const AppState& state, bool scores) const {
    const HeadMaps* maps = head_maps(state.map, state.layer);
    if (!maps) return nullptr;
    const std::vector<Matrix>& v = scores ? maps->scores : maps->weights;
    if (state.head < 0 || state.head >= static_cast<int>(v.size())) return nullptr;
    return &v[static_cast<std::size_t>(state.head)];
}

int heads_in(const Trace& trace, MapKind kind) {
    const HeadMaps* maps = stored_head_maps(trace, kind, 0);
    return maps ? head_count(trace, *maps) : 0;
}

void clamp_selection(AppState& state, const Trace& trace) {
    if (!trace.decoder) state.map = MapKind::Self;
    const std::vector<LayerTrace>* layers = layers_of(trace, state.map);
    const int n_layers = layers ? static_cast<int>(layers->size()) : 0;
    state.layer = std::clamp(state.layer, 0, std::max(0, n_layers - 1));
    state.head = std::clamp(state.head, 0, std::max(0, heads_in(trace, state.map) - 1));
}

int kv_head_of(const Trace& trace, int head) {
    const int heads = trace.config.heads, kv = trace.config.kv_head_count();
    if (kv <= 0 || kv >= heads || heads % kv != 0) return -1;
    return head / (heads / kv);
}

std::string head_caption(const Trace& trace, int head) {
    const int kv = kv_head_of(trace, head);
    return "H" + std::to_string(head) + (kv >= 0 ? " · kv" + std::to_string(kv) : "");
}

std::shared_ptr<const Matrix> TraceView::selected_map_shared(const AppState& state, bool scores) const {
    const Matrix* m = selected_map(state, scores);
    if (!m) return nullptr;
    const HeadMaps* maps = head_maps(state.map, state.layer);
    if (recomputed_maps && maps == recomputed_maps.get()) return std::shared_ptr<const Matrix>(recomputed_maps, m);
    return std::shared_ptr<const Matrix>(trace, m);
}

}  // namespace hs
