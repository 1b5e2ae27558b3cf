#include "app/gl/ui_runs.h"

#include <cmath>

namespace hs {
namespace {

bool white(const ImDrawVert& v, ImVec2 uv) { return v.uv.x == uv.x && v.uv.y == uv.y; }
bool opaque(const ImDrawVert& v) { return (v.col >> IM_COL32_A_SHIFT & 0xFFu) == 0xFFu; }

// Pixels covered by triangle (a, b, c): |(b − a) × (c − a)| / 2.
double triangle_area(ImVec2 a, ImVec2 b, ImVec2 c) {
    return 0.5 * std::fabs(double(b.x - a.x) * double(c.y - a.y) - double(b.y - a.y) * double(c.x - a.x));
}

}  // namespace

RunKind triangle_kind(const ImDrawVert& a, const ImDrawVert& b, const ImDrawVert& c, const RunOptions& options) {
    if (!white(a, options.white_uv) || !white(b, options.white_uv) || !white(c, options.white_uv))
        return RunKind::Textured;
    if (options.opaque && opaque(a) && a.col == b.col && a.col == c.col) return RunKind::Opaque;
    return RunKind::Solid;
}

void split_runs(const ImDrawVert* vtx, const ImDrawIdx* idx, unsigned elem_count, const RunOptions& options,
                std::vector<UiRun>& out) {
    out.clear();
    // 1. Maximal runs of one kind, with their areas (storage reused across calls).
    thread_local std::vector<double> areas;
    areas.clear();
    for (unsigned i = 0; i + 2 < elem_count; i += 3) {
        const ImDrawVert& a = vtx[idx[i]];
        const ImDrawVert& b = vtx[idx[i + 1]];
        const ImDrawVert& c = vtx[idx[i + 2]];
        const RunKind kind = triangle_kind(a, b, c, options);
        const double area = triangle_area(a.pos, b.pos, c.pos);
        if (!out.empty() && out.back().kind == kind) {
            out.back().count += 3;
            areas.back() += area;
        } else {
            out.push_back(UiRun{i, 3, kind});
            areas.push_back(area);
        }
    }
    // 2. Small cheap runs take the cheapest neighbouring kind that can draw them (a kind
    // below theirs); the previous run is already final, the next one as found.
    for (std::size_t r = 0; r < out.size(); ++r) {
        const RunKind kind = out[r].kind;
        if (kind == RunKind::Textured || areas[r] >= options.min_area) continue;
        bool found = false;
        RunKind best = RunKind::Textured;
        for (std::size_t n : {r - 1, r + 1}) {
            if (n >= out.size() || out[n].kind >= kind) continue;  // r - 1 wraps when r == 0
            if (!found || out[n].kind > best) best = out[n].kind;
            found = true;
        }
        if (found) out[r].kind = best;
    }
    // 3. Neighbours of equal kind merge.
    std::size_t w = 0;
    for (std::size_t r = 0; r < out.size(); ++r) {
        if (w > 0 && out[w - 1].kind == out[r].kind)
            out[w - 1].count += out[r].count;
        else
            out[w++] = out[r];
    }
    out.resize(w);
}

}  // namespace hs
