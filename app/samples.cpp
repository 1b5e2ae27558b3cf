#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/context.h"
#include "core/error.h"

namespace hs {

std::vector<Sample> load_samples(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw Error("cannot open samples file " + path + ".");
    std::stringstream ss;
    ss << in.rdbuf();
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(ss.str());
    } catch (const nlohmann::json::exception& e) {
        throw Error("samples file " + path + " is not valid JSON: " + e.what());
    }
    if (!j.is_array()) throw Error("samples file " + path + " must hold a JSON array.");
    std::vector<Sample> out;
    for (const auto& item : j) {
        Sample s;
        s.title = item.value("title", "");
        s.lang = item.value("lang", "en");
        s.text = item.value("text", "");
        s.decoder_text = item.value("decoder_text", "");
        if (!s.text.empty()) out.push_back(std::move(s));
    }
    return out;
}

}  // namespace hs
