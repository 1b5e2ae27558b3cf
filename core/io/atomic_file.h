#pragma once
// Atomic file writes: data goes to a temp file in the same directory, then rename(2),
// so a reader never sees a half-written file and a failed write leaves the old one.
#include <string>
#include <string_view>

namespace hs {

// Throws hs::Error "cannot write PATH: reason" (missing directory, permission, disk full).
void write_file_atomic(const std::string& path, std::string_view bytes);

// Reads a whole file; throws hs::Error "cannot read PATH: reason".
std::string read_file(const std::string& path);

}  // namespace hs
