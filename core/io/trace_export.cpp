#include "core/io/trace_export.h"

#include <cstdio>

namespace hs {

nlohmann::json matrix_to_json(const Matrix& m) {
    nlohmann::json rows = nlohmann::json::array();
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        nlohmann::json row = nlohmann::json::array();
        for (Eigen::Index j = 0; j < m.cols(); ++j) row.push_back(m(i, j));
        rows.push_back(std::move(row));
    }
    return rows;
}

namespace {

nlohmann::json heads_to_json(const HeadMaps& maps) {
    nlohmann::json heads = nlohmann::json::array();
    for (std::size_t h = 0; h < maps.weights.size(); ++h) {
        nlohmann::json head{{"weights", matrix_to_json(maps.weights[h])}};
        if (h < maps.scores.size()) head["scores"] = matrix_to_json(maps.scores[h]);
        heads.push_back(std::move(head));
    }
    return heads;
}

nlohmann::json stack_layers_to_json(const StackTrace& stack) {
    nlohmann::json layers = nlohmann::json::array();
    for (const LayerTrace& lt : stack.layers) {
        nlohmann::json layer{{"heads", heads_to_json(lt.self_attn)}};
        if (lt.cross_attn) layer["cross_heads"] = heads_to_json(*lt.cross_attn);
        if (lt.output.size() > 0) layer["output"] = matrix_to_json(lt.output);
        layers.push_back(std::move(layer));
    }
    return layers;
}

}  // namespace

nlohmann::json steps_to_json(const AttentionSteps& s) {
    nlohmann::json heads = nlohmann::json::array();
    for (std::size_t h = 0; h < s.weights.size(); ++h)
        heads.push_back({{"q", matrix_to_json(s.q_heads[h])},
                         {"k", matrix_to_json(s.k_heads[h])},
                         {"v", matrix_to_json(s.v_heads[h])},
                         {"raw_scores", matrix_to_json(s.raw_scores[h])},
                         {"scaled_scores", matrix_to_json(s.scaled_scores[h])},
                         {"masked_scores", matrix_to_json(s.masked_scores[h])},
                         {"weights", matrix_to_json(s.weights[h])},
                         {"output", matrix_to_json(s.head_outputs[h])}});
    nlohmann::json j{{"x_query", matrix_to_json(s.x_query)}, {"x_memory", matrix_to_json(s.x_memory)},
                     {"w_in", matrix_to_json(s.w_in)},       {"qkv", matrix_to_json(s.qkv)},
                     {"q", matrix_to_json(s.q)},             {"k", matrix_to_json(s.k)},
                     {"v", matrix_to_json(s.v)},             {"scale", s.scale},
                     {"heads", std::move(heads)},            {"concat", matrix_to_json(s.concat)},
                     {"w_out", matrix_to_json(s.w_out)},     {"output", matrix_to_json(s.output)}};
    if (s.softcap > 0.0f) j["softcap"] = s.softcap;  // scaled_scores are soft-capped (Gemma 2)
    // Cross-attention only: [K|V] of the memory, (S, 2·I_kv); self-attention has it in qkv.
    if (s.kv_memory.size() > 0) j["kv_memory"] = matrix_to_json(s.kv_memory);
    return j;
}

namespace {

// The config the trace ran: config.json's fields without the file's format tag (a trace
// is not a model directory), and without the seed for a foreign checkpoint (one with a
// family: llama2.c, gpt2, …), whose weights were loaded, never drawn from a seed. A model
// HeadScope trained keeps its initialisation seed.
nlohmann::json trace_config_json(const ModelConfig& c) {
    nlohmann::json j = config_to_json(c);
    j.erase("format");
    if (!c.family.empty()) j.erase("seed");
    return j;
}

}  // namespace

nlohmann::json trace_to_json(const Trace& t) {
    nlohmann::json j{{"model", t.model_name},
                     {"config", trace_config_json(t.config)},
                     {"tokens", t.main.tokens},
                     {"ids", t.main.ids},
                     {"input", matrix_to_json(t.main.input)},
                     {"layers", stack_layers_to_json(t.main)},
                     {"final_output", matrix_to_json(t.main.final_output)}};
    if (!t.key_padding.empty()) j["key_padding"] = t.key_padding;
    if (t.steps) {
        j["steps"] = steps_to_json(*t.steps);
        j["steps"]["layer"] = t.steps_layer;
        j["steps"]["stack"] = t.steps_in_decoder ? "decoder" : "main";
        j["steps"]["block"] = t.steps_cross ? "cross" : "self";
    }
    if (!t.taps.empty()) {
        nlohmann::json taps = nlohmann::json::array();
        for (const Trace::Tapped& tap : t.taps)
            taps.push_back({{"name", tap.name},
                            {"shape", {tap.value.rows(), tap.value.cols()}},
                            {"values", matrix_to_json(tap.value)}});
        j["taps"] = std::move(taps);
    }
    if (t.decoder) {
        j["decoder"] = {{"tokens", t.decoder->tokens},
                        {"ids", t.decoder->ids},
                        {"input", matrix_to_json(t.decoder->input)},
                        {"layers", stack_layers_to_json(*t.decoder)},
                        {"final_output", matrix_to_json(t.decoder->final_output)}};
    }
    return j;
}

namespace {

std::string csv_field(const std::string& s) {
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

}  // namespace

std::string weights_to_csv(const Matrix& w, const std::vector<std::string>& query_tokens,
                           const std::vector<std::string>& key_tokens) {
    std::string out = "query";
    for (Eigen::Index j = 0; j < w.cols(); ++j)
        out += "," + csv_field(j < (Eigen::Index)key_tokens.size() ? key_tokens[j] : "");
    out += "\n";
    char buf[32];
    for (Eigen::Index i = 0; i < w.rows(); ++i) {
        out += csv_field(i < (Eigen::Index)query_tokens.size() ? query_tokens[i] : "");
        for (Eigen::Index j = 0; j < w.cols(); ++j) {
            std::snprintf(buf, sizeof buf, ",%.9g", static_cast<double>(w(i, j)));
            out += buf;
        }
        out += "\n";
    }
    return out;
}

}  // namespace hs
