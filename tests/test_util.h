#pragma once
// Helpers shared by the unit tests: a scratch directory removed at scope exit, whole-file
// text I/O, and checks on the message of an expected hs::Error.
#include <stdlib.h>  // mkdtemp

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include <gtest/gtest.h>

#include "core/error.h"

namespace hs::test {

// A fresh, uniquely named directory under the system temp dir (mkdtemp), removed with
// everything in it when the object goes out of scope.
class TempDir {
public:
    explicit TempDir(const std::string& prefix = "headscope_test") {
        std::string pattern =
            (std::filesystem::temp_directory_path() / (prefix + "_XXXXXX")).string();
        if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed for " + pattern);
        path_ = pattern;
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    const std::filesystem::path& path() const { return path_; }
    std::string str() const { return path_.string(); }
    // DIR/name (the file need not exist).
    std::string file(const std::string& name) const { return (path_ / name).string(); }

private:
    std::filesystem::path path_;
};

// The whole file as bytes; "" when it cannot be opened.
inline std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

inline void write_text(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
}

// The message of the hs::Error that fn throws. Throwing nothing is a test failure, and
// gives "(no hs::Error thrown)" so that any expectation on the message fails too.
inline std::string error_of(const std::function<void()>& fn) {
    try {
        fn();
    } catch (const Error& e) {
        return e.what();
    }
    ADD_FAILURE() << "expected hs::Error";
    return "(no hs::Error thrown)";
}

// A failure for each of `parts` that `message` does not contain.
inline void expect_contains(const std::string& message, const std::vector<std::string>& parts) {
    for (const std::string& part : parts)
        EXPECT_NE(message.find(part), std::string::npos)
            << "message: " << message << "\nmissing: " << part;
}

// fn must throw hs::Error whose message contains every one of `parts`.
inline void expect_error(const std::function<void()>& fn, const std::vector<std::string>& parts) {
    expect_contains(error_of(fn), parts);
}

}  // namespace hs::test
