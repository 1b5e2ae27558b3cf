#include "core/train/checkpoint.h"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/io/atomic_file.h"
#include "core/io/directory_writer.h"
#include "core/io/json_file.h"
#include "core/io/model_dir.h"
#include "core/io/safetensors.h"
#include "core/io/state_dict.h"

namespace hs::train {

namespace fs = std::filesystem;

namespace {

constexpr const char* kFormat = "headscope-trainer";

nlohmann::json to_json(const Trainer& t) {
    const TrainOptions& o = t.options();
    const AdamWOptions& a = o.adamw;
    nlohmann::json j = {{"format", kFormat},
            {"steps_taken", t.steps_taken()},
            {"task",
             {{"kind", to_string(t.task().kind)},
              {"vocab", t.task().vocab},
              {"min_len", t.task().min_len},
              {"max_len", t.task().max_len}}},
            {"batch", o.batch},
            {"seed", o.seed},
            {"adamw",
             {{"lr", a.lr},
              {"beta1", a.beta1},
              {"beta2", a.beta2},
              {"eps", a.eps},
              {"weight_decay", a.weight_decay},
              {"warmup_steps", a.warmup_steps},
              {"total_steps", a.total_steps},
              {"min_lr_ratio", a.min_lr_ratio},
              {"clip_norm", a.clip_norm}}}};
    if (const TextCorpus* c = t.task().text.get())
        j["task"]["text"] = {{"file", c->source},
                             {"level", to_string(c->level)},
                             {"window", t.task().window},
                             {"max_vocab", t.config().vocab},
                             {"fingerprint", std::to_string(c->fingerprint)}};
    return j;
}

// The text task of a checkpoint: its file read again, checked to be the same text.
TaskSpec text_task_of(const nlohmann::json& jt) {
    const std::string file = jt.at("file").get<std::string>();
    auto corpus = std::make_shared<TextCorpus>(read_text_corpus(
        file, parse_text_level(jt.at("level").get<std::string>()), jt.at("max_vocab").get<int>(), jt.at("window").get<int>()));
    if (std::to_string(corpus->fingerprint) != jt.at("fingerprint").get<std::string>())
        throw Error(file + " has changed since the checkpoint was written (the run trained on another text)");
    return text_task(std::move(corpus), jt.at("window").get<int>());
}

}  // namespace

void save_checkpoint(const Trainer& t, const std::string& dir) {
    write_directory_atomic(dir, [&](const std::string& new_dir) {
        const fs::path d(new_dir);
        const ModelConfig& c = t.config();
        write_safetensors((d / "model.safetensors").string(), to_state_dict(c, t.weights()), {{"format", "pt"}});
        write_safetensors((d / "optimizer_m.safetensors").string(), to_state_dict(c, t.optimizer().first_moment()));
        write_safetensors((d / "optimizer_v.safetensors").string(), to_state_dict(c, t.optimizer().second_moment()));
        write_file_atomic((d / "config.json").string(), config_to_json(c).dump(2) + "\n");
        write_file_atomic((d / "trainer.json").string(), to_json(t).dump(2) + "\n");
    });
}

Trainer load_checkpoint(const std::string& dir) {
    const Model model = load_model_dir(dir);
    const std::string state_path = (fs::path(dir) / "trainer.json").string();
    if (!fs::exists(state_path))
        throw Error(dir + " is a model directory but not a training checkpoint (it has no trainer.json)");
    const nlohmann::json j = read_json_file(state_path);
    TaskSpec task;
    TrainOptions o;
    int steps = 0;
    try {
        if (j.at("format").get<std::string>() != kFormat) throw Error("\"format\" is not " + std::string(kFormat));
        steps = j.at("steps_taken").get<int>();
        const nlohmann::json& jt = j.at("task");
        if (jt.at("kind") == "text") {
            task = text_task_of(jt.at("text"));
        } else {
            task = parse_task(jt.at("kind").get<std::string>(), jt.at("vocab").get<int>());
            task.min_len = jt.at("min_len").get<int>();
            task.max_len = jt.at("max_len").get<int>();
        }
        o.batch = j.at("batch").get<int>();
        o.seed = j.at("seed").get<std::uint64_t>();
        const nlohmann::json& a = j.at("adamw");
        o.adamw.lr = a.at("lr").get<float>();
        o.adamw.beta1 = a.at("beta1").get<float>();
        o.adamw.beta2 = a.at("beta2").get<float>();
        o.adamw.eps = a.at("eps").get<float>();
        o.adamw.weight_decay = a.at("weight_decay").get<float>();
        o.adamw.warmup_steps = a.at("warmup_steps").get<int>();
        o.adamw.total_steps = a.at("total_steps").get<int>();
        o.adamw.min_lr_ratio = a.at("min_lr_ratio").get<float>();
        o.adamw.clip_norm = a.at("clip_norm").get<float>();
    } catch (const nlohmann::json::exception& e) {
        throw Error(state_path + " is not a HeadScope training state: " + e.what());
    } catch (const Error& e) {
        throw Error(state_path + " is not a HeadScope training state: " + e.what());
    }
    if (steps < 0) throw Error(state_path + ": \"steps_taken\" is negative");
    Trainer t = [&] {
        try {
            return Trainer(model.config(), model.weights(), task, o);
        } catch (const Error& e) {
            throw Error(state_path + " does not describe a training run of this model: " + e.what());
        }
    }();
    const auto moments = [&](const char* name) {
        const std::string path = (fs::path(dir) / name).string();
        if (!fs::exists(path)) throw Error("training checkpoint " + dir + " has no " + name);
        return from_safetensors(model.config(), *SafetensorsFile::open(path));
    };
    t.optimizer().first_moment() = moments("optimizer_m.safetensors");
    t.optimizer().second_moment() = moments("optimizer_v.safetensors");
    t.optimizer().set_steps_taken(steps);
    return t;
}

}  // namespace hs::train
