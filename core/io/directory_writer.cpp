#include "core/io/directory_writer.h"

#include <algorithm>

#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>  // renameat2
#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/error.h"
#include "core/io/atomic_file.h"

namespace hs {

namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& dir, const std::string& reason) {
    throw Error("cannot save to " + dir + ": " + reason);
}

// Hidden siblings .NAME.new-* left by a save that was killed before it finished.
void remove_leftovers(const fs::path& parent, const std::string& name) {
    std::error_code ec;
    const std::string prefix = "." + name + ".new-";
    for (const auto& entry : fs::directory_iterator(parent, ec)) {
        const std::string n = entry.path().filename().string();
        if (n.rfind(prefix, 0) == 0) fs::remove_all(entry.path(), ec);
    }
}

// Files and folders of `from` that `to` lacks, linked (or copied) into `to`, but for the
// names in `replaced`.
void carry_over(const fs::path& from, const fs::path& to, const std::string& dir,
                const std::vector<std::string>& replaced) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(from, ec)) {
        const std::string name = entry.path().filename().string();
        if (std::find(replaced.begin(), replaced.end(), name) != replaced.end()) continue;
        const fs::path dest = to / name;
        if (fs::exists(fs::symlink_status(dest, ec))) continue;  // written anew
        if (entry.is_regular_file(ec) && !entry.is_symlink(ec)) {
            fs::create_hard_link(entry.path(), dest, ec);
            if (!ec) continue;
            ec.clear();
        }
        fs::copy(entry.path(), dest, fs::copy_options::recursive | fs::copy_options::copy_symlinks, ec);
        if (ec) fail(dir, "cannot keep " + entry.path().string() + ": " + ec.message());
    }
    if (ec) fail(dir, "cannot list it: " + ec.message());
}

}  // namespace

void write_directory_atomic(const std::string& dir, const std::function<void(const std::string& new_dir)>& write_files,
                            const std::vector<std::string>& replaced) {
    // A symbolic link to a model directory keeps pointing at it (as write_file_atomic does).
    const fs::path target = resolve_links(dir).lexically_normal();
    std::string name = target.filename().string();
    if (name.empty() || name == "." || name == "..") fail(dir, "give the directory a name");
    const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::error_code ec;
    fs::create_directories(parent, ec);  // mkdir -p of the parents, as `save a/b/model` expects
    if (ec || !fs::is_directory(parent))
        fail(dir, "cannot create directory " + parent.string() + (ec ? ": " + ec.message() : ""));
    const bool existed = fs::exists(fs::symlink_status(target, ec));
    if (existed && !fs::is_directory(target, ec)) fail(dir, "it exists and is not a directory");
    remove_leftovers(parent, name);

    std::string fresh = (parent / ("." + name + ".new-XXXXXX")).string();
    if (!::mkdtemp(fresh.data())) fail(dir, std::strerror(errno));
    try {
        write_files(fresh);
        if (existed) carry_over(target, fresh, dir, replaced);
        ::chmod(fresh.c_str(), 0755);  // mkdtemp makes 0700; model directories are shared
        if (!existed) {
            if (std::rename(fresh.c_str(), target.c_str()) != 0) fail(dir, std::strerror(errno));
            return;
        }
        // One step: DIR becomes the new directory, `fresh` the old one.
        if (::renameat2(AT_FDCWD, fresh.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) != 0)
            fail(dir, std::string("cannot swap in the new files: ") + std::strerror(errno));
    } catch (...) {
        fs::remove_all(fresh, ec);
        throw;
    }
    fs::remove_all(fresh, ec);  // the old files (a kill here leaves a leftover for next time)
}

}  // namespace hs
