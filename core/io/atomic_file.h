#pragma once
// Atomic file writes: data goes to a temp file in the same directory, then rename(2),
// so a reader never sees a half-written file and a failed write leaves the old one.
// Every writer in core (config.json, safetensors, PNG, CLI exports) goes through here,
// so every write failure reads "cannot write PATH: reason".
#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

namespace hs {

// Appends `size` bytes to the file being written; throws hs::Error on failure.
using PutBytes = std::function<void(const void* data, std::size_t size)>;

// Throws hs::Error "cannot write PATH: reason" (missing directory, parent not a
// directory, target is a directory, device, FIFO or socket, permission, disk full). A
// symbolic link is written through: its target is replaced and the link stays. The null
// device (/dev/null, or a link to it) takes the bytes and keeps none, as a shell's does.
void write_file_atomic(const std::string& path, std::string_view bytes);

// Streaming form for large files: `produce` calls put(data, size) as often as it likes;
// the file appears at `path` only after produce returns and everything is flushed. An
// exception from produce (or put) removes the temp file and propagates.
void write_file_atomic(const std::string& path, const std::function<void(const PutBytes& put)>& produce);

// "a character device", "a FIFO (named pipe)", "a directory", … when `path` (following
// symbolic links) is not a regular file; "" when it is one or does not exist. file_kind
// says the same of an st_mode (fstat of an open file).
std::string special_file_kind(const std::string& path);
// Whether `path` (following links) is the null device: the character device /dev/null is.
bool is_null_device(const std::filesystem::path& path);
std::string file_kind(unsigned mode);

// The file a write to `path` lands in: `path` itself, or for a symbolic link (a chain of
// them) the file it points to, so that writers keep the link and replace its target.
std::filesystem::path resolve_links(const std::string& path);
// Where a write to `path` lands, as one string to compare two paths by: absolute, the links
// of it and of its existing directories resolved, "." and ".." gone. Two outputs (or two
// saves) with the same landing path are one file.
std::string landing_path(const std::string& path);

// Reads a whole regular file; throws hs::Error "cannot read PATH: reason" (a FIFO, device,
// socket or directory is refused before anything could block), or names the limit when
// the file holds more than max_bytes: `what` says which limit ("a text file").
constexpr std::size_t kMaxReadBytes = std::size_t{256} << 20;  // tokenizer.json is ~10 MB
constexpr std::size_t kMaxTextBytes = std::size_t{64} << 20;   // --text-file, corpora
constexpr std::size_t kMaxInputTextBytes = std::size_t{1} << 20;  // the app's text box (a file dropped on it)
std::string read_file(const std::string& path, std::size_t max_bytes = kMaxReadBytes,
                      const char* what = "a file HeadScope reads");

// A text the user gives (--text-file, corpora, dropped files): a regular file or a stream
// (a pipe, /dev/stdin), at most kMaxTextBytes (an endless device such as /dev/zero ends
// there with the limit named).
std::string read_text_file(const std::string& path);

// A file's text as a model's input: without its final line breaks (an editor's last
// newline is not a token), so the CLI's --text-file and a file dropped on the window read
// the same tokens.
std::string input_text_of_file(std::string text);

}  // namespace hs
