#include "core/train/checkpoint.h"

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>

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
    if (t.task().kind == TaskKind::Grammar) {
        j["task"]["window"] = t.task().window;
        j["task"]["induction_percent"] = t.task().induction_percent;
    }
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
    }, model_dir_files());
}

namespace {

// Typed fields: a number of the wrong kind or beyond the type's range is an error, never
// a cast (a float 1e300 read as int or float is undefined behaviour).
const nlohmann::json& field(const nlohmann::json& j, const char* key) {
    if (!j.is_object() || !j.contains(key)) throw Error(std::string("\"") + key + "\" is missing");
    return j.at(key);
}

int int_at(const nlohmann::json& j, const char* key) {
    const nlohmann::json& v = field(j, key);
    if (!v.is_number_integer()) throw Error(std::string("\"") + key + "\" must be a whole number");
    if (v.is_number_unsigned() ? v.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<int>::max())
                               : (v.get<long long>() < std::numeric_limits<int>::min() ||
                                  v.get<long long>() > std::numeric_limits<int>::max()))
        throw Error(std::string("\"") + key + "\" is out of range");
    return static_cast<int>(v.get<long long>());
}

std::uint64_t u64_at(const nlohmann::json& j, const char* key) {
    const nlohmann::json& v = field(j, key);
    if (!v.is_number_unsigned()) throw Error(std::string("\"") + key + "\" must be a whole number ≥ 0");
    return v.get<std::uint64_t>();
}

float float_at(const nlohmann::json& j, const char* key) {
    const nlohmann::json& v = field(j, key);
    if (!v.is_number()) throw Error(std::string("\"") + key + "\" must be a number");
    const double x = v.get<double>();
    if (!(std::abs(x) <= static_cast<double>(std::numeric_limits<float>::max())))
        throw Error(std::string("\"") + key + "\" is out of range");
    return static_cast<float>(x);
}

std::string string_at(const nlohmann::json& j, const char* key) {
    const nlohmann::json& v = field(j, key);
    if (!v.is_string()) throw Error(std::string("\"") + key + "\" must be a string");
    return v.get<std::string>();
}

}  // namespace

TrainerState parse_trainer_state(const std::string& text, const std::string& origin) {
    TrainerState st;
    try {
        const nlohmann::json j = nlohmann::json::parse(text);
        if (string_at(j, "format") != kFormat) throw Error("\"format\" is not " + std::string(kFormat));
        st.steps_taken = int_at(j, "steps_taken");
        if (st.steps_taken < 0) throw Error("\"steps_taken\" is negative");
        const nlohmann::json& jt = field(j, "task");
        if (string_at(jt, "kind") == "text") {
            const nlohmann::json& x = field(jt, "text");
            TextTaskRef ref;
            ref.file = string_at(x, "file");
            ref.level = parse_text_level(string_at(x, "level"));
            ref.window = int_at(x, "window");
            ref.max_vocab = int_at(x, "max_vocab");
            ref.fingerprint = string_at(x, "fingerprint");
            if (ref.file.empty() || ref.window < 2 || ref.window > 1024 || ref.max_vocab < 3)
                throw Error("the text task needs a file, a window of 2 … 1024 tokens and max_vocab ≥ 3");
            st.text = ref;
            st.task.kind = TaskKind::Text;
        } else if (string_at(jt, "kind") == "grammar") {
            st.task = grammar_task(int_at(jt, "window"), int_at(jt, "induction_percent"));
            if (int_at(jt, "vocab") != st.task.vocab)
                throw Error("the grammar's vocabulary has " + std::to_string(st.task.vocab) + " words, the run was trained on " +
                            std::to_string(int_at(jt, "vocab")) + ": this HeadScope writes another grammar");
        } else {
            st.task = parse_task(string_at(jt, "kind"), int_at(jt, "vocab"));
            st.task.min_len = int_at(jt, "min_len");
            st.task.max_len = int_at(jt, "max_len");
            check_task(st.task);
        }
        TrainOptions& o = st.options;
        o.batch = int_at(j, "batch");
        if (o.batch < 1 || o.batch > 4096) throw Error("batch " + std::to_string(o.batch) + " must be between 1 and 4096");
        o.seed = u64_at(j, "seed");
        const nlohmann::json& a = field(j, "adamw");
        o.adamw.lr = float_at(a, "lr");
        o.adamw.beta1 = float_at(a, "beta1");
        o.adamw.beta2 = float_at(a, "beta2");
        o.adamw.eps = float_at(a, "eps");
        o.adamw.weight_decay = float_at(a, "weight_decay");
        o.adamw.warmup_steps = int_at(a, "warmup_steps");
        o.adamw.total_steps = int_at(a, "total_steps");
        o.adamw.min_lr_ratio = float_at(a, "min_lr_ratio");
        o.adamw.clip_norm = float_at(a, "clip_norm");
        check_adamw(o.adamw);
    } catch (const nlohmann::json::exception& e) {
        throw Error(origin + " is not a HeadScope training state: " + e.what());
    } catch (const Error& e) {
        throw Error(origin + " does not describe a training run: " + e.what());
    }
    return st;
}

namespace {

// trainer.json of `dir`, with a text task's corpus read again (the same text, or an error).
TrainerState read_trainer_state(const std::string& dir) {
    const std::string state_path = (fs::path(dir) / "trainer.json").string();
    if (!fs::exists(state_path))
        throw Error(dir + " is a model directory but not a training checkpoint (it has no trainer.json)");
    TrainerState st = parse_trainer_state(read_file(state_path), state_path);
    if (st.text) {
        const TextTaskRef& ref = *st.text;
        auto corpus = std::make_shared<TextCorpus>(read_text_corpus(ref.file, ref.level, ref.max_vocab, ref.window));
        if (std::to_string(corpus->fingerprint) != ref.fingerprint)
            throw Error(ref.file + " has changed since the checkpoint was written (the run trained on another text)");
        st.task = text_task(std::move(corpus), ref.window);
    }
    return st;
}

}  // namespace

TaskSpec checkpoint_task(const std::string& dir) { return read_trainer_state(dir).task; }

Trainer load_checkpoint(const std::string& dir) {
    const Model model = load_model_dir(dir);
    const std::string state_path = (fs::path(dir) / "trainer.json").string();
    TrainerState st = read_trainer_state(dir);
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
