#include "app/gl/damage.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <map>

#include "core/kernels/splitmix.h"

namespace hs {

void append_bytes(std::vector<unsigned char>& key, const void* data, std::size_t n) {
    if (n == 0) return;
    const std::size_t at = key.size();
    key.resize(at + n);
    std::memcpy(key.data() + at, data, n);
}

DamageRect unite(const DamageRect& a, const DamageRect& b) {
    if (a.empty()) return b;
    if (b.empty()) return a;
    return {std::min(a.x0, b.x0), std::min(a.y0, b.y0), std::max(a.x1, b.x1), std::max(a.y1, b.y1)};
}

DamageRect intersect(const DamageRect& a, const DamageRect& b) {
    DamageRect r{std::max(a.x0, b.x0), std::max(a.y0, b.y0), std::min(a.x1, b.x1), std::min(a.y1, b.y1)};
    return r.empty() ? DamageRect{} : r;
}

DamageRect backend_scissor(const ImVec4& clip, ImVec2 scale, int fb_height) {
    const float min_x = clip.x * scale.x, min_y = clip.y * scale.y;
    const float max_x = clip.z * scale.x, max_y = clip.w * scale.y;
    if (max_x <= min_x || max_y <= min_y) return {};
    // The backend's glScissor arguments (GL origin bottom-left) ...
    const int x = static_cast<int>(min_x);
    const int y_gl = static_cast<int>(static_cast<float>(fb_height) - max_y);
    const int w = static_cast<int>(max_x - min_x);
    const int h = static_cast<int>(max_y - min_y);
    // ... as rows counted from the top.
    const DamageRect r{x, fb_height - (y_gl + h), x + w, fb_height - y_gl};
    return r.empty() ? DamageRect{} : r;
}

DamageRect outer_pixels(const ImVec4& clip, ImVec2 scale) {
    const DamageRect r{static_cast<int>(std::floor(clip.x * scale.x)), static_cast<int>(std::floor(clip.y * scale.y)),
                      static_cast<int>(std::ceil(clip.z * scale.x)), static_cast<int>(std::ceil(clip.w * scale.y))};
    return r.empty() ? DamageRect{} : r;
}

ImVec4 clip_for_pixels(const DamageRect& p) {
    if (p.empty()) return ImVec4(0, 0, 0, 0);
    return ImVec4(static_cast<float>(p.x0), static_cast<float>(p.y0), static_cast<float>(p.x1),
                  static_cast<float>(p.y1));
}

std::vector<DamageRect> cut_holes(const DamageRect& area, std::vector<DamageRect> holes, std::size_t max_pieces) {
    std::vector<DamageRect> pieces;
    if (area.empty()) return pieces;
    pieces.push_back(area);
    std::stable_sort(holes.begin(), holes.end(),
                     [](const DamageRect& a, const DamageRect& b) { return a.area() > b.area(); });
    std::vector<DamageRect> next;
    for (const DamageRect& hole : holes) {
        next.clear();
        for (const DamageRect& p : pieces) {
            const DamageRect h = intersect(p, hole);
            if (h.empty()) {
                next.push_back(p);
                continue;
            }
            // p − h: full-width bands above and below h, then the parts beside h.
            const DamageRect parts[4] = {{p.x0, p.y0, p.x1, h.y0},
                                         {p.x0, h.y1, p.x1, p.y1},
                                         {p.x0, h.y0, h.x0, h.y1},
                                         {h.x1, h.y0, p.x1, h.y1}};
            for (const DamageRect& part : parts)
                if (!part.empty()) next.push_back(part);
        }
        if (next.size() <= max_pieces) pieces.swap(next);
    }
    return pieces;
}

DamageRect inner_pixels(ImVec2 p0, ImVec2 p1, const ImVec4& clip) {
    // Pixel x is surely written when its centre x + ½ lies in [x0, x1) and x is inside the
    // truncated scissor (x = (int)x0, w = (int)(x1 − x0), which can start up to one pixel
    // late or end one early): ceil(x0) + 1 ≤ x < floor(x1) − 1 is safe for both; same in y.
    const float x0 = std::max(p0.x, clip.x), y0 = std::max(p0.y, clip.y);
    const float x1 = std::min(p1.x, clip.z), y1 = std::min(p1.y, clip.w);
    if (!(x1 > x0 && y1 > y0)) return {};
    const DamageRect r{static_cast<int>(std::ceil(x0)) + 1, static_cast<int>(std::ceil(y0)) + 1,
                       static_cast<int>(std::floor(x1)) - 1, static_cast<int>(std::floor(y1)) - 1};
    return r.empty() ? DamageRect{} : r;
}

DamageRect touched_pixels(const ImVec4& drawn, const ImVec4& clip, ImVec2 scale) {
    const DamageRect box = outer_pixels(drawn, scale);
    return intersect(outer_pixels(clip, scale), DamageRect{box.x0 - 1, box.y0 - 1, box.x1 + 1, box.y1 + 1});
}

namespace {

// A 64-bit hash of n bytes, eight at a time (the last word zero-padded), each mixed in by
// a multiply and a shift, then SplitMix64's output function.
std::uint64_t hash_bytes(const void* data, std::size_t n) {
    const auto* b = static_cast<const unsigned char*>(data);
    std::uint64_t h = kSplitMixGamma ^ n;
    for (std::size_t i = 0; i < n; i += 8) {
        std::uint64_t word = 0;
        std::memcpy(&word, b + i, std::min<std::size_t>(8, n - i));
        h = (h ^ word) * 0xBF58476D1CE4E5B9ULL;
        h ^= h >> 29;
    }
    return splitmix_mix(h);
}

template <typename T>
bool same_bytes(const std::vector<T>& a, const std::vector<T>& b) {
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

bool same_bytes(const ImVec4& a, const ImVec4& b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// One draw of a list: triangle `triangle` of a plain step, or the step's quad (-1).
struct Draw {
    const DrawStep* step;
    int triangle;
};

void list_draws(const ListSummary& l, std::vector<Draw>& out) {
    out.clear();
    for (const DrawStep& st : l.steps) {
        if (st.quad) {
            out.push_back({&st, -1});
            continue;
        }
        for (unsigned int t = 0; t < st.elem_count / 3; ++t) out.push_back({&st, static_cast<int>(t)});
    }
}

const ImDrawVert& corner(const ListSummary& l, const Draw& d, int c) {
    const std::size_t i = d.step->idx_offset + 3 * static_cast<std::size_t>(d.triangle) + static_cast<std::size_t>(c);
    return l.vertices[d.step->vtx_offset + l.indices[i]];
}

// The bytes of a quad's parameters, inside its list's key.
const unsigned char* quad_bytes(const ListSummary& l, const DrawStep& st) { return l.key.data() + st.quad_key_at; }

// Whether two draws put down the same fragments: same kind and clip rect; triangles with
// the same texture and corners (position, uv, colour), quads with the same parameters.
bool same_draw(const ListSummary& la, const Draw& a, const ListSummary& lb, const Draw& b) {
    if (a.step->quad != b.step->quad || !same_bytes(a.step->clip, b.step->clip)) return false;
    if (a.step->quad)
        return a.step->quad_pixels == b.step->quad_pixels && a.step->quad_key_size == b.step->quad_key_size &&
               std::memcmp(quad_bytes(la, *a.step), quad_bytes(lb, *b.step), a.step->quad_key_size) == 0;
    if (a.step->texture != b.step->texture) return false;
    for (int c = 0; c < 3; ++c)
        if (std::memcmp(&corner(la, a, c), &corner(lb, b, c), sizeof(ImDrawVert)) != 0) return false;
    return true;
}

// A hash of what same_draw compares (equal draws, equal hashes), to find candidates.
std::uint64_t draw_hash(const ListSummary& l, const Draw& d) {
    unsigned char bytes[sizeof(ImVec4) + sizeof(ImTextureID) + 3 * sizeof(ImDrawVert)];
    std::size_t n = 0;
    const auto put = [&](const void* p, std::size_t size) {
        std::memcpy(bytes + n, p, size);
        n += size;
    };
    put(&d.step->clip, sizeof(ImVec4));
    if (d.step->quad) {
        const std::uint64_t h = hash_bytes(quad_bytes(l, *d.step), d.step->quad_key_size);
        put(&h, sizeof h);
    } else {
        put(&d.step->texture, sizeof(ImTextureID));
        for (int c = 0; c < 3; ++c) put(&corner(l, d, c), sizeof(ImDrawVert));
    }
    return hash_bytes(bytes, n);
}

// Pixels a draw can touch: touched_pixels of its corners' bounding box, the rule of a
// list's bounds.
DamageRect draw_pixels(const ListSummary& l, const Draw& d) {
    if (d.step->quad) return d.step->quad_pixels;
    ImVec4 box(FLT_MAX, FLT_MAX, -FLT_MAX, -FLT_MAX);
    for (int c = 0; c < 3; ++c) {
        const ImVec2 p = corner(l, d, c).pos;
        box = ImVec4(std::min(box.x, p.x), std::min(box.y, p.y), std::max(box.z, p.x), std::max(box.w, p.y));
    }
    return touched_pixels(box, d.step->clip, l.scale);
}

}  // namespace

bool same_draws(const ListSummary& a, const ListSummary& b) {
    return a.key == b.key && a.bounds == b.bounds && same_bytes(a.vertices, b.vertices) &&
           same_bytes(a.indices, b.indices);
}

std::vector<DamageRect> changed_pixels(const ListSummary& old, const ListSummary& now) {
    if (old.steps.empty() || now.steps.empty()) return disjoint_cover({old.bounds, now.bounds}, kMaxRectsPerList);
    thread_local std::vector<Draw> a, b;  // the UI thread's, reused frame after frame
    list_draws(old, a);
    list_draws(now, b);
    const auto same = [&](std::size_t i, std::size_t j) { return same_draw(old, a[i], now, b[j]); };
    // The draws both end with are left out first.
    std::size_t end_a = a.size(), end_b = b.size();
    while (end_a > 0 && end_b > 0 && same(end_a - 1, end_b - 1)) --end_a, --end_b;
    // Then the two are walked in step. Where they differ, the places (i + da, j + db) with
    // the smallest da + db from which kAnchor draws agree again end the run of differing
    // draws (an edited label's glyphs, a redrawn quad, widgets shifted along a line);
    // without one within kReach draws ahead in each frame (or once kSearchBudget places
    // were tried in this list, or past kMaxRunsPerList runs) the rest is one run.
    std::vector<DamageRect> boxes;  // per run: its old draws' box, its new draws' box
    DamageRect was, is;
    const auto close_run = [&] {
        if (!was.empty() || !is.empty()) boxes.insert(boxes.end(), {was, is});
        was = is = {};
    };
    // kAnchor draws agree from (i, j); reaching the ends of both walks together counts as
    // agreeing (what follows is the common tail).
    const auto agree_from = [&](std::size_t i, std::size_t j) {
        for (std::size_t k = 0; k < kAnchor; ++k) {
            if (i + k == end_a || j + k == end_b) return i + k == end_a && j + k == end_b;
            if (!same(i + k, j + k)) return false;
        }
        return true;
    };
    long budget = kSearchBudget;
    thread_local std::vector<std::pair<std::uint64_t, std::size_t>> window;  // (hash, db) of new draws ahead
    std::size_t i = 0, j = 0;
    while (i < end_a && j < end_b && boxes.size() <= 2 * kMaxRunsPerList) {
        if (same(i, j)) {
            close_run();
            ++i, ++j;
            continue;
        }
        // The new frame's next kReach draws by hash; then for each of the old frame's next
        // kReach draws (da ascending) the agreeing place with the smallest da + db. A hash
        // only proposes a place: agree_from compares the draws themselves.
        window.clear();
        for (std::size_t db = 0; db < kReach && j + db < end_b; ++db) window.emplace_back(draw_hash(now, b[j + db]), db);
        std::sort(window.begin(), window.end());
        std::size_t skip_a = 0, skip_b = 0;
        bool found = false;
        for (std::size_t da = 0; da < kReach && i + da < end_a && budget > 0; ++da) {
            if (found && da >= skip_a + skip_b) break;
            const std::uint64_t h = draw_hash(old, a[i + da]);
            auto at = std::lower_bound(window.begin(), window.end(), std::make_pair(h, std::size_t{0}));
            for (; at != window.end() && at->first == h && budget > 0; ++at) {
                const std::size_t db = at->second;
                if (da + db == 0) continue;  // the pair that differs
                if (found && da + db >= skip_a + skip_b) break;
                --budget;
                if (agree_from(i + da, j + db)) {
                    skip_a = da, skip_b = db, found = true;
                    break;
                }
            }
        }
        if (!found) break;
        for (std::size_t k = i; k < i + skip_a; ++k) was = unite(was, draw_pixels(old, a[k]));
        for (std::size_t k = j; k < j + skip_b; ++k) is = unite(is, draw_pixels(now, b[k]));
        i += skip_a, j += skip_b;
    }
    for (; i < end_a; ++i) was = unite(was, draw_pixels(old, a[i]));
    for (; j < end_b; ++j) is = unite(is, draw_pixels(now, b[j]));
    close_run();
    if (boxes.size() > 2 * kMaxRunsPerList) {  // many runs: one old box, one new box
        DamageRect all_old, all_new;
        for (std::size_t k = 0; k < boxes.size(); k += 2) all_old = unite(all_old, boxes[k]), all_new = unite(all_new, boxes[k + 1]);
        boxes = {all_old, all_new};
    }
    return disjoint_cover(std::move(boxes), kMaxRectsPerList);
}

long long total_area(const std::vector<DamageRect>& rects) {
    long long sum = 0;
    for (const DamageRect& r : rects) sum += r.area();
    return sum;
}

std::vector<DamageRect> disjoint_cover(std::vector<DamageRect> rects, std::size_t max_rects) {
    std::erase_if(rects, [](const DamageRect& r) { return r.empty(); });
    max_rects = std::max<std::size_t>(1, max_rects);
    for (;;) {
        // Unite overlapping rectangles until none overlap.
        bool merged = false;
        for (std::size_t i = 0; i < rects.size() && !merged; ++i)
            for (std::size_t j = i + 1; j < rects.size() && !merged; ++j)
                if (!intersect(rects[i], rects[j]).empty()) {
                    rects[i] = unite(rects[i], rects[j]);
                    rects.erase(rects.begin() + static_cast<long>(j));
                    merged = true;
                }
        if (merged) continue;
        if (rects.size() <= max_rects) return rects;
        // Too many: unite the pair that adds the fewest pixels (then check overlaps again).
        std::size_t bi = 0, bj = 1;
        long long best = -1;
        for (std::size_t i = 0; i < rects.size(); ++i)
            for (std::size_t j = i + 1; j < rects.size(); ++j) {
                const long long added = unite(rects[i], rects[j]).area() - rects[i].area() - rects[j].area();
                if (best < 0 || added < best) best = added, bi = i, bj = j;
            }
        rects[bi] = unite(rects[bi], rects[bj]);
        rects.erase(rects.begin() + static_cast<long>(bj));
    }
}

std::vector<DamageRect> DamageTracker::update(std::vector<ListSummary>& lists, int fb_width, int fb_height, std::uint64_t epoch) {
    const DamageRect full{0, 0, fb_width, fb_height};
    const bool same_frame = valid_ && fb_width == width_ && fb_height == height_ && epoch == epoch_;
    std::vector<DamageRect> damage;
    bool everything = !same_frame;
    if (same_frame) {
        // Match lists by owner name (k-th list of a name ↔ k-th of the previous frame).
        auto keyed = [](const std::vector<ListSummary>& v) {
            std::map<std::string, int> seen;
            std::vector<std::string> keys;
            for (const ListSummary& l : v) keys.push_back(l.name + '\x1f' + std::to_string(seen[l.name]++));
            return keys;
        };
        const std::vector<std::string> old_keys = keyed(previous_), new_keys = keyed(lists);
        std::map<std::string, int> old_index;
        for (int i = 0; i < static_cast<int>(old_keys.size()); ++i) old_index[old_keys[i]] = i;
        std::vector<bool> old_matched(previous_.size(), false);
        int last_matched_old = -1;
        for (int i = 0; i < static_cast<int>(lists.size()); ++i) {
            const auto it = old_index.find(new_keys[i]);
            if (it == old_index.end()) {
                damage.push_back(lists[i].bounds);  // appeared
                continue;
            }
            const int j = it->second;
            if (j < last_matched_old) {
                everything = true;  // z-order of surviving lists changed
                break;
            }
            last_matched_old = j;
            old_matched[j] = true;
            const ListSummary& old = previous_[j];
            if (!same_draws(old, lists[i]))
                for (const DamageRect& r : changed_pixels(old, lists[i])) damage.push_back(r);
        }
        for (std::size_t j = 0; j < previous_.size(); ++j)
            if (!old_matched[j]) damage.push_back(previous_[j].bounds);  // disappeared
        for (DamageRect& r : damage) r = intersect(r, full);
        damage = disjoint_cover(std::move(damage), kMaxDamageRects);
    }
    if (everything) damage = {full};
    previous_.swap(lists);
    width_ = fb_width;
    height_ = fb_height;
    epoch_ = epoch;
    valid_ = true;
    return damage;
}

}  // namespace hs
