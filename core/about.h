#pragma once
// What HeadScope is built from, for the About window and `headscope --version`: its own
// version and, for each library core uses, the version it was built with and its licence.
#include <string>
#include <vector>

namespace hs {

struct Component {
    std::string name;     // "Eigen"
    std::string version;  // "3.4.0" (as built; "" when the library has none)
    std::string licence;  // "MPL-2.0"
    std::string role;     // what HeadScope uses it for
};

std::string headscope_version();  // "0.1.0" (CMake's project version)
std::string headscope_revision();  // "c2f303b1a2" (git describe of the build; "unknown" outside git)
// Eigen, nlohmann/json, libpng, Highway, stb, OpenBLAS (when linked), the figure fonts found.
std::vector<Component> core_components();

}  // namespace hs
