#pragma once
// Worked examples: a learner writes X and the projection matrices in textbook
// convention (Q = X·W_Q) in JSON; the core turns them into an nn.MultiheadAttention-style
// block (W_in = [W_Qᵀ; W_Kᵀ; W_Vᵀ], W_out = W_Oᵀ) and computes every intermediate.
//
// Format (assets/examples/*.json):
// {
//   "title": "…", "description": "…", "source": "…",
//   "tokens": ["x1", "x2"],              // optional labels, default "x1".."xn"
//   "X": [[1,2,3,4],[4,3,2,1]],          // (n, d_model)
//   "heads": 2,
//   "W_Q": [[…]] (d_model, heads·d_k) or [ [[…]], [[…]] ] heads × (d_model, d_k); same for
//   "W_K", "W_V";
//   "W_O": [[…]] (heads·d_k, d_model_out), optional: absent means no output projection
//          (output = concat, i.e. W_O = identity);
//   "mask": "none" | "causal"            // optional, default none
// }
#include <string>
#include <vector>

#include "core/model/attention.h"
#include "core/model/trace.h"

namespace hs {

struct WorkedExample {
    std::string title, description, source;
    std::vector<std::string> tokens;
    Matrix x;                 // (n, d_model)
    AttentionWeights weights; // fused, PyTorch layout
    bool causal = false;

    // Runs the block. The trace has one layer; `steps` always filled.
    Trace run() const;
};

// Throws hs::Error naming the field and the expected shape on any problem.
WorkedExample parse_worked_example(const std::string& json_text, const std::string& origin);
WorkedExample load_worked_example(const std::string& path);
std::string worked_example_to_json(const WorkedExample& example);  // textbook convention

}  // namespace hs
