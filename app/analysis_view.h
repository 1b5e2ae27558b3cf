#pragma once
// What the Analysis window shows and remembers: the newest results of the analysis worker
// (one per job kind), the user's choices in each tab, and textures made from the results.
#include <memory>
#include <string>
#include <vector>

#include "app/analysis_worker.h"
#include "app/gl/texture.h"
#include "core/analysis/head_metrics.h"

namespace hs {

// Which table the Heads tab shows: the current text's analysis or the corpus means.
enum class MetricsSource { Text, Corpus };

// A matrix shown as a texture, re-uploaded when its key changes (no per-frame uploads).
struct KeyedTexture {
    FloatTexture texture;
    std::string key;
    float lo = 0.0f, hi = 1.0f;  // finite min / max of what was uploaded
    // Uploads m unless `key` equals the current key.
    void sync(const std::string& new_key, const Matrix& m);
};

struct AnalysisView {
    // -- results --------------------------------------------------------------
    std::shared_ptr<const TraceAnalysis> analysis;   // of `analysed_trace`
    std::shared_ptr<const Trace> analysed_trace;
    std::uint64_t analysed_generation = 0;            // trace generation analysed
    std::uint64_t requested_generation = 0;           // trace generation last submitted
    std::shared_ptr<const CorpusResult> corpus;
    std::vector<HeadLabels> corpus_labels;
    std::string corpus_name;
    std::vector<HeadPair> corpus_pairs;               // most redundant by mean JSD
    Eigen::MatrixXd corpus_mds;                       // (N, 2) MDS of the mean JSD
    std::shared_ptr<const HeadRanking> ranking;
    AblationMode ranking_mode = AblationMode::Zero;
    bool ranking_log = true;  // the ranking's bars on a log scale (one KL of 10 flattened the rest)
    std::string ranking_text;                         // input the ranking was computed for
    std::shared_ptr<const std::vector<RelationRun>> relations;  // one run per language
    std::string relations_model;                      // model_arg the relations were probed on
    // Whether the relation results belong to the model open as `model_arg` (the tab draws
    // only those: another model's name heads the model shown does not have).
    bool relations_of(const std::string& model_arg) const { return relations && relations_model == model_arg; }
    std::string relations_corpus;                     // what they were probed on
    std::vector<std::string> relations_skipped;
    std::vector<RelationShowcase> showcases;          // index into showcase_texts
    std::vector<std::string> showcase_texts;          // the samples the showcases index
    std::string relations_requested;                  // model_arg of the last automatic probe
    std::string error;                                // last failed job
    std::string status;                               // last finished job, one line
    std::string status_model;                         // the model the status is about ("" = any)
    void set_status(std::string text, std::string model = "") {
        status = std::move(text);
        status_model = std::move(model);
    }
    bool follow = true;                               // re-analyze when the trace changes

    // -- choices --------------------------------------------------------------
    MetricsSource table_source = MetricsSource::Text;
    int plot_metric = static_cast<int>(Metric::PrevToken);  // Plots: layer × head heatmap metric
    int bar_metric = static_cast<int>(Metric::Entropy);     // Plots: metric bars
    int selected = -1;                                // head index n = layer·H + head (table row)
    std::string corpus_file;                          // Heads tab: text file of many lines
    bool corpus_all_languages = false;                // samples: en + zh
    bool show_mds = true;
    int relations_lang = 0;                           // Relations tab: index into relations
    int relations_corpus_choice = 0;                  // a RelationsCorpus (app/analysis_actions.h)
    // After the first launch's probe: jump to this relation's best head (then cleared).
    std::string jump_to_relation;

    // -- textures ---------------------------------------------------------------
    KeyedTexture metric_map;     // (L, H) of plot_metric
    KeyedTexture jsd_map;        // (N, N)
    KeyedTexture rollout_map;    // (T, T)
    KeyedTexture effect_map;     // (L, H) map change per head under ablation
};

}  // namespace hs
