#pragma once
// A chart's axis number: whole numbers on an axis spanning 10 or more ("1500", not
// "1.5e+03": steps, token counts), three significant digits on a finer one ("0.25").
// The window's charts and the exported figures write their axes with it.
#include <string>

namespace hs {

std::string tick_label(double value, double span);

}  // namespace hs
