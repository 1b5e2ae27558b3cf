#pragma once
// Turns the user's analysis actions into analysis-worker jobs and takes their results
// (called from the frame loop, the Analysis window and the script runner).
#include <functional>
#include <string>
#include <vector>

#include "app/analysis_view.h"
#include "app/analysis_worker.h"
#include "app/state.h"
#include "app/trace_view.h"
#include "core/corpus/samples.h"

namespace hs {

// What the analysis actions read and change (the frame loop builds it from AppContext).
struct AnalysisContext {
    AppState& state;                     // selection, text, ablation mode, export folder
    const TraceView& view;               // the trace on screen, its source and input
    AnalysisView& analysis;              // the results and the window's choices
    AnalysisWorker& analysis_worker;
    const std::vector<Sample>& samples;  // assets/samples.json
};

// Runs a UI action: clears `error_line` (the error line of the window the action came
// from), and an hs::Error (or any exception) becomes it instead of escaping the frame.
void try_action(std::string& error_line, const std::function<void()>& action);

// Analyze the current trace (metrics, labels, similarity, rollout, induction).
// Throws hs::Error when there is no trace yet.
void request_analysis(const AnalysisContext& ctx);
// Corpus mode over `sentences`, labelled `name` in the UI. Throws hs::Error without a
// model that reads text or without sentences.
void request_corpus(const AnalysisContext& ctx, std::vector<std::string> sentences, const std::string& name);
// The samples (English only unless all_languages) of assets/samples.json.
std::vector<std::string> sample_sentences(const std::vector<Sample>& samples, bool all_languages);
// Ablates each head of the current input in turn (ablation mode of the state).
void request_rank_heads(const AnalysisContext& ctx);
// What a relation probe runs on (the Relations tab's radio buttons, in this order): the
// grammar's structure families the default model never trained on (what a claim is
// measured on), the grammar's training patterns, or the samples with gold relations.
enum class RelationsCorpus { HeldOut, Grammar, Samples };
constexpr int kRelationsCorpusCount = 3;
// "held-out structures (600, seed 99)", "grammar sentences (600, seed 99)", "samples with
// gold relations": the UI's name of each (an i18n key).
const char* relations_corpus_name(RelationsCorpus which);
// Relation probes of the current model on `corpus` (one run per language). Throws
// hs::Error without a model that reads text or without sentences.
void request_relations(const AnalysisContext& ctx, RelationsCorpus which);
// Whether the newest probe ran on the held-out structures: its claims hold on sentences
// the default model never saw in that shape.
bool relations_held_out(const AnalysisView& a);
// Shows a relation's best head of the probed language: selects it and loads a sample of
// that language on which the head gets the relation right (the probe's showcase; else the
// first with an arc of the relation), its gold arcs drawn over the map.
void show_relation_head(const AnalysisContext& ctx, const RelationRun& run, const RelationScore& score);
// "coreference head (en 0.93 vs 0.41, offset −2); also: bracket, repetition": the relations
// whose best head, in the newest probe of model `model_arg`, is layer.head and is claimed
// (beats every baseline by kRelationMargin; of language `lang` only, when given), the first
// with its numbers and the others by name (the caption stays short under the map); empty
// when none.
std::string relation_caption(const AnalysisView& analysis, const std::string& model_arg, int layer, int head,
                             const std::string& lang = "");
// The strongest baseline of a relation in the window's language: "offset −2",
// "position 5", "nearest candidate".
std::string baseline_phrase(const RelationScore& r);

// True while the default model is shown and its heads have not been probed yet (the
// frame loop probes them; a script waits for it).
bool default_probe_due(const AnalysisContext& ctx);

// Once per frame: takes a finished result, and re-analyzes a new trace when the view
// follows the trace (never pre-empting a corpus run or a ranking).
void poll_analysis(const AnalysisContext& ctx);

// The metrics table the Heads / Plots tabs show: text analysis or corpus means.
// Empty when there is none. `labels` parallels it.
const std::vector<HeadLabels>* shown_labels(const AnalysisView& analysis);
std::vector<HeadMetrics> shown_metrics(const AnalysisView& analysis);
// Heads per layer / layers of what is shown (0 when nothing).
int shown_heads(const AnalysisView& analysis);
int shown_layers(const AnalysisView& analysis);

}  // namespace hs
