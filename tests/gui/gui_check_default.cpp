// gui_check default FIRST.json ZH.json PLAYGROUND.json CONTINUED.json
//   The first launch (no settings, no command-line model) against core computed here:
//   - the window opened on the default model, probed its heads on the probe corpus and
//     shows the English relation head core's relation_to_show picks (coreference when it
//     is claimed, else the claimed relation with the largest margin) on a sample with a
//     gold arc of that relation, captioned as that relation's head, the shown map being
//     that head's map in core's forward pass of the sample;
//   - `relations-show coreference zh` shows the Chinese best head on a Chinese sample;
//   - "continue 3" extends the Chinese sample by core's continue_text;
//   - a playground says it is untrained.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/gui/gui_check_util.h"

#include "core/analysis/relation_probe.h"
#include "core/continuation.h"
#include "core/corpus/grammar.h"
#include "core/corpus/samples.h"
#include "core/open_source.h"
#include "core/source.h"

namespace {

using hs::gui_check::check;
using hs::gui_check::failures;

using hs::gui_check::read_json;

// The best head of `relation` in language `lang` by core's probe.
int best_head(const std::vector<hs::RelationRun>& runs, const std::string& lang, hs::corpus::Relation relation) {
    for (const hs::RelationRun& run : runs)
        if (run.lang == lang)
            for (const hs::RelationScore& s : run.scores)
                if (s.relation == relation) return s.best_head;
    return -1;
}

// The dumped map equals core's map of (layer, head) for the dumped text, to 1e-5.
void check_shown_map(const hs::TraceSource& source, const nlohmann::json& state, const std::string& what) {
    hs::SourceInput input;
    input.text = state.at("text").get<std::string>();
    const hs::Trace trace = source.run(input, hs::TraceOptions{});
    const int layer = state.at("layer"), head = state.at("head");
    const hs::Matrix& want = trace.main.layers.at(static_cast<std::size_t>(layer)).self_attn.weights.at(static_cast<std::size_t>(head));
    const auto& rows = state.at("shown_map");
    bool same = rows.size() == static_cast<std::size_t>(want.rows());
    for (std::size_t r = 0; same && r < rows.size(); ++r) {
        same = rows[r].size() == static_cast<std::size_t>(want.cols());
        for (std::size_t c = 0; same && c < rows[r].size(); ++c)
            same = std::abs(rows[r][c].get<double>() - want(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c))) < 1e-5;
    }
    check(same, what + ": the heatmap shows core's map of L" + std::to_string(layer) + ".H" + std::to_string(head));
}

}  // namespace

int check_default(char** argv) {
    const nlohmann::json first = read_json(argv[2]), zh = read_json(argv[3]), playground = read_json(argv[4]),
                         continued = read_json(argv[5]);
    const auto source = hs::open_source("default");
    std::vector<std::string> skipped;
    const std::vector<hs::RelationRun> runs = hs::probe_relations_by_language(*source, hs::corpus::held_out_probe_corpus(), skipped);
    const int heads = source->config().heads;
    using hs::corpus::Relation;

    check(first.at("model_arg") == "default", "the first launch opens the default model");
    check(first.contains("analysis") && first["analysis"].contains("relations") &&
              first["analysis"]["relations"]["model"] == "default",
          "its heads were probed on opening");
    check(first["analysis"]["relations"]["shown"] == true, "the Relations tab shows them");
    check(playground["analysis"]["relations"]["shown"] == false,
          "after opening a playground the Relations tab no longer shows the default model's heads");
    // The English relation core says to show first: coreference when the probe claims
    // it, else the claimed relation with the largest margin.
    const hs::RelationRun* en_run = nullptr;
    for (const hs::RelationRun& run : runs)
        if (run.lang == "en") en_run = &run;
    check(en_run != nullptr, "the probe has an English run");
    if (!en_run) return 1;
    const hs::RelationScore* shown = hs::relation_to_show(*en_run, Relation::Coreference);
    check(shown != nullptr && shown->claimed(), "core claims an English relation head to show");
    if (!shown) return 1;
    const std::string relation = hs::corpus::relation_name(shown->relation);
    const int en = shown->best_head;
    check(first.at("layer").get<int>() * heads + first.at("head").get<int>() == en,
          "it shows the best English " + relation + " head, L" + std::to_string(en / heads) + ".H" + std::to_string(en % heads));
    const std::vector<hs::Sample> gold_samples = hs::load_samples(HEADSCOPE_SOURCE_DIR "/assets/samples.json");
    bool on_a_sample_of_it = false;
    for (const hs::Sample& sample : gold_samples)
        if (sample.text == first.at("text").get<std::string>() && sample.gold)
            for (const hs::corpus::Arc& arc : sample.gold->arcs) on_a_sample_of_it |= arc.relation == shown->relation;
    check(on_a_sample_of_it, "on a sample with a gold " + relation + " arc: " + first.at("text").get<std::string>());
    check(first.at("relation_caption").get<std::string>().find(relation + " head (en") != std::string::npos,
          "the caption names it: " + first.at("relation_caption").get<std::string>());
    check_shown_map(*source, first, "first screen");

    const int zh_head = best_head(runs, "zh", Relation::Coreference);
    check(zh.at("layer").get<int>() * heads + zh.at("head").get<int>() == zh_head,
          "relations-show coreference zh shows the best Chinese coreference head");
    const std::string zh_text = zh.at("text");
    check(zh_text.find("她") != std::string::npos || zh_text.find("他") != std::string::npos || zh_text.find("它") != std::string::npos,
          "on a Chinese pronoun sample: " + zh_text);
    check_shown_map(*source, zh, "Chinese sample");

    const hs::Continuation c = hs::continue_text(*source, zh_text, 3);
    check(continued.at("text") == zh_text + c.text && continued.at("error") == "" && c.generated == 3,
          "continue 3 appends core's three most likely tokens: " + continued.at("text").get<std::string>());
    check(continued.at("notice") == "Appended 3 tokens.", "the notice says so: " + continued.at("notice").dump());

    check(playground.at("source_kind").get<std::string>() == "playground" && playground.at("untrained") == true,
          "a playground is marked untrained");
    check(first.at("untrained") == false, "the default model is not");

    // The sample list marks the sentences the model on screen does not read whole: for the
    // default model as core's reads_whole_text says, sample by sample (its own task's
    // sentences read, "我是秦始皇" does not); a playground model reads them all.
    const std::vector<hs::Sample> samples = hs::load_samples(HEADSCOPE_SOURCE_DIR "/assets/samples.json");
    std::vector<bool> expected;
    for (const hs::Sample& sample : samples) expected.push_back(hs::reads_whole_text(*source, sample.text));
    check(first.contains("samples_read") && first.at("samples_read").get<std::vector<bool>>() == expected,
          "the samples the default model reads whole are core's");
    check(std::count(expected.begin(), expected.end(), true) > 0 && std::count(expected.begin(), expected.end(), false) > 0,
          "the default model reads some samples whole and not others");
    const auto playground_read = playground.at("samples_read").get<std::vector<bool>>();
    check(playground_read.size() == samples.size() &&
              std::count(playground_read.begin(), playground_read.end(), false) == 0,
          "a playground model reads every sample");
    return failures ? 1 : 0;
}
