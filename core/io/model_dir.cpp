// Model directories (DESIGN §4): DIR/config.json (config_to_json, pretty) and
// DIR/model.safetensors (PyTorch state_dict names, f32).
#include "core/io/model_dir.h"

#include <filesystem>
#include <system_error>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/io/atomic_file.h"
#include "core/io/hf_llama_dir.h"
#include "core/io/json_file.h"
#include "core/io/directory_writer.h"
#include "core/io/safetensors.h"
#include "core/io/state_dict.h"

namespace hs {

namespace {

namespace fs = std::filesystem;

// The first *.bin file in `dir` (by name), or "": a llama2.c checkpoint is opened as
// the file itself, so a directory that holds one gets pointed at it.
std::string first_bin_file(const std::string& dir) {
    std::error_code ec;
    std::string first;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (it->path().extension() == ".bin" && it->is_regular_file(ec))
            if (const std::string p = it->path().string(); first.empty() || p < first) first = p;
    return first;
}

// "runs/tiny/" -> "tiny": the name a loaded model shows.
std::string directory_name(const std::string& dir) {
    fs::path p = fs::path(dir).lexically_normal();
    if (p.filename().empty()) p = p.parent_path();
    return p.filename().string();
}

}  // namespace

const std::vector<std::string>& model_dir_files() {
    static const std::vector<std::string> files{"config.json", "model.safetensors", "trainer.json",
                                                "optimizer_m.safetensors", "optimizer_v.safetensors"};
    return files;
}

SaveTarget save_target(const std::string& dir) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec) || fs::is_empty(dir, ec)) return SaveTarget::Free;
    return fs::exists(fs::path(dir) / "config.json", ec) ? SaveTarget::HoldsModel : SaveTarget::HoldsOtherFiles;
}

void save_model_dir(const Model& model, const std::string& dir) {
    if (is_llama_shaped(model.config())) return save_hf_llama_dir(model, dir);
    // Both files or neither (directory_writer.h): a kill between them cannot pair new
    // weights with an old config.
    write_directory_atomic(
        dir,
        [&](const std::string& new_dir) {
            write_safetensors((fs::path(new_dir) / "model.safetensors").string(),
                              to_state_dict(model.config(), model.weights()),
                              {{"format", "pt"}});  // "pt": PyTorch names, as transformers expects
            write_file_atomic((fs::path(new_dir) / "config.json").string(),
                              config_to_json(model.config()).dump(2) + "\n");
        },
        model_dir_files());
}

Model load_model_dir(const std::string& dir) {
    std::error_code ec;
    if (!fs::exists(dir, ec)) throw Error("model directory " + dir + " does not exist");
    if (!fs::is_directory(dir, ec)) throw Error(dir + " is not a model directory (it is a file)");

    // 1. config.json: present, valid JSON, a valid playground config.
    const std::string config_path = (fs::path(dir) / "config.json").string();
    if (!fs::exists(config_path, ec)) {
        if (const std::string bin = first_bin_file(dir); !bin.empty())
            throw Error("model directory " + dir + " has no config.json; it holds the llama2.c checkpoint " + bin +
                        ": open that file instead");
        throw Error("model directory " + dir + " has no config.json");
    }
    const nlohmann::json j = read_json_file(config_path);
    // HeadScope's own config.json always names d_model; a Hugging Face one names its
    // model_type (open_source sends those to the Hugging Face loader first, but a training
    // checkpoint is read here directly). A file with neither would otherwise load as the
    // default shape and fail on the tensors it lacks.
    if (j.is_object() && j.contains("model_type")) {
        if (!j.at("model_type").is_string())
            throw Error(config_path + ": \"model_type\" must be a string (got " + j.at("model_type").dump() + ")");
        throw Error(config_path + " is a Hugging Face config (model_type \"" + j.at("model_type").get<std::string>() +
                    "\"), not a HeadScope model directory (a config.json with d_model, as headscope train saves)");
    }
    if (j.is_object() && !j.contains("d_model"))
        throw Error(config_path + " describes no model: it has neither \"model_type\" (a Hugging Face checkpoint) "
                    "nor HeadScope's \"d_model\"");
    ModelConfig config;
    try {
        config = config_from_json(j);
        ensure_valid(config);
    } catch (const Error& e) {
        throw Error("invalid config in " + config_path + ": " + e.what());
    } catch (const nlohmann::json::exception& e) {
        throw Error("invalid config in " + config_path + ": " + e.what());
    }

    // 2. model.safetensors: present, well formed, exactly the tensors the config needs.
    const std::string weights_path = (fs::path(dir) / "model.safetensors").string();
    if (!fs::exists(weights_path, ec))
        throw Error("model directory " + dir + " has no model.safetensors");
    const auto file = SafetensorsFile::open(weights_path);
    ModelWeights weights = from_safetensors(config, *file);
    require_finite_weights(config, weights, weights_path);
    return Model(config, std::move(weights), directory_name(dir));
}

}  // namespace hs
