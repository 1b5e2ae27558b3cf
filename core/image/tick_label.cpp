#include "core/image/tick_label.h"

#include <cmath>
#include <cstdio>

namespace hs {

std::string tick_label(double value, double span) {
    char buf[48];
    if (std::fabs(span) >= 10.0 && std::fabs(value) < 1e15) {
        std::snprintf(buf, sizeof buf, "%.0f", value);
        return buf[0] == '-' && std::string(buf) == "-0" ? "0" : buf;
    }
    std::snprintf(buf, sizeof buf, "%.3g", value);
    return buf;
}

}  // namespace hs
