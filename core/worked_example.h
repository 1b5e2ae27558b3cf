#pragma once
// Worked examples: a learner writes X and the projection matrices in textbook
// convention (Q = X·W_Q) in JSON; the core turns them into an nn.MultiheadAttention-style
// block (W_in = [W_Qᵀ; W_Kᵀ; W_Vᵀ], W_out = W_Oᵀ) and computes every intermediate.
//
// Format (assets/examples/*.json):
// {
//   "title": "…", "description": "…", "source": "…",
//   "title_zh": "…", "description_zh": "…", "source_zh": "…",  // optional: 简体中文
//   "tokens": ["x1", "x2"],              // optional labels, default "x1".."xn"
//   "X": [[1,2,3,4],[4,3,2,1]],          // (n, d_model)
//   "heads": 2,
//   "W_Q": [[…]] (d_model, heads·d_k) or [ [[…]], [[…]] ] heads × (d_model, d_k); same for
//   "W_K", "W_V";
//   "W_O": [[…]] (heads·d_k, d_model_out), optional: absent means no output projection
//          (output = concat, i.e. W_O = identity);
//   "mask": "none" | "causal",           // optional, default none
//   "article": [                         // optional: what the source printed, to compare
//     {"step": "weights", "head": 0, "values": [[0.016, 0.984], [0.0, 1.0]]}, …]
//     steps: Q, K, V (per head), scores (Q·Kᵀ), scaled (÷√d_k), weights (softmax),
//     head (A·V), concat, output (after W_O)
// }
#include <string>
#include <vector>

#include "core/model/attention.h"
#include "core/model/trace.h"

namespace hs {

// What the source printed for one step (of one head), for "compare with the article".
struct ArticleValues {
    std::string step;   // one of article_steps()
    int head = 0;       // ignored for concat and output
    Matrix printed;
};
const std::vector<std::string>& article_steps();  // Q K V scores scaled weights head concat output

struct WorkedExample {
    std::string title, description, source;
    std::string title_zh, description_zh, source_zh;  // the same in Chinese ("" = none)
    std::vector<ArticleValues> article;
    std::vector<std::string> tokens;
    Matrix x;                 // (n, d_model)
    AttentionWeights weights; // fused, PyTorch layout
    bool causal = false;

    // Runs the block. The trace has one layer; `steps` always filled.
    Trace run() const;
};

// One printed number beside ours: agrees when |ours − printed| ≤ 0.001 + 0.0005·|printed|
// (what three printed decimals allow, with room for a rounded last digit).
struct ArticleCell {
    std::string step;
    int head = 0, row = 0, col = 0;
    double ours = 0.0, printed = 0.0;
    bool agrees = true;
};
// Every printed number of example.article against trace (example.run()'s, or the
// trace of an edited copy). Throws hs::Error when a printed matrix's shape is not the
// step's ("article weights of head 0 is 2×3, but the step is 2×2").
std::vector<ArticleCell> compare_with_article(const WorkedExample& example, const Trace& trace);

// Throws hs::Error naming the field and the expected shape on any problem.
WorkedExample parse_worked_example(const std::string& json_text, const std::string& origin);
WorkedExample load_worked_example(const std::string& path);
std::string worked_example_to_json(const WorkedExample& example);  // textbook convention

}  // namespace hs
