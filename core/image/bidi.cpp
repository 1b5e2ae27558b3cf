#include "core/image/bidi.h"

#include <fribidi.h>

#include <algorithm>
#include <numeric>

namespace hs {

std::vector<int> bidi_levels(std::u32string_view text) {
    const auto n = static_cast<FriBidiStrIndex>(text.size());
    std::vector<int> out(text.size(), 0);
    if (n == 0) return out;
    std::vector<FriBidiChar> chars(text.begin(), text.end());
    std::vector<FriBidiCharType> types(text.size());
    std::vector<FriBidiBracketType> brackets(text.size());
    std::vector<FriBidiLevel> levels(text.size());
    fribidi_get_bidi_types(chars.data(), n, types.data());
    fribidi_get_bracket_types(chars.data(), n, types.data(), brackets.data());
    FriBidiParType base = FRIBIDI_PAR_ON;  // from the first strong character
    if (fribidi_get_par_embedding_levels_ex(types.data(), brackets.data(), n, &base, levels.data()) == 0)
        return out;  // out of memory: left to right, as before bidi
    std::copy(levels.begin(), levels.end(), out.begin());
    return out;
}

std::vector<int> visual_run_order(const std::vector<int>& levels) {
    std::vector<int> order(levels.size());
    std::iota(order.begin(), order.end(), 0);
    if (levels.empty()) return order;
    const int highest = *std::max_element(levels.begin(), levels.end());
    int lowest_odd = highest + 1;
    for (int l : levels)
        if (l % 2 == 1) lowest_odd = std::min(lowest_odd, l);
    // order[k] is the run at position k; levels are looked up through it as runs move.
    for (int level = highest; level >= lowest_odd; --level)
        for (std::size_t k = 0; k < order.size();) {
            if (levels[static_cast<std::size_t>(order[k])] < level) {
                ++k;
                continue;
            }
            std::size_t end = k;
            while (end < order.size() && levels[static_cast<std::size_t>(order[end])] >= level) ++end;
            std::reverse(order.begin() + static_cast<long>(k), order.begin() + static_cast<long>(end));
            k = end;
        }
    return order;
}

}  // namespace hs
