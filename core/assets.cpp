#include "core/assets.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace hs {

namespace {

// The installed layout next to the running binary, or "" (not installed, or /proc absent).
std::string installed_assets() {
    std::error_code ec;
    const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) return {};
    const std::filesystem::path dir = exe.parent_path().parent_path() / "share" / "headscope" / "assets";
    return std::filesystem::is_directory(dir, ec) ? dir.string() : std::string();
}

}  // namespace

std::string assets_dir() {
    if (const char* env = std::getenv("HEADSCOPE_ASSETS"); env && *env) return env;
    static const std::string installed = installed_assets();  // the binary does not move
    return installed.empty() ? std::string(HEADSCOPE_ASSETS_DIR) : installed;
}

}  // namespace hs
