#pragma once
// Atomic file writes for exports and settings.
#include <string>

namespace hs {

// Writes `content` to PATH.tmp-<pid> in the same directory, then renames it over `path`,
// so readers never see a half-written file. Throws hs::Error
// "cannot write PATH: REASON" on failure (the temp file is removed).
void write_file_atomic(const std::string& path, const std::string& content);

}  // namespace hs
