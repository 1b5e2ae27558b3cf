#include "core/train/checkpoint.h"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/io/atomic_file.h"
#include "core/io/directory_writer.h"
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

TrainerState parse_trainer_state(const std::string& text, const std::string& origin) {
    TrainerState st;
    try {
        const nlohmann::json j = nlohmann::json::parse(text);
        if (j.at("format").get<std::string>() != kFormat) throw Error("\"format\" is not " + std::string(kFormat));
        st.steps_taken = j.at("steps_taken").get<int>();
        if (st.steps_taken < 0) throw Error("\"steps_taken\" is negative");
        const nlohmann::json& jt = j.at("task");
        if (jt.at("kind") == "text") {
            const nlohmann::json& x = jt.at("text");
            TextTaskRef ref;
            ref.file = x.at("file").get<std::string>();
            ref.level = parse_text_level(x.at("level").get<std::string>());
            ref.window = x.at("window").get<int>();
            ref.max_vocab = x.at("max_vocab").get<int>();
            ref.fingerprint = x.at("fingerprint").get<std::string>();
            if (ref.file.empty() || ref.window < 2 || ref.window > 1024 || ref.max_vocab < 3)
                throw Error("the text task needs a file, a window of 2 … 1024 tokens and max_vocab ≥ 3");
            st.text = ref;
            st.task.kind = TaskKind::Text;
        } else {
            st.task = parse_task(jt.at("kind").get<std::string>(), jt.at("vocab").get<int>());
            st.task.min_len = jt.at("min_len").get<int>();
            st.task.max_len = jt.at("max_len").get<int>();
            check_task(st.task);
        }
        TrainOptions& o = st.options;
        o.batch = j.at("batch").get<int>();
        if (o.batch < 1 || o.batch > 4096) throw Error("batch " + std::to_string(o.batch) + " must be between 1 and 4096");
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
        check_adamw(o.adamw);
    } catch (const nlohmann::json::exception& e) {
        throw Error(origin + " is not a HeadScope training state: " + e.what());
    } catch (const Error& e) {
        throw Error(origin + " does not describe a training run: " + e.what());
    }
    return st;
}

Trainer load_checkpoint(const std::string& dir) {
    const Model model = load_model_dir(dir);
    const std::string state_path = (fs::path(dir) / "trainer.json").string();
    if (!fs::exists(state_path))
        throw Error(dir + " is a model directory but not a training checkpoint (it has no trainer.json)");
    TrainerState st = parse_trainer_state(read_file(state_path), state_path);
    if (st.text) {  // the text read again: the same text, or an error
        const TextTaskRef& ref = *st.text;
        auto corpus = std::make_shared<TextCorpus>(read_text_corpus(ref.file, ref.level, ref.max_vocab, ref.window));
        if (std::to_string(corpus->fingerprint) != ref.fingerprint)
            throw Error(ref.file + " has changed since the checkpoint was written (the run trained on another text)");
        st.task = text_task(std::move(corpus), ref.window);
    }
    Trainer t = [&] {
        try {
            return Trainer(model.config(), model.weights(), st.task, st.options);
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
    t.optimizer().set_steps_taken(st.steps_taken);
    return t;
}

}  // namespace hs::train
