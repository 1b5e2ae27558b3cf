#pragma once
// A token as labels show it (the window's chips, heatmap and rollout labels, exported
// figures): a token of spaces only as open boxes ␣, one a space (an empty label says
// nothing, and a middle dot reads as the token '.'), control characters written out
// ("\n", "\t", "\r", "\x1b"). Data exports (CSV, JSON) keep the token as it is.
#include <string>

namespace hs {

std::string visible_token(const std::string& token);

}  // namespace hs
