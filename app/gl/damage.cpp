#include "app/gl/damage.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

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

DamageRect DamageTracker::update(std::vector<ListSummary>& lists, int fb_width, int fb_height, std::uint64_t epoch) {
    const DamageRect full{0, 0, fb_width, fb_height};
    const bool same_frame = valid_ && fb_width == width_ && fb_height == height_ && epoch == epoch_;
    DamageRect damage;
    if (!same_frame) {
        damage = full;
    } else {
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
                damage = unite(damage, lists[i].bounds);  // appeared
                continue;
            }
            const int j = it->second;
            if (j < last_matched_old) {
                damage = full;  // z-order of surviving lists changed
                break;
            }
            last_matched_old = j;
            old_matched[j] = true;
            const ListSummary& old = previous_[j];
            if (old.key != lists[i].key || old.bounds != lists[i].bounds)
                damage = unite(damage, unite(old.bounds, lists[i].bounds));
        }
        if (damage != full)
            for (std::size_t j = 0; j < previous_.size(); ++j)
                if (!old_matched[j]) damage = unite(damage, previous_[j].bounds);  // disappeared
        damage = intersect(damage, full);
    }
    previous_.swap(lists);
    width_ = fb_width;
    height_ = fb_height;
    epoch_ = epoch;
    valid_ = true;
    return damage;
}

}  // namespace hs
