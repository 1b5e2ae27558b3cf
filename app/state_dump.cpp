#include "app/state_dump.h"

namespace hs {

nlohmann::json dump_state(const AppContext& ctx) {
    const AppState& s = ctx.state;
    nlohmann::json j;
    j["model_arg"] = s.model_arg();
    j["text"] = s.text;
    j["layer"] = s.layer;
    j["head"] = s.head;
    j["recent_models"] = s.recent_models;
    j["error"] = ctx.view.error;
    j["notice"] = s.notice;
    const ModelInfo& i = ctx.view.info;
    j["info"] = {{"pretrained", i.pretrained}, {"kind", i.kind},         {"family", i.family},
                 {"d_model", i.d_model},       {"heads", i.heads},       {"kv_heads", i.kv_heads},
                 {"head_dim", i.head_dim},     {"layers", i.layers},     {"d_ff", i.d_ff},
                 {"vocab", i.vocab},           {"max_len", i.max_len},   {"parameters", i.parameters},
                 {"dtype", i.dtype},           {"memory_bytes", i.memory_bytes},
                 {"decoder_lm", i.decoder_lm}};
    j["trace_model_arg"] = ctx.view.model_arg;
    j["load_ms"] = ctx.view.load_ms;
    j["forward_ms"] = ctx.view.forward_ms;
    const Trace* t = ctx.view.trace.get();
    j["has_trace"] = t != nullptr;
    if (!t) return j;
    j["tokens"] = t->main.tokens;
    j["ids"] = t->main.ids;
    j["n_layers"] = t->n_layers();
    j["kv_heads"] = t->kv_heads;
    nlohmann::json next = nlohmann::json::array();
    for (const Trace::NextToken& n : t->next_tokens) next.push_back({{"id", n.id}, {"text", n.text}, {"prob", n.prob}});
    j["next_tokens"] = next;
    nlohmann::json kv = nlohmann::json::array(), captions = nlohmann::json::array();
    for (int h = 0; h < heads_in(*t, MapKind::Self); ++h) {
        kv.push_back(kv_head_of(*t, h));
        captions.push_back(head_caption(*t, h));
    }
    j["heads"] = heads_in(*t, MapKind::Self);
    j["kv_head_of"] = kv;
    j["head_captions"] = captions;
    return j;
}

}  // namespace hs
