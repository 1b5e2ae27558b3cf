#include "core/train/tasks.h"

#include <algorithm>

#include "core/error.h"
#include "core/corpus/grammar.h"
#include "core/rng.h"

namespace hs::train {

namespace {

constexpr int kMinRepeat = 8, kMaxRepeat = 20, kMaxFiller = 16;

// Uniform integer in [lo, hi].
int uniform_int(Rng& rng, int lo, int hi) {
    return lo + static_cast<int>(rng.next_u64() % static_cast<std::uint64_t>(hi - lo + 1));
}

std::vector<int> symbols(Rng& rng, int n, int vocab) {
    std::vector<int> out(static_cast<std::size_t>(n));
    for (int& s : out) s = uniform_int(rng, 2, vocab - 1);
    return out;
}

// One stream per (seed, step, index): SplitMix-style mixing of the three.
std::uint64_t example_seed(std::uint64_t seed, long long step, int index) {
    std::uint64_t z = seed ^ (0x9E3779B97F4A7C15ULL * static_cast<std::uint64_t>(step + 1));
    z ^= 0xBF58476D1CE4E5B9ULL * static_cast<std::uint64_t>(index + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

}  // namespace

std::string to_string(TaskKind kind) {
    switch (kind) {
        case TaskKind::Copy: return "copy";
        case TaskKind::Reverse: return "reverse";
        case TaskKind::Sort: return "sort";
        case TaskKind::Induction: return "induction";
        case TaskKind::Text: return "text";
        case TaskKind::Grammar: return "grammar";
    }
    return "?";
}

TaskSpec parse_task(const std::string& name, int vocab) {
    TaskSpec t;
    if (name == "copy") t.kind = TaskKind::Copy;
    else if (name == "reverse") t.kind = TaskKind::Reverse;
    else if (name == "sort") t.kind = TaskKind::Sort;
    else if (name == "induction") t.kind = TaskKind::Induction;
    else if (name == "grammar") return grammar_task(64, 25);
    else throw Error("unknown task '" + name + "' (choose copy, reverse, sort, induction or grammar)");
    t.vocab = vocab;
    check_task(t);
    return t;
}

TaskSpec text_task(std::shared_ptr<const TextCorpus> corpus, int window) {
    TaskSpec t;
    t.kind = TaskKind::Text;
    t.vocab = corpus ? static_cast<int>(corpus->vocab.size()) : 0;
    t.text = std::move(corpus);
    t.window = window;
    check_task(t);
    return t;
}

int Vocabulary::id_of(const std::string& token) const {
    const auto it = ids.find(token);
    return it == ids.end() ? 1 : it->second;
}

std::shared_ptr<const Vocabulary> grammar_words() {
    static const std::shared_ptr<const Vocabulary> words = [] {
        auto v = std::make_shared<Vocabulary>();
        v->tokens = {"<bos>", "<unk>"};
        for (const std::string& t : corpus::grammar_vocabulary()) v->tokens.push_back(t);
        for (std::size_t i = 0; i < v->tokens.size(); ++i) v->ids.emplace(v->tokens[i], static_cast<int>(i));
        return v;
    }();
    return words;
}

TaskSpec grammar_task(int window, int induction_percent) {
    TaskSpec t;
    t.kind = TaskKind::Grammar;
    t.words = grammar_words();
    t.vocab = static_cast<int>(t.words->tokens.size());
    t.window = window;
    t.induction_percent = induction_percent;
    check_task(t);
    return t;
}

void check_task(const TaskSpec& t) {
    if (t.kind == TaskKind::Grammar) {
        if (!t.words) throw Error("a grammar task needs its vocabulary");
        if (t.window < 1 + 2 * kMaxRepeat + kMaxFiller || t.window > 1024)
            throw Error("a grammar task's window must be between " + std::to_string(1 + 2 * kMaxRepeat + kMaxFiller) +
                        " and 1024 tokens; got " + std::to_string(t.window));
        if (t.induction_percent < 0 || t.induction_percent > 100)
            throw Error("a grammar task's induction share must be 0 … 100 %; got " + std::to_string(t.induction_percent));
        if (t.vocab != static_cast<int>(t.words->tokens.size()))
            throw Error("a grammar task's vocabulary is the grammar's (" + std::to_string(t.words->tokens.size()) + " ids)");
        return;
    }
    if (t.kind == TaskKind::Text) {
        if (!t.text) throw Error("a text task needs a text");
        if (t.window < 2 || t.window > 1024)
            throw Error("a text task's window must be between 2 and 1024 tokens; got " + std::to_string(t.window));
        if (static_cast<int>(t.text->train_ids.size()) < t.window || static_cast<int>(t.text->held_ids.size()) < t.window)
            throw Error("the text is too short for windows of " + std::to_string(t.window) + " tokens");
        if (t.vocab != static_cast<int>(t.text->vocab.size()))
            throw Error("a text task's vocabulary is its text's (" + std::to_string(t.text->vocab.size()) + " ids)");
        return;
    }
    if (t.vocab < 4)
        throw Error("a task needs a vocabulary of at least 4 ids (2 special, 2 symbols); got " + std::to_string(t.vocab));
    if (t.min_len < 1 || t.max_len < t.min_len || t.max_len > 1024)
        throw Error("a task's lengths need 1 ≤ min_len ≤ max_len ≤ 1024; got min_len " + std::to_string(t.min_len) +
                    ", max_len " + std::to_string(t.max_len));
}

int longest_example(const TaskSpec& task) {
    if (task.kind == TaskKind::Text || task.kind == TaskKind::Grammar) return task.window;
    if (task.kind == TaskKind::Induction) return 1 + 2 * kMaxRepeat + kMaxFiller;
    return 2 + 2 * task.max_len;
}

Example make_example(const TaskSpec& task, std::uint64_t seed, long long step, int index) {
    Rng rng(example_seed(seed, step, index));
    Example e;
    e.ids.push_back(kBos);
    if (task.kind == TaskKind::Text) {  // BOS + window − 1 tokens from a seeded start
        const std::vector<int>& ids = task.text->train_ids;
        const int w = task.window - 1;
        const int start = uniform_int(rng, 0, static_cast<int>(ids.size()) - w);
        e.ids.insert(e.ids.end(), ids.begin() + start, ids.begin() + start + w);
        return e;
    }
    if (task.kind == TaskKind::Grammar && uniform_int(rng, 0, 99) >= task.induction_percent) {
        // Sentences, English or Chinese at random, each from its own index of the grammar's
        // stream, until the window is full (the last one cut there).
        while (static_cast<int>(e.ids.size()) < task.window) {
            const long long index = static_cast<long long>(rng.next_u64() >> 2);
            const corpus::AnnotatedSentence s = corpus::generate_sentence(rng.next_u64() % 2 ? "zh" : "en", seed, index);
            for (const std::string& t : s.tokens)
                if (static_cast<int>(e.ids.size()) < task.window) e.ids.push_back(task.words->id_of(t));
        }
        return e;
    }
    if (task.kind == TaskKind::Induction || task.kind == TaskKind::Grammar) {
        const std::vector<int> r = symbols(rng, uniform_int(rng, kMinRepeat, kMaxRepeat), task.vocab);
        const std::vector<int> filler = symbols(rng, uniform_int(rng, 0, kMaxFiller), task.vocab);
        e.ids.insert(e.ids.end(), r.begin(), r.end());
        e.ids.insert(e.ids.end(), filler.begin(), filler.end());
        e.ids.insert(e.ids.end(), r.begin(), r.end());
        e.first_target = 1;
        return e;
    }
    const std::vector<int> x = symbols(rng, uniform_int(rng, task.min_len, task.max_len), task.vocab);
    std::vector<int> y = x;
    if (task.kind == TaskKind::Reverse) std::reverse(y.begin(), y.end());
    if (task.kind == TaskKind::Sort) std::sort(y.begin(), y.end());
    e.ids.insert(e.ids.end(), x.begin(), x.end());
    e.ids.push_back(kSep);
    e.first_target = static_cast<int>(e.ids.size());
    e.ids.insert(e.ids.end(), y.begin(), y.end());
    return e;
}

Example held_out_example(const TaskSpec& task, std::uint64_t seed, int index) {
    if (task.kind == TaskKind::Text) {  // the index-th window of the held-out split
        const std::vector<int>& ids = task.text->held_ids;
        const int w = task.window - 1, starts = static_cast<int>(ids.size()) - w + 1;
        const int start = static_cast<int>((static_cast<long long>(index) * w) % starts);
        Example e;
        e.ids.push_back(kBos);
        e.ids.insert(e.ids.end(), ids.begin() + start, ids.begin() + start + w);
        return e;
    }
    return make_example(task, seed ^ 0x5EED0F0E1DULL, -1, index);  // step −1: never a training step
}

}  // namespace hs::train
