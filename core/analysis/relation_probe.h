#pragma once
// Relation probes (Clark et al. 2019, "What does BERT look at?"), for sentences with gold
// relations (core/corpus/annotated.h): a head "predicts" for a dependent token the key it
// attends to most, among the sentence's tokens before the dependent; it is right when
// that key lies in the gold partner's span. Per relation, each head's accuracy over every
// arc, and what a head without the relation could reach, three baselines:
//   offset     always the token a fixed offset k back (the best k for that relation)
//   position   always the token at a fixed position p of the sentence (the best p)
//   candidate  the nearest earlier word of the partner's kind: the most recent name for
//              he / she / 他 / 她, noun for it / 它, the most recent noun for agreement
//              (core/corpus/candidates.h; only those two relations)
// A head is claimed for a relation only when it beats the best of them by
// kRelationMargin: it has learned the relation, not a position or a word class.
#include <string>
#include <vector>

#include "core/source.h"

#include "core/corpus/annotated.h"
#include "core/model/trace.h"
#include "core/tensor.h"

namespace hs {

// How far a head must beat the best baseline to be claimed for a relation.
constexpr double kRelationMargin = 0.2;

enum class Baseline { Offset, Position, Candidate };
const char* baseline_name(Baseline b);  // "offset", "position", "candidate"

struct RelationScore {
    corpus::Relation relation = corpus::Relation::Agreement;
    int arcs = 0;                        // instances scored
    std::vector<double> head_accuracy;   // layer-major, L·H
    int best_head = -1;                  // index into head_accuracy (layer · H + head)
    double best_accuracy = 0.0;
    int offset_baseline = 1;             // the best fixed offset k (dependent − k)
    double offset_accuracy = 0.0;
    int position_baseline = 0;           // the best fixed position p (token p of the sentence)
    double position_accuracy = 0.0;
    bool has_candidate_baseline = false;  // coreference, agreement, in a language of the lexicon
    double candidate_accuracy = 0.0;     // of the nearest earlier candidate word
    // The strongest baseline (the first of offset, position, candidate on a tie), its
    // accuracy, and the best head's margin over it.
    Baseline best_baseline() const;
    double best_baseline_accuracy() const;
    double margin() const { return best_accuracy - best_baseline_accuracy(); }
    // A margin of exactly 0.2 counts (45/65 − 32/65 is 0.19999999999999996 in doubles).
    bool claimed() const { return best_head >= 0 && margin() >= kRelationMargin - 1e-9; }
    // "offset −2", "position 5", "nearest candidate": the strongest baseline in words.
    std::string best_baseline_text() const;
};

class RelationProbe {
public:
    RelationProbe(int layers, int heads) : layers_(layers), heads_(heads) {}
    // One sentence read by a model: maps[l·H + h] is head h of layer l's attention (T, T),
    // the sentence's tokens at positions offset … offset + n − 1 (offset 1 after a BOS).
    // Throws hs::Error when the maps are too small for the sentence or not L·H of them.
    void add(const std::vector<Matrix>& maps, const corpus::AnnotatedSentence& sentence, int offset);
    // The same from a trace's main-stack self-attention (every layer's maps kept).
    void add(const Trace& trace, const corpus::AnnotatedSentence& sentence, int offset);
    // One score per relation that had at least one arc, in relation order.
    std::vector<RelationScore> scores() const;

private:
    struct Tally {
        int arcs = 0;
        std::vector<int> head_hits;      // L·H
        std::vector<int> offset_hits;    // by offset k = 1 …
        std::vector<int> position_hits;  // by position p = 0 …
        int candidate_hits = 0;
        int lexicon_arcs = 0;            // arcs of sentences whose language the lexicon knows
    };
    int layers_, heads_;
    std::vector<Tally> tallies_ = std::vector<Tally>(corpus::kRelationCount);
};

// A model's heads probed on annotated sentences: each sentence's text (corpus::text_of)
// is run through `source`; the model reads it as the sentence's tokens (after any BOS it
// adds), or in pieces that spell them (then on word-word maps), else the sentence is
// skipped and named. Throws hs::Error when none could
// be read, or `progress` returned false (hs::Cancelled).
struct RelationRun {
    std::string lang;  // the sentences' language when they were split by it ("en", "zh"), else ""
    std::vector<RelationScore> scores;
    int layers = 0, heads = 0;
    int analysed = 0;
    // Of them, sentences the model read in pieces (a subword tokenizer), probed on word-word
    // maps (core/analysis/word_maps.h: to a word the sum over its pieces, from a word the mean).
    int merged = 0;
    std::vector<std::string> skipped;  // "sentence 3: its 14 tokens do not spell the 12 annotated words …"
};
RelationRun probe_relations(const TraceSource& source, const std::vector<corpus::AnnotatedSentence>& sentences,
                            const ProgressFn& progress = nullptr);

// probe_relations on each language's sentences apart, languages in order of first
// appearance (a language none of whose sentences could be read is left out and named in
// `skipped`). Throws as probe_relations when no language could be probed.
std::vector<RelationRun> probe_relations_by_language(const TraceSource& source,
                                                     const std::vector<corpus::AnnotatedSentence>& sentences,
                                                     std::vector<std::string>& skipped,
                                                     const ProgressFn& progress = nullptr);

// The relation a window shows first of a run: `preferred` when its best head is claimed,
// else the claimed relation with the largest margin, else `preferred` (null when the run
// scored no arc of it). A learner lands on a head that holds up when there is one.
const RelationScore* relation_to_show(const RelationRun& run, corpus::Relation preferred);

// A sentence that shows a relation's best head at work: for each (language, relation) of
// `runs`, the first of `candidates` of that language with an arc of the relation on which
// that best head points every such arc into its partner (what the app puts on screen when
// a learner asks to see the head); sentence −1 when no candidate does. Candidates the
// source cannot read as their tokens are passed over.
struct RelationShowcase {
    std::string lang;
    corpus::Relation relation = corpus::Relation::Agreement;
    int best_head = -1;
    int sentence = -1;  // index into candidates
};
std::vector<RelationShowcase> find_showcases(const TraceSource& source, const std::vector<RelationRun>& runs,
                                             const std::vector<corpus::AnnotatedSentence>& candidates);

// lang,relation,arcs,layer,head,accuracy,offset_baseline,offset_accuracy,position_baseline,
// position_accuracy,candidate_accuracy (empty without one),margin,claimed: a row per
// language, relation and head (margin: this head's accuracy over the best baseline).
std::string relations_csv(const std::vector<RelationRun>& runs);

}  // namespace hs
