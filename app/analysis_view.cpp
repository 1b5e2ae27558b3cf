#include "app/analysis_view.h"

#include <algorithm>
#include <cmath>

namespace hs {

void KeyedTexture::sync(const std::string& new_key, const Matrix& m) {
    if (new_key == key && !texture.empty()) return;
    key = new_key;
    texture.upload(m);
    bool any = false;
    for (Eigen::Index i = 0; i < m.size(); ++i) {
        const float v = m.data()[i];
        if (!std::isfinite(v)) continue;
        lo = any ? std::min(lo, v) : v;
        hi = any ? std::max(hi, v) : v;
        any = true;
    }
    if (!any) lo = 0.0f, hi = 1.0f;
}

}  // namespace hs
