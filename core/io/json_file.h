#pragma once
// JSON files and texts with one wording for their errors, so every loader (model
// directories, HF configs and shard indexes, tokenizer files, worked examples) reports a
// missing or broken file the same way.
#include <string>

#include <nlohmann/json.hpp>

namespace hs {

// Reads and parses a whole JSON file. Throws hs::Error "cannot read PATH: reason" when
// the file cannot be opened or is a FIFO, device or directory (refused before open could
// block), and "PATH is not valid JSON: <parser message>" when it does not parse (numbers
// out of range included).
nlohmann::json read_json_file(const std::string& path);

// Parses JSON text that came from `origin` (a path or another name for the reader).
// Throws hs::Error "ORIGIN is not valid JSON: <parser message>".
nlohmann::json parse_json_text(const std::string& text, const std::string& origin);

}  // namespace hs
