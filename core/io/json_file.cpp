#include "core/io/json_file.h"

#include "core/error.h"
#include "core/io/atomic_file.h"

namespace hs {

nlohmann::json read_json_file(const std::string& path) {
    return parse_json_text(read_file(path), path);
}

nlohmann::json parse_json_text(const std::string& text, const std::string& origin) {
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for 1e400
        throw Error(origin + " is not valid JSON: " + e.what());
    }
}

}  // namespace hs
