#pragma once
// Runs the real `headscope` binary (HEADSCOPE_CLI_BINARY) as a subprocess for the CLI
// end-to-end tests: argv passed verbatim (no shell), stdout and stderr captured into
// files of a fresh temporary directory, exit status reported.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/test_util.h"

extern char** environ;

namespace hs::cli_test {

using test::read_text;
using test::TempDir;

struct RunResult {
    bool exited = false;  // false: killed by a signal (a crash)
    int status = -1;      // exit status when exited, else the signal number
    std::string out, err;
};

// `program args...` with the working directory set to `dir`.
inline RunResult run_program(const std::string& program, const std::vector<std::string>& args, const TempDir& dir) {
    std::vector<std::string> argv_storage{program};
    argv_storage.insert(argv_storage.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : argv_storage) argv.push_back(a.data());
    argv.push_back(nullptr);

    const std::string out_path = dir.file(".stdout"), err_path = dir.file(".stderr");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addchdir_np(&actions, dir.path().c_str());
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    RunResult r;
    if (rc != 0) {
        r.err = "posix_spawn failed";
        return r;
    }
    int wstatus = 0;
    while (waitpid(pid, &wstatus, 0) < 0) {
    }
    r.exited = WIFEXITED(wstatus);
    r.status = r.exited ? WEXITSTATUS(wstatus) : WTERMSIG(wstatus);
    r.out = read_text(out_path);
    r.err = read_text(err_path);
    return r;
}

// `headscope args...` (the build's binary) with the working directory set to `dir`.
inline RunResult run_headscope(const std::vector<std::string>& args, const TempDir& dir) {
    return run_program(HEADSCOPE_CLI_BINARY, args, dir);
}

// Runs a command that must succeed and returns the parsed JSON it wrote to `json_path`.
inline nlohmann::json run_for_json(const std::vector<std::string>& args, const TempDir& dir,
                                   const std::string& json_path) {
    const RunResult r = run_headscope(args, dir);
    EXPECT_TRUE(r.exited);
    EXPECT_EQ(r.status, 0) << r.err;
    const std::string text = read_text(json_path);
    if (text.empty()) {
        ADD_FAILURE() << "no JSON written to " << json_path << "; stderr: " << r.err;
        return nlohmann::json{};
    }
    return nlohmann::json::parse(text);
}

}  // namespace hs::cli_test
