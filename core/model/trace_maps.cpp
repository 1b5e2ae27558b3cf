// Helpers over Trace: for the map budget (issue 6) which blocks stay resident, finding
// one block's maps, and the hidden state a layer starts from; and what frontends show
// without computing it themselves (map colour ranges, hidden-state norms, the scores limit).
#include <limits>
#include <string>

#include "core/error.h"
#include "core/kernels/parallel.h"
#include "core/model/robust_range.h"
#include "core/model/trace.h"

namespace hs {

std::vector<bool> plan_resident_blocks(const std::vector<double>& block_bytes, double budget,
                                       int wanted) {
    const int n = static_cast<int>(block_bytes.size());
    std::vector<bool> keep(n, false);
    double used = 0.0;
    if (wanted >= 0 && wanted < n) {  // the block the caller looks at stays, whatever it costs
        keep[wanted] = true;
        used = block_bytes[wanted];
    }
    for (int i = 0; i < n; ++i) {
        if (keep[i]) continue;
        if (used + block_bytes[i] > budget) break;  // blocks stay a prefix: 0..k plus `wanted`
        keep[i] = true;
        used += block_bytes[i];
    }
    return keep;
}

namespace {

const StackTrace& stack_of(const Trace& trace, bool in_decoder) {
    if (!in_decoder) return trace.main;
    if (!trace.decoder) throw Error("this trace has no decoder stack (the model is " +
                                    to_string(trace.config.arch) + ")");
    return *trace.decoder;
}

const LayerTrace& layer_of(const Trace& trace, int layer, bool in_decoder) {
    const StackTrace& stack = stack_of(trace, in_decoder);
    const int n = static_cast<int>(stack.layers.size());
    if (layer < 0 || layer >= n)
        throw Error("layer " + std::to_string(layer) + " is out of range: the " +
                    (in_decoder ? "decoder" : "model") + " has " + std::to_string(n) +
                    " layers (0.." + std::to_string(n - 1) + ")");
    return stack.layers[layer];
}

}  // namespace

const HeadMaps& maps_of(const Trace& trace, const HeadRef& block) {
    const LayerTrace& lt = layer_of(trace, block.layer, block.in_decoder);
    if (!block.cross) return lt.self_attn;
    if (!lt.cross_attn)
        throw Error("layer " + std::to_string(block.layer) + " has no cross-attention");
    return *lt.cross_attn;
}

HeadMaps& maps_of(Trace& trace, const HeadRef& block) {
    return const_cast<HeadMaps&>(maps_of(static_cast<const Trace&>(trace), block));
}

int head_count(const Trace& trace, const HeadMaps& maps) {
    return maps.resident ? static_cast<int>(maps.weights.size()) : trace.config.heads;
}

bool all_maps_resident(const Trace& trace) {
    const auto stack_resident = [](const StackTrace& s) {
        for (const LayerTrace& lt : s.layers)
            if (!lt.self_attn.resident || (lt.cross_attn && !lt.cross_attn->resident))
                return false;
        return true;
    };
    return stack_resident(trace.main) && (!trace.decoder || stack_resident(*trace.decoder));
}

const Matrix& layer_input(const Trace& trace, int layer, bool in_decoder) {
    const StackTrace& stack = stack_of(trace, in_decoder);
    layer_of(trace, layer, in_decoder);  // range check
    const Matrix& x = layer == 0 ? stack.input : stack.layers[layer - 1].output;
    if (x.rows() != static_cast<Eigen::Index>(stack.ids.size()) || x.rows() == 0)
        throw Error("cannot recompute the maps of layer " + std::to_string(layer) +
                    ": the trace holds no hidden state entering it (run with hidden states)");
    return x;
}

TraceOptions with_scores_limit(const TraceOptions& options, double score_cells) {
    TraceOptions out = options;
    out.scores = options.scores && score_cells <= static_cast<double>(options.scores_cell_limit);
    return out;
}

HiddenNorms hidden_norms(const StackTrace& stack) {
    HiddenNorms out;
    std::vector<const Matrix*> states{&stack.input};
    for (const LayerTrace& l : stack.layers) states.push_back(&l.output);
    for (const Matrix* h : states) {
        out.norms.push_back(h->rowwise().norm());  // ‖h_t‖ = √(Σ_d h_td²), one per token
        const Vector& n = out.norms.back();
        out.means.push_back(n.size() ? n.mean() : 0.0f);
        if (n.size()) out.max = std::max(out.max, n.maxCoeff());
    }
    return out;
}

std::vector<MapRange> map_ranges(const std::vector<Matrix>& maps) {
    std::vector<MapRange> out(maps.size());
    // One job per map: a forward calls this for every block while the pool is otherwise idle.
    parallel_for(static_cast<int>(maps.size()), [&](int i) {
        const Matrix& m = maps[static_cast<std::size_t>(i)];
        float lo = std::numeric_limits<float>::infinity(), hi = -lo;
        detail::finite_min_max(m, lo, hi);
        if (lo > hi) {  // no finite value
            out[static_cast<std::size_t>(i)] = MapRange{0.0f, 0.0f, 0.0f};
            return;
        }
        if (lo == hi) {  // one value: a colour bar with two ends
            widen_single_value_range(lo, hi);
            out[static_cast<std::size_t>(i)] = MapRange{lo, hi, hi};
            return;
        }
        out[static_cast<std::size_t>(i)] = MapRange{lo, robust_high(m, lo, hi), hi};
    });
    return out;
}

namespace {

void fill_stack_ranges(StackTrace& stack) {
    for (LayerTrace& l : stack.layers) {
        fill_map_ranges(l.self_attn);
        if (l.cross_attn) fill_map_ranges(*l.cross_attn);
    }
}

}  // namespace

void fill_map_ranges(HeadMaps& maps) {
    maps.weight_ranges = map_ranges(maps.weights);
    maps.score_ranges = map_ranges(maps.scores);
}

void fill_map_ranges(Trace& trace) {
    fill_stack_ranges(trace.main);
    if (trace.decoder) fill_stack_ranges(*trace.decoder);
}

}  // namespace hs
