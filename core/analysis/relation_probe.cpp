#include "core/analysis/relation_probe.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "core/corpus/candidates.h"
#include "core/analysis/word_maps.h"
#include "core/error.h"

namespace hs {

const char* baseline_name(Baseline b) {
    switch (b) {
        case Baseline::Offset: return "offset";
        case Baseline::Position: return "position";
        case Baseline::Candidate: return "candidate";
    }
    return "?";
}

Baseline RelationScore::best_baseline() const {
    Baseline best = Baseline::Offset;
    double acc = offset_accuracy;
    if (position_accuracy > acc) best = Baseline::Position, acc = position_accuracy;
    if (has_candidate_baseline && candidate_accuracy > acc) best = Baseline::Candidate;
    return best;
}

double RelationScore::best_baseline_accuracy() const {
    switch (best_baseline()) {
        case Baseline::Offset: return offset_accuracy;
        case Baseline::Position: return position_accuracy;
        case Baseline::Candidate: return candidate_accuracy;
    }
    return offset_accuracy;
}

std::string RelationScore::best_baseline_text() const {
    switch (best_baseline()) {
        case Baseline::Offset: return "offset -" + std::to_string(offset_baseline);
        case Baseline::Position: return "position " + std::to_string(position_baseline);
        case Baseline::Candidate: return "nearest candidate";
    }
    return "";
}

void RelationProbe::add(const std::vector<Matrix>& maps, const corpus::AnnotatedSentence& sentence, int offset) {
    const int n_heads = layers_ * heads_, n = static_cast<int>(sentence.tokens.size());
    if (static_cast<int>(maps.size()) != n_heads)
        throw Error("relation probe: " + std::to_string(maps.size()) + " maps for " + std::to_string(layers_) + " layers × " +
                    std::to_string(heads_) + " heads");
    for (const Matrix& m : maps)
        if (m.rows() < offset + n || m.cols() < offset + n)
            throw Error("relation probe: a " + std::to_string(m.rows()) + "×" + std::to_string(m.cols()) +
                        " map cannot hold " + std::to_string(offset) + " + " + std::to_string(n) + " tokens");
    for (const corpus::Arc& arc : sentence.arcs) {
        if (arc.dependent < 1 || arc.dependent >= n || arc.partner_begin < 0 || arc.partner_end > arc.dependent ||
            arc.partner_begin >= arc.partner_end)
            throw Error("relation probe: an arc from token " + std::to_string(arc.dependent) + " to " +
                        std::to_string(arc.partner_begin) + " … " + std::to_string(arc.partner_end - 1) +
                        " does not point back inside the sentence of " + std::to_string(n) + " tokens");
        Tally& t = tallies_[static_cast<std::size_t>(arc.relation)];
        t.head_hits.resize(static_cast<std::size_t>(n_heads), 0);
        ++t.arcs;
        // The head's choice: the most-attended key among the sentence's tokens before the dependent.
        const int row = offset + arc.dependent;
        for (int k = 0; k < n_heads; ++k) {
            const Matrix& m = maps[static_cast<std::size_t>(k)];
            int best = 0;
            for (int j = 1; j < arc.dependent; ++j)
                if (m(row, offset + j) > m(row, offset + best)) best = j;
            if (best >= arc.partner_begin && best < arc.partner_end) ++t.head_hits[static_cast<std::size_t>(k)];
        }
        // Offset k is right when dependent − k lies in the partner's span; position p when
        // p does (every p of the span lies before the dependent).
        if (static_cast<int>(t.offset_hits.size()) < arc.dependent + 1) t.offset_hits.resize(static_cast<std::size_t>(arc.dependent) + 1, 0);
        for (int k = arc.dependent - arc.partner_end + 1; k <= arc.dependent - arc.partner_begin; ++k)
            ++t.offset_hits[static_cast<std::size_t>(k)];
        if (static_cast<int>(t.position_hits.size()) < arc.partner_end) t.position_hits.resize(static_cast<std::size_t>(arc.partner_end), 0);
        for (int p = arc.partner_begin; p < arc.partner_end; ++p) ++t.position_hits[static_cast<std::size_t>(p)];
        // The nearest candidate word ending before the dependent, read as its last token.
        const std::vector<corpus::WordSpan> candidates = corpus::candidate_words(sentence, arc);
        const corpus::WordSpan* nearest = nullptr;
        for (const corpus::WordSpan& w : candidates)
            if (w.end <= arc.dependent) nearest = &w;
        if (nearest && nearest->end - 1 >= arc.partner_begin && nearest->end - 1 < arc.partner_end) ++t.candidate_hits;
        t.lexicon_arcs += corpus::has_lexicon(sentence.lang);
    }
}

namespace {

// Every head's word-word map (word_map) of a trace whose tokens spell the words in pieces.
std::vector<Matrix> word_maps(const Trace& trace, const std::vector<int>& piece_word, int words) {
    std::vector<Matrix> out;
    for (const LayerTrace& layer : trace.main.layers) {
        if (!layer.self_attn.resident) throw Error("relation probe: the trace did not keep every layer's maps");
        for (const Matrix& a : layer.self_attn.weights) out.push_back(word_map(a, piece_word, words));
    }
    return out;
}

}  // namespace

void RelationProbe::add(const Trace& trace, const corpus::AnnotatedSentence& sentence, int offset) {
    std::vector<Matrix> maps;
    for (const LayerTrace& layer : trace.main.layers) {
        if (!layer.self_attn.resident) throw Error("relation probe: the trace did not keep every layer's maps");
        maps.insert(maps.end(), layer.self_attn.weights.begin(), layer.self_attn.weights.end());
    }
    add(maps, sentence, offset);
}

std::vector<RelationScore> RelationProbe::scores() const {
    std::vector<RelationScore> out;
    for (int r = 0; r < corpus::kRelationCount; ++r) {
        const Tally& t = tallies_[static_cast<std::size_t>(r)];
        if (t.arcs == 0) continue;
        RelationScore s;
        s.relation = static_cast<corpus::Relation>(r);
        s.arcs = t.arcs;
        for (std::size_t k = 0; k < t.head_hits.size(); ++k) {
            const double acc = static_cast<double>(t.head_hits[k]) / t.arcs;
            s.head_accuracy.push_back(acc);
            if (acc > s.best_accuracy || s.best_head < 0) s.best_accuracy = acc, s.best_head = static_cast<int>(k);
        }
        for (std::size_t k = 1; k < t.offset_hits.size(); ++k) {
            const double acc = static_cast<double>(t.offset_hits[k]) / t.arcs;
            if (acc > s.offset_accuracy) s.offset_accuracy = acc, s.offset_baseline = static_cast<int>(k);
        }
        for (std::size_t p = 0; p < t.position_hits.size(); ++p) {
            const double acc = static_cast<double>(t.position_hits[p]) / t.arcs;
            if (acc > s.position_accuracy) s.position_accuracy = acc, s.position_baseline = static_cast<int>(p);
        }
        // Only when every arc's language has the lexicon: elsewhere no word is a candidate,
        // and 0 would read as a baseline every head beats.
        s.has_candidate_baseline = corpus::has_candidate_kind(s.relation) && t.lexicon_arcs == t.arcs;
        s.candidate_accuracy = static_cast<double>(t.candidate_hits) / t.arcs;
        out.push_back(std::move(s));
    }
    return out;
}

RelationRun probe_relations(const TraceSource& source, const std::vector<corpus::AnnotatedSentence>& sentences,
                            const ProgressFn& progress) {
    RelationRun run;
    run.layers = source.config().layers;
    run.heads = source.config().heads;
    RelationProbe probe(run.layers, run.heads);
    TraceOptions options;
    options.hidden_states = false;
    // Sentences skipped because the tokenizer split their words, and the first of them.
    std::size_t split_count = 0;
    std::string first_split;
    for (std::size_t i = 0; i < sentences.size(); ++i) {
        if (progress && !progress(static_cast<int>(i), static_cast<int>(sentences.size()))) throw Cancelled();
        const corpus::AnnotatedSentence& s = sentences[i];
        SourceInput input;
        input.text = corpus::text_of(s);
        Trace trace;
        try {
            trace = source.run(input, options);
        } catch (const Cancelled&) {
            throw;
        } catch (const Error& e) {
            run.skipped.push_back("sentence " + std::to_string(i) + ": " + e.what());
            continue;
        }
        // The sentence's tokens are the trace's last ones (a BOS may come first), or the
        // trace's tokens spell its words in pieces: then the probe reads word-word maps.
        const std::vector<std::string>& read = trace.main.tokens;
        const std::size_t n = s.tokens.size();
        const bool whole_words =
            read.size() >= n && std::equal(s.tokens.begin(), s.tokens.end(), read.end() - static_cast<std::ptrdiff_t>(n));
        if (!whole_words) {
            if (const std::optional<std::vector<int>> piece_word = align_pieces(read, s.tokens)) {
                probe.add(word_maps(trace, *piece_word, static_cast<int>(n)), s, 0);
                ++run.analysed;
                ++run.merged;
                continue;
            }
        }
        if (!whole_words) {
            run.skipped.push_back("sentence " + std::to_string(i) + ": its " + std::to_string(read.size()) +
                                  " tokens do not spell the " + std::to_string(n) +
                                  " annotated words (an unknown token, a piece across two words)");
            if (split_count++ == 0)
                first_split = "sentence " + std::to_string(i) + ": " + std::to_string(read.size()) + " tokens for " +
                              std::to_string(n) + " words";
            continue;
        }
        probe.add(trace, s, static_cast<int>(read.size() - n));
        ++run.analysed;
    }
    if (run.analysed == 0 && split_count > 0 && split_count == run.skipped.size())
        throw Error("no sentence could be probed: this model's tokens do not spell the annotated words (" + first_split +
                    "): it reads them as unknown tokens or joins pieces of two words");
    if (run.analysed == 0)
        throw Error("no sentence could be probed: " + (run.skipped.empty() ? std::string("none given") : run.skipped.front()));
    run.scores = probe.scores();
    return run;
}

std::vector<RelationRun> probe_relations_by_language(const TraceSource& source,
                                                     const std::vector<corpus::AnnotatedSentence>& sentences,
                                                     std::vector<std::string>& skipped, const ProgressFn& progress) {
    std::vector<std::string> langs;
    for (const corpus::AnnotatedSentence& s : sentences)
        if (std::find(langs.begin(), langs.end(), s.lang) == langs.end()) langs.push_back(s.lang);
    std::vector<RelationRun> runs;
    std::string first_error;
    int done = 0;
    const int total = static_cast<int>(sentences.size());
    for (const std::string& lang : langs) {
        std::vector<corpus::AnnotatedSentence> part;
        for (const corpus::AnnotatedSentence& s : sentences)
            if (s.lang == lang) part.push_back(s);
        const int before = done;
        try {
            RelationRun run = probe_relations(source, part, [&](int d, int) {
                done = before + d;
                return !progress || progress(done, total);
            });
            run.lang = lang;
            for (const std::string& why : run.skipped) skipped.push_back(lang + " " + why);
            runs.push_back(std::move(run));
        } catch (const Cancelled&) {
            throw;
        } catch (const Error& e) {
            skipped.push_back(lang + ": " + e.what());
            if (first_error.empty()) first_error = e.what();
        }
        done = before + static_cast<int>(part.size());
    }
    // No language probed: the first one's reason, as probe_relations gave it.
    if (runs.empty()) throw Error(first_error.empty() ? std::string("no sentence could be probed: none given") : first_error);
    return runs;
}

const RelationScore* relation_to_show(const RelationRun& run, corpus::Relation preferred) {
    const RelationScore* wanted = nullptr;
    const RelationScore* widest = nullptr;  // the claimed relation with the largest margin
    for (const RelationScore& s : run.scores) {
        if (s.relation == preferred) wanted = &s;
        if (s.claimed() && (!widest || s.margin() > widest->margin())) widest = &s;
    }
    if (wanted && wanted->claimed()) return wanted;
    return widest ? widest : wanted;
}

std::vector<RelationShowcase> find_showcases(const TraceSource& source, const std::vector<RelationRun>& runs,
                                             const std::vector<corpus::AnnotatedSentence>& candidates) {
    std::vector<RelationShowcase> out;
    for (const RelationRun& run : runs)
        for (const RelationScore& s : run.scores) out.push_back({run.lang, s.relation, s.best_head, -1});
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        RelationRun one;
        try {
            one = probe_relations(source, {candidates[i]});
        } catch (const Cancelled&) {
            throw;
        } catch (const Error&) {
            continue;  // read as other tokens: not a showcase
        }
        if (one.analysed == 0) continue;
        for (RelationShowcase& show : out) {
            if (show.sentence >= 0 || show.lang != candidates[i].lang || show.best_head < 0) continue;
            for (const RelationScore& s : one.scores)
                if (s.relation == show.relation && s.head_accuracy[static_cast<std::size_t>(show.best_head)] == 1.0)
                    show.sentence = static_cast<int>(i);
        }
    }
    return out;
}

std::string relations_csv(const std::vector<RelationRun>& runs) {
    std::string out = "lang,relation,arcs,layer,head,accuracy,offset_baseline,offset_accuracy,position_baseline,"
                      "position_accuracy,candidate_accuracy,margin,claimed\n";
    char line[256];
    for (const RelationRun& run : runs)
        for (const RelationScore& s : run.scores) {
            char candidate[32] = "";
            if (s.has_candidate_baseline) std::snprintf(candidate, sizeof candidate, "%.6f", s.candidate_accuracy);
            for (std::size_t k = 0; k < s.head_accuracy.size(); ++k) {
                const bool claimed = s.claimed() && static_cast<int>(k) == s.best_head;
                std::snprintf(line, sizeof line, "%s,%s,%d,%d,%d,%.6f,%d,%.6f,%d,%.6f,%s,%.6f,%d\n", run.lang.c_str(),
                              corpus::relation_name(s.relation), s.arcs, static_cast<int>(k) / run.heads,
                              static_cast<int>(k) % run.heads, s.head_accuracy[k], s.offset_baseline, s.offset_accuracy,
                              s.position_baseline, s.position_accuracy, candidate,
                              s.head_accuracy[k] - s.best_baseline_accuracy(), claimed ? 1 : 0);
                out += line;
            }
        }
    return out;
}

}  // namespace hs
