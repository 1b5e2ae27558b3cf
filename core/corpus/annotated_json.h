#pragma once
// Annotated sentences as JSON, the file `headscope corpus` writes and
// `headscope analyze --relations FILE` reads:
//   {"format": "headscope-relations",
//    "sentences": [{"lang": "en", "tokens": ["Emma", "saw", …],
//                   "arcs": [{"relation": "coreference", "dependent": 7, "partner": [0, 1]}]}]}
// "partner" is the half-open token range [begin, end) the dependent points back to.
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/corpus/annotated.h"

namespace hs::corpus {

std::string relations_json(const std::vector<AnnotatedSentence>& sentences);

// Every field checked: hs::Error naming `origin`, the sentence and the field (a relation
// that is not one, an arc that does not point back inside its sentence, …). At most
// 100 000 sentences of at most 4096 tokens.
std::vector<AnnotatedSentence> parse_relations_json(const std::string& text, const std::string& origin);

// The "arcs" array of a sentence of `n_tokens` tokens (as in a relations file; samples.json
// uses it too). hs::Error naming the arc and field.
std::vector<Arc> parse_arcs(const nlohmann::json& arcs, int n_tokens);

}  // namespace hs::corpus
