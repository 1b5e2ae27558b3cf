#include "core/io/file_names.h"

#include <filesystem>

#include "core/error.h"

namespace hs {

std::string file_stem(const std::string& text, std::size_t max_chars) {
    std::string stem;
    for (const char c : text) {
        const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                          c == '-' || c == '_';
        if (keep) stem += c;
        else if (stem.empty() || stem.back() != '_') stem += '_';
    }
    const auto trim = [](std::string& s) {
        while (!s.empty() && (s.back() == '_' || s.back() == '.')) s.pop_back();
        std::size_t lead = 0;
        while (lead < s.size() && (s[lead] == '_' || s[lead] == '.')) ++lead;
        s.erase(0, lead);
    };
    trim(stem);
    if (stem.size() > max_chars) stem.resize(max_chars);
    trim(stem);
    return stem.empty() ? "headscope" : stem;
}

std::string unused_path(const std::string& dir, const std::string& stem, const std::string& ext) {
    namespace fs = std::filesystem;
    const fs::path folder = dir.empty() ? fs::path(".") : fs::path(dir);
    std::error_code ec;
    if (!fs::exists(folder, ec)) {
        fs::create_directories(folder, ec);
        if (ec) throw Error("cannot create the export folder " + folder.string() + ": " + ec.message());
    }
    if (!fs::is_directory(folder, ec)) throw Error("the export folder " + folder.string() + " is not a directory");
    for (int n = 1;; ++n) {
        const fs::path p = folder / (stem + (n == 1 ? "" : "-" + std::to_string(n)) + "." + ext);
        // symlink_status: a dangling link is an entry too (writing would follow it).
        if (!fs::exists(fs::symlink_status(p, ec))) return p.string();
        if (n == 100000) throw Error("the export folder " + folder.string() + " already holds " + stem + "-2 … -100000." + ext);
    }
}

std::string expand_home(const std::string& typed, const std::string& home) {
    if (home.empty() || typed.empty() || typed[0] != '~') return typed;
    if (typed.size() == 1) return home;
    if (typed[1] != '/') return typed;  // ~user/…: not ours to resolve
    return (home.back() == '/' ? home.substr(0, home.size() - 1) : home) + typed.substr(1);
}

}  // namespace hs
