// headscope ablate MODEL --text "…" --head L.H [--head L.H …] [--mode zero|mean] [--rank]
// [--json FILE]: switch heads off and print what changes (hidden states per layer, later
// layers' maps, next-token KL and top-k for language models); --rank ablates every head
// in turn and sorts them by effect.
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/commands.h"
#include "cli/common.h"
#include "core/open_source.h"
#include "core/analysis/ablation.h"
#include "core/error.h"

namespace hs {

namespace {

// Every --head value (Args keeps only the last); each may list heads separated by commas.
std::vector<HeadRef> collect_heads(int argc, char** argv) {
    std::vector<std::string> values;
    for (int i = 2; i < argc; ++i) {
        if (std::strcmp(argv[i], "--head") == 0 && i + 1 < argc)
            values.push_back(argv[++i]);
        else if (std::strncmp(argv[i], "--head=", 7) == 0)
            values.push_back(argv[i] + 7);
    }
    std::vector<HeadRef> heads;
    for (const std::string& v : values) {
        std::stringstream ss(v);
        std::string item;
        while (std::getline(ss, item, ',')) {
            try {
                heads.push_back(parse_head_ref(item));
            } catch (const Error& e) {
                throw UsageError{std::string("--head ") + e.what()};
            }
        }
    }
    return heads;
}

std::string head_list(const std::vector<HeadRef>& heads) {
    std::string s;
    for (const HeadRef& h : heads) s += (s.empty() ? "" : " ") + to_string(h);
    return s;
}

void print_stack(const char* title, const std::vector<double>& hidden,
                 const std::vector<std::vector<double>>& maps) {
    std::printf("%s: layer, hidden-state change ‖h'−h‖/‖h‖, mean |ΔA| per head\n", title);
    for (std::size_t l = 0; l < hidden.size(); ++l) {
        std::printf("  %2zu  %10.6f   ", l, hidden[l]);
        if (l < maps.size())
            for (double d : maps[l]) std::printf(" %.6f", d);
        std::printf("\n");
    }
}

void print_effect(const AblationEffect& e) {
    std::printf("ablated heads (%s): %s\n", to_string(e.mode), head_list(e.heads).c_str());
    print_stack("main stack", e.hidden_change, e.map_change);
    if (!e.decoder_hidden_change.empty())
        print_stack("decoder stack", e.decoder_hidden_change, e.decoder_map_change);
    if (!e.has_next_token) return;
    std::printf("next token: KL(p_base ‖ p_ablated) = %.6g nats\n", e.kl);
    std::printf("  %-16s %10s %10s\n", "token", "p_base", "p_ablated");
    for (const TokenChange& t : e.top_tokens)
        std::printf("  %-16s %10.4f %10.4f\n", ("'" + t.text + "'").c_str(), t.p_base, t.p_ablated);
}

void print_ranking(const HeadRanking& r) {
    std::printf("heads ranked by %s when ablated alone:\n", r.measure.c_str());
    for (std::size_t i = 0; i < r.heads.size(); ++i)
        std::printf("  %3zu  %-8s %.6g\n", i + 1, to_string(r.heads[i].head).c_str(),
                    r.heads[i].effect);
}

nlohmann::json effect_json(const AblationEffect& e) {
    nlohmann::json j;
    j["mode"] = to_string(e.mode);
    j["heads"] = nlohmann::json::array();
    for (const HeadRef& h : e.heads) j["heads"].push_back(to_string(h));
    j["hidden_change"] = e.hidden_change;
    j["map_change"] = e.map_change;
    if (!e.decoder_hidden_change.empty()) {
        j["decoder_hidden_change"] = e.decoder_hidden_change;
        j["decoder_map_change"] = e.decoder_map_change;
    }
    j["last_layer_change"] = e.last_layer_change;
    if (e.has_next_token) {
        j["kl"] = e.kl;
        j["top_tokens"] = nlohmann::json::array();
        for (const TokenChange& t : e.top_tokens)
            j["top_tokens"].push_back(
                {{"id", t.id}, {"text", t.text}, {"p_base", t.p_base}, {"p_ablated", t.p_ablated}});
    }
    return j;
}

nlohmann::json ranking_json(const HeadRanking& r) {
    nlohmann::json j;
    j["measure"] = r.measure;
    j["heads"] = nlohmann::json::array();
    for (const RankedHead& h : r.heads)
        j["heads"].push_back({{"head", to_string(h.head)},
                              {"layer", h.head.layer},
                              {"index", h.head.head},
                              {"effect", h.effect}});
    return j;
}

}  // namespace

int cmd_ablate(int argc, char** argv) {
    std::set<std::string> values = kInputOptions;
    values.insert({"head", "mode", "json"});
    const Args args(argc, argv, 2, values, {"rank"});
    args.expect_at_most(1);
    const std::vector<HeadRef> heads = collect_heads(argc, argv);
    const bool rank = args.flag("rank");
    if (heads.empty() && !rank)
        throw UsageError{"name the heads to switch off with --head LAYER.HEAD, or use --rank"};
    AblationMode mode = AblationMode::Zero;
    try {
        mode = parse_ablation_mode(args.value_or("mode", "zero"));
    } catch (const Error& e) {
        throw UsageError{std::string("--mode: ") + e.what()};
    }
    const auto source = open_source(args.positional(0, "MODEL"));
    const SourceInput input = read_source_input(args, *source);

    const auto json_path = args.value("json");
    const bool table = !json_path || *json_path != "-";  // JSON on stdout replaces the table
    nlohmann::json out;
    out["model"] = source->name();
    if (!heads.empty()) {
        const AblationEffect effect = ablate(*source, input, heads, mode);
        if (table) print_effect(effect);
        out["ablation"] = effect_json(effect);
    }
    if (rank) {
        const HeadRanking ranking = rank_heads(*source, input, mode);
        if (table) print_ranking(ranking);
        out["ranking"] = ranking_json(ranking);
    }
    if (const auto& path = json_path) {
        write_output(*path, out.dump(2) + "\n");
        if (*path != "-") std::fprintf(stderr, "wrote %s\n", path->c_str());
    }
    return 0;
}

}  // namespace hs
