#pragma once
// Bidirectional text (Unicode's algorithm, UAX #9, through FriBidi): which characters of a
// line run right to left, and the order a line's runs are drawn in. Token labels mix
// scripts ("abc مرحبا"); an exported figure draws each run in its own direction.
#include <string_view>
#include <vector>

namespace hs {

// The embedding level of each code point of one line (a paragraph of its own, its base
// direction from its first strong character): even runs left to right, odd right to left.
std::vector<int> bidi_levels(std::u32string_view text);

// The drawing order of runs whose levels are `levels` (one per run, in logical order):
// rule L2, from the highest level down to the lowest odd one, reverses every maximal
// sequence of runs at that level or above. Returns run indices, leftmost first.
std::vector<int> visual_run_order(const std::vector<int>& levels);

}  // namespace hs
