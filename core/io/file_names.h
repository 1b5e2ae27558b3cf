#pragma once
// Names for files the app writes on the user's behalf: readable, safe on every file
// system, and never the name of a file that is already there.
#include <string>

namespace hs {

// A file-name stem from free text (a model name, a spec): ASCII letters, digits, '.',
// '-' and '_' are kept, every other run of characters becomes one '_'; leading and
// trailing '_' or '.' are dropped; cut to max_chars. "" → "headscope".
// "random:d_model=8,heads=2" → "random_d_model_8_heads_2".
std::string file_stem(const std::string& text, std::size_t max_chars = 40);

// dir/stem.ext when no such entry exists, else dir/stem-2.ext, dir/stem-3.ext, … (the
// first free one). ext without the dot. dir is created (with its parents) when missing;
// throws hs::Error naming dir when it cannot be, or when it is not a directory.
std::string unused_path(const std::string& dir, const std::string& stem, const std::string& ext);

// A path typed into a text field as a shell would read its leading tilde: "~" → home,
// "~/x" → home/x, with home = `home` (the caller passes $HOME). Anything else, "~user/…"
// included, and any path when home is empty, comes back unchanged.
std::string expand_home(const std::string& typed, const std::string& home);

}  // namespace hs
