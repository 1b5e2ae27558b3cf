#pragma once
// Shared by the fuzz targets (one reader each, tests/fuzz/fuzz_*.cpp): the input as a
// file, for readers that take a path, and the rule every target follows: hs::Error is the
// expected answer to a bad file; anything else escaping (another exception, a crash, a
// leak, a hang, a huge allocation) is a finding.
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

namespace hs::fuzz {

// A file of this process holding `data` (rewritten for every input).
inline std::string as_file(const std::uint8_t* data, std::size_t size, const std::string& name) {
    // In memory when the machine has /dev/shm: a file per input is the slow part.
    const std::string base = ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    const std::string dir = base + "/headscope_fuzz_" + std::to_string(::getpid());
    ::mkdir(dir.c_str(), 0700);
    const std::string path = dir + "/" + name;
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data),
                                                                   static_cast<std::streamsize>(size));
    return path;
}

// The input split at its first NUL byte into two files' contents (vocab + merges, …).
inline std::pair<std::string, std::string> split_at_nul(const std::uint8_t* data, std::size_t size) {
    const std::string all(reinterpret_cast<const char*>(data), size);
    const std::size_t nul = all.find('\0');
    if (nul == std::string::npos) return {all, ""};
    return {all.substr(0, nul), all.substr(nul + 1)};
}

}  // namespace hs::fuzz
