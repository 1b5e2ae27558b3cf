#pragma once
// Where HeadScope's data files are (assets/: samples.json, the worked examples, the
// default model), so that the binary runs from any directory, built or installed:
//   1. $HEADSCOPE_ASSETS when set (a non-empty directory path);
//   2. <the running binary's directory>/../share/headscope/assets when it exists: an
//      installed copy (cmake --install, the .deb: /usr/bin/headscope → /usr/share/headscope);
//   3. the source tree's assets/ the binary was built from (a build tree).
#include <string>

namespace hs {

std::string assets_dir();

}  // namespace hs
