#include "app/path_complete.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "core/io/file_names.h"

namespace hs {

std::vector<PathMatch> complete_path(const std::string& typed, std::size_t limit) {
    namespace fs = std::filesystem;
    // Split "dir/prefix" at the last '/': the directory keeps its text as typed, so the
    // completion extends exactly what the user wrote.
    const std::size_t slash = typed.rfind('/');
    const std::string dir_text = slash == std::string::npos ? "" : typed.substr(0, slash + 1);
    const std::string prefix = slash == std::string::npos ? typed : typed.substr(slash + 1);
    std::string dir = dir_text.empty() ? "." : dir_text;
    if (const char* home = std::getenv("HOME")) dir = expand_home(dir, home);

    std::vector<PathMatch> out;
    std::error_code ec;
    for (fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.compare(0, prefix.size(), prefix) != 0) continue;
        if (!name.empty() && name[0] == '.' && (prefix.empty() || prefix[0] != '.')) continue;
        std::error_code e2;
        PathMatch m;
        m.name = name;
        m.directory = it->is_directory(e2);
        const std::string ext = it->path().extension().string();
        if (m.directory) {
            m.path = dir_text + name + "/";
            m.model = fs::is_regular_file(it->path() / "config.json", e2);
        } else if (ext == ".bin" || ext == ".gguf" || ext == ".json") {
            m.path = dir_text + name;
            m.model = ext != ".json";
        } else {
            continue;
        }
        out.push_back(std::move(m));
    }
    std::sort(out.begin(), out.end(), [](const PathMatch& a, const PathMatch& b) { return a.name < b.name; });
    if (out.size() > limit) out.resize(limit);
    return out;
}

std::string common_prefix(const std::vector<PathMatch>& matches) {
    if (matches.empty()) return {};
    std::string p = matches.front().path;
    for (const PathMatch& m : matches) {
        std::size_t n = 0;
        while (n < p.size() && n < m.path.size() && p[n] == m.path[n]) ++n;
        // Never cut a UTF-8 sequence: back off over continuation bytes.
        while (n > 0 && n < p.size() && (static_cast<unsigned char>(p[n]) & 0xC0) == 0x80) --n;
        p.resize(n);
    }
    return p;
}

}  // namespace hs
