#pragma once
// Turns the user's analysis actions into analysis-worker jobs and takes their results
// (called from the frame loop, the Analysis window and the script runner).
#include <functional>
#include <string>
#include <vector>

#include "app/context.h"

namespace hs {

// Runs a UI action; an hs::Error (or any exception) becomes the Analysis window's error
// line instead of escaping the frame.
void try_action(AppContext& ctx, const std::function<void()>& action);

// Analyze the current trace (metrics, labels, similarity, rollout, induction).
// Throws hs::Error when there is no trace yet.
void request_analysis(AppContext& ctx);
// Corpus mode over `sentences`, labelled `name` in the UI. Throws hs::Error without a
// model that reads text or without sentences.
void request_corpus(AppContext& ctx, std::vector<std::string> sentences, const std::string& name);
// The samples (English only unless all_languages) of assets/samples.json.
std::vector<std::string> sample_sentences(const AppContext& ctx, bool all_languages);
// Ablates each head of the current input in turn (ablation mode of the state).
void request_rank_heads(AppContext& ctx);
// Relation probes of the current model on `sentences` (one run per language), labelled
// `name`. Throws hs::Error without a model that reads text or without sentences.
void request_relations(AppContext& ctx, std::vector<corpus::AnnotatedSentence> sentences, const std::string& name);
// The samples of assets/samples.json that carry gold relations, as annotated sentences.
std::vector<corpus::AnnotatedSentence> gold_samples(const AppContext& ctx);
// Shows a relation's best head of the probed language: selects it and loads a sample of
// that language on which the head gets the relation right (the probe's showcase; else the
// first with an arc of the relation), its gold arcs drawn over the map.
void show_relation_head(AppContext& ctx, const RelationRun& run, const RelationScore& score);
// "coreference head (en 0.93 vs 0.41 at offset −2)": the relations whose best head, in
// the newest probe of the shown model, is layer.head and beats its baseline by ≥ 0.2
// (of language `lang` only, when given); empty when none.
std::string relation_caption(const AppContext& ctx, int layer, int head, const std::string& lang = "");
// The margin over the positional baseline that makes a head a relation's head.
constexpr double kRelationMargin = 0.2;

// True while the default model is shown and its heads have not been probed yet (the
// frame loop probes them; a script waits for it).
bool default_probe_due(const AppContext& ctx);

// Once per frame: takes a finished result, and re-analyzes a new trace when the view
// follows the trace (never pre-empting a corpus run or a ranking).
void poll_analysis(AppContext& ctx);

// The metrics table the Heads / Plots tabs show: text analysis or corpus means.
// Empty when there is none. `labels` parallels it.
const std::vector<HeadLabels>* shown_labels(const AppContext& ctx);
std::vector<HeadMetrics> shown_metrics(const AppContext& ctx);
// Heads per layer / layers of what is shown (0 when nothing).
int shown_heads(const AppContext& ctx);
int shown_layers(const AppContext& ctx);

}  // namespace hs
