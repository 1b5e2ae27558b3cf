#pragma once
// Path completion for the Model panel's "model file / directory" field: the entries of
// the directory being typed whose names start with the typed last component.
//   "/models/gp"  -> entries of /models/ starting with "gp" ("/models/gpt2/", …)
//   "/models/"    -> every entry of /models/
//   "~/x"         -> $HOME/x…;  "" -> entries of the working directory
// Only what HeadScope can open or descend into is listed: directories, llama2.c .bin
// checkpoints and worked-example .json files. Hidden entries appear only when the typed
// component starts with '.'. No GL here (unit-tested).
#include <cstddef>
#include <string>
#include <vector>

namespace hs {

struct PathMatch {
    std::string path;     // completed text; directories end with '/'
    std::string name;     // last component, for display
    bool directory = false;
    bool model = false;   // opens as a model: a directory with config.json, or a .bin
};

// Sorted by name; at most `limit` matches. Never throws (unreadable dirs give none).
std::vector<PathMatch> complete_path(const std::string& typed, std::size_t limit = 64);
// Longest common prefix of the matches' paths ("" when none).
std::string common_prefix(const std::vector<PathMatch>& matches);

}  // namespace hs
