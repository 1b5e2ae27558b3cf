#include "core/tokenize/score_merge.h"

#include <queue>

namespace hs {

std::vector<std::string> merge_by_score(std::vector<std::string> symbols, const PairScore& score_of) {
    const std::size_t n = symbols.size();
    std::vector<std::size_t> prev(n), next(n);  // neighbours in a linked list; n = none
    std::vector<unsigned> version(n, 0);        // bumped whenever symbol i changes or dies
    std::vector<bool> alive(n, true);           // false once merged into its left neighbour
    for (std::size_t i = 0; i < n; ++i) {
        prev[i] = i == 0 ? n : i - 1;
        next[i] = i + 1;
    }
    struct Pair {
        float score;
        std::size_t left, right;
        unsigned left_version, right_version;
        bool operator<(const Pair& o) const {  // max-heap: higher score, then further left
            return score != o.score ? score < o.score : left > o.left;
        }
    };
    std::priority_queue<Pair> heap;
    const auto push = [&](std::size_t left, std::size_t right) {
        if (left >= n || right >= n) return;
        if (const auto score = score_of(symbols[left], symbols[right]))
            heap.push({*score, left, right, version[left], version[right]});
    };
    for (std::size_t i = 0; i + 1 < n; ++i) push(i, i + 1);
    while (!heap.empty()) {
        const Pair p = heap.top();
        heap.pop();
        if (version[p.left] != p.left_version || version[p.right] != p.right_version)
            continue;  // stale: one of its symbols changed or died since
        symbols[p.left] += symbols[p.right];
        ++version[p.left];
        alive[p.right] = false;
        ++version[p.right];
        next[p.left] = next[p.right];
        if (next[p.left] < n) prev[next[p.left]] = p.left;
        push(prev[p.left], p.left);
        push(p.left, next[p.left]);
    }
    std::vector<std::string> out;
    for (std::size_t i = 0; i < n; ++i)
        if (alive[i]) out.push_back(std::move(symbols[i]));
    return out;
}

}  // namespace hs
