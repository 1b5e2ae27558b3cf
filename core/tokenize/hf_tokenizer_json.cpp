// tokenizer.json byte-level BPE and the model.type dispatcher (see hf_tokenizer_json.h).
#include "core/tokenize/token_id.h"
#include "core/tokenize/hf_tokenizer_json.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "core/error.h"
#include "core/io/json_file.h"
#include "core/tokenize/byte_fallback.h"
#include "core/tokenize/byte_level.h"
#include "core/tokenize/sentencepiece_bpe.h"
#include "core/tokenize/split_stages.h"
#include "core/tokenize/unicode_classes.h"
#include "core/tokenize/wordpiece.h"

namespace hs {

namespace {

using nlohmann::json;

std::string type_of(const json& j) {
    return j.is_object() && j.contains("type") && j["type"].is_string() ? j["type"].get<std::string>()
                                                                         : std::string("(none)");
}

bool flag(const json& j, const char* key, bool fallback) {
    return j.is_object() && j.contains(key) && j[key].is_boolean() ? j[key].get<bool>() : fallback;
}

// bos_token / eos_token in tokenizer_config.json: a string or {"content": "..."}.
std::string config_token(const json& config, const char* key) {
    if (!config.is_object() || !config.contains(key)) return {};
    const json& v = config[key];
    if (v.is_string()) return v.get<std::string>();
    if (v.is_object() && v.contains("content") && v["content"].is_string())
        return v["content"].get<std::string>();
    return {};
}

std::unordered_map<std::string, int> read_vocab_object(const json& model, const std::string& source) {
    if (!model.contains("vocab") || !model["vocab"].is_object())
        throw Error("tokenizer.json '" + source + "': model.vocab must be an object of token -> id.");
    std::unordered_map<std::string, int> vocab;
    vocab.reserve(model["vocab"].size());
    for (const auto& [token, id] : model["vocab"].items()) {
        vocab.emplace(token, token_id_from_json(id, "tokenizer.json '" + source + "': the id of vocabulary token '" +
                                                        token + "'"));
    }
    return vocab;
}

}  // namespace

std::pair<std::string, std::string> merge_of_text(const std::string& text, const std::string& what) {
    const size_t space = text.find(' ');
    if (space == std::string::npos || text.find(' ', space + 1) != std::string::npos)
        throw Error(what + " '" + text + "' must be two symbols separated by one space.");
    return {text.substr(0, space), text.substr(space + 1)};
}

namespace {

// merges: ["a b", …] (older files) or [["a", "b"], …] (newer files).
std::vector<std::pair<std::string, std::string>> read_merges(const json& model, const std::string& source) {
    std::vector<std::pair<std::string, std::string>> merges;
    if (!model.contains("merges")) return merges;
    if (!model["merges"].is_array())
        throw Error("tokenizer.json '" + source + "': model.merges must be an array.");
    for (size_t r = 0; r < model["merges"].size(); ++r) {
        const json& m = model["merges"][r];
        if (m.is_string()) {
            merges.push_back(merge_of_text(m.get<std::string>(), "tokenizer.json '" + source + "': merge " + std::to_string(r)));
        } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
            merges.emplace_back(m[0].get<std::string>(), m[1].get<std::string>());
        } else {
            throw Error("tokenizer.json '" + source + "': merge " + std::to_string(r) +
                        " is neither an \"a b\" string nor an [a, b] pair: " + m.dump());
        }
    }
    return merges;
}

SplitPattern split_pattern(const json& split, const std::string& source) {
    const json& p = split.contains("pattern") ? split["pattern"] : json();
    if (!p.is_object() || !p.contains("Regex") || !p["Regex"].is_string())
        throw Error("tokenizer.json '" + source + "': Split pre-tokenizer pattern " + p.dump() +
                    " is not supported (only a Regex pattern is).");
    const std::string regex = p["Regex"].get<std::string>();
    const std::string behavior = split.value("behavior", std::string("Isolated"));
    if (behavior != "Isolated" || flag(split, "invert", false))
        throw Error("tokenizer.json '" + source + "': Split behavior '" + behavior +
                    "' (or invert) is not supported; only Isolated without invert is.");
    if (const std::optional<SplitPattern> known = split_pattern_of_regex(regex)) return *known;
    throw Error("tokenizer.json '" + source + "': Split regex '" + regex +
                "' is not one HeadScope implements (those of GPT-2, Qwen2, Llama-3 and llama.cpp's pre-tokenizers " +
                gguf_pre_names() + ").");
}

void check_normalizer(const json& n, const std::string& source) {
    if (n.is_null()) return;
    const std::string type = type_of(n);
    if (type == "NFC") return;  // identity: input assumed NFC (see header)
    if (type == "Sequence" && n.contains("normalizers") && n["normalizers"].is_array()) {
        for (const json& inner : n["normalizers"]) check_normalizer(inner, source);
        return;
    }
    throw Error("tokenizer.json '" + source + "': normalizer type '" + type +
                "' is not supported for byte-level BPE (only none or NFC).");
}

// TemplateProcessing "single": special tokens before / after the sequence "A".
void read_template(const json& post, std::vector<int>& prefix, std::vector<int>& suffix,
                   const std::string& source) {
    const std::string type = type_of(post);
    if (type == "Sequence" && post.contains("processors") && post["processors"].is_array()) {
        for (const json& p : post["processors"]) read_template(p, prefix, suffix, source);
        return;
    }
    if (type != "TemplateProcessing" || !post.contains("single") || !post["single"].is_array()) return;
    bool after = false;
    for (const json& item : post["single"]) {
        if (item.contains("Sequence")) {
            after = true;
            continue;
        }
        if (!item.contains("SpecialToken")) continue;
        const std::string name = item["SpecialToken"].value("id", std::string());
        const json& specials = post.contains("special_tokens") ? post["special_tokens"] : json();
        if (!specials.is_object() || !specials.contains(name) || !specials[name].contains("ids"))
            throw Error("tokenizer.json '" + source + "': post_processor template names special token '" +
                        name + "' without giving its ids.");
        for (const json& id : specials[name]["ids"])
            (after ? suffix : prefix)
                .push_back(token_id_from_json(id, "tokenizer.json '" + source + "': an id of special token '" + name + "'"));
    }
}

std::vector<std::string> vocab_by_id(const std::unordered_map<std::string, int>& vocab) {
    int max_id = -1;
    for (const auto& [token, id] : vocab) max_id = std::max(max_id, id);
    std::vector<std::string> out(static_cast<size_t>(max_id + 1));
    for (const auto& [token, id] : vocab) out[static_cast<size_t>(id)] = token;
    return out;
}

std::unique_ptr<Tokenizer> make_wordpiece(const json& tj, const json& config, const std::string& source) {
    const json& model = tj["model"];
    WordPieceOptions o;
    const json& norm = tj.contains("normalizer") ? tj["normalizer"] : json();
    if (type_of(norm) == "BertNormalizer") {
        o.lower_case = flag(norm, "lowercase", true);
        if (norm.contains("strip_accents") && norm["strip_accents"].is_boolean())
            o.strip_accents = norm["strip_accents"].get<bool>();
        o.tokenize_chinese_chars = flag(norm, "handle_chinese_chars", true);
    } else if (!norm.is_null()) {
        throw Error("tokenizer.json '" + source + "': normalizer type '" + type_of(norm) +
                    "' is not supported for WordPiece (only BertNormalizer).");
    }
    if (model.contains("unk_token") && model["unk_token"].is_string()) o.unk_token = model["unk_token"];
    if (model.contains("continuing_subword_prefix") && model["continuing_subword_prefix"].is_string())
        o.continuing_prefix = model["continuing_subword_prefix"];
    if (model.contains("max_input_chars_per_word") && model["max_input_chars_per_word"].is_number_unsigned())
        o.max_input_chars_per_word = model["max_input_chars_per_word"].get<size_t>();
    if (config.is_object()) {
        o.cls_token = config.value("cls_token", o.cls_token);
        o.sep_token = config.value("sep_token", o.sep_token);
    }
    return std::make_unique<WordPieceTokenizer>(vocab_by_id(read_vocab_object(model, source)), o);
}

// The pieces of a SentencePiece-style tokenizer.json: the vocabulary by id (byte pieces
// typed Byte), the added tokens (special: Control, else UserDefined), the unknown token,
// the merges in rank order.
SentencePieceVocab read_sentencepiece_pieces(const json& tj, const std::string& source) {
    const std::string where = "tokenizer.json '" + source + "'";
    const json& model = tj["model"];
    SentencePieceVocab v;
    v.pieces = vocab_by_id(read_vocab_object(model, source));
    const std::size_t n = v.pieces.size();
    v.scores.assign(n, 0.0f);
    v.types.assign(n, PieceType::Normal);
    for (std::size_t id = 0; id < n; ++id)
        if (is_byte_token(v.pieces[id])) v.types[id] = PieceType::Byte;
        else if (v.pieces[id].empty()) v.types[id] = PieceType::Unused;  // an id the vocabulary skips
    if (tj.contains("added_tokens") && tj["added_tokens"].is_array())
        for (const json& a : tj["added_tokens"]) {
            const int id = token_id_from_json(a.at("id"), where + ": the id of an added token");
            if (id >= static_cast<int>(n)) {  // beyond the vocabulary: grows it
                v.pieces.resize(static_cast<std::size_t>(id) + 1);
                v.scores.resize(v.pieces.size(), 0.0f);
                v.types.resize(v.pieces.size(), PieceType::Unused);
            }
            v.pieces[static_cast<std::size_t>(id)] = a.at("content").get<std::string>();
            v.types[static_cast<std::size_t>(id)] = flag(a, "special", false) ? PieceType::Control : PieceType::UserDefined;
        }
    v.merges = read_merges(model, source);
    const std::string unk = model.contains("unk_token") && model["unk_token"].is_string() ? model["unk_token"].get<std::string>() : "";
    for (std::size_t id = 0; id < v.pieces.size(); ++id)
        if (!unk.empty() && v.pieces[id] == unk) {
            v.unk_id = static_cast<int>(id);
            v.types[id] = PieceType::Unknown;
        }
    return v;
}

// Where the spaces become "▁": a Prepend/Replace normalizer, or a Metaspace pre-tokenizer.
void read_sentencepiece_spaces(const json& tj, SentencePieceVocab& v, const std::string& source) {
    const std::string where = "tokenizer.json '" + source + "'";
    const json& norm = tj.contains("normalizer") ? tj["normalizer"] : json();
    std::vector<json> steps;
    if (type_of(norm) == "Sequence" && norm.contains("normalizers")) steps.assign(norm["normalizers"].begin(), norm["normalizers"].end());
    else if (!norm.is_null()) steps.push_back(norm);
    bool replaces_spaces = false;
    v.add_space_prefix = false;
    for (const json& step : steps) {
        const std::string type = type_of(step);
        if (type == "Prepend" && step.value("prepend", "") == "\xE2\x96\x81") v.add_space_prefix = true;
        else if (type == "Replace" && step.value("content", "") == "\xE2\x96\x81") replaces_spaces = true;
        else throw Error(where + ": normalizer '" + type + "' is not supported for SentencePiece-style BPE yet "
                         "(Prepend and Replace of \"▁\" are)");
    }
    const json& pre = tj.contains("pre_tokenizer") ? tj["pre_tokenizer"] : json();
    if (type_of(pre) == "Metaspace") {
        replaces_spaces = true;
        const std::string scheme = pre.value("prepend_scheme", flag(pre, "add_prefix_space", true) ? "always" : "never");
        v.add_space_prefix = scheme != "never";
        v.split_words = flag(pre, "split", true);
    } else if (!pre.is_null()) {
        throw Error(where + ": pre-tokenizer '" + type_of(pre) + "' is not supported for SentencePiece-style BPE "
                    "(none or Metaspace)");
    }
    if (!replaces_spaces)
        throw Error(where + ": BPE with byte_fallback whose spaces never become \"▁\" (no Replace normalizer, no "
                    "Metaspace) is not supported");
}

// SentencePiece-style BPE (Llama-2, Mistral, TinyLlama): byte_fallback, spaces as "▁" by
// a Prepend + Replace normalizer or a Metaspace pre-tokenizer, merges by rank.
std::unique_ptr<Tokenizer> make_sentencepiece_bpe(const json& tj, const json& config, const std::string& source) {
    SentencePieceVocab v = read_sentencepiece_pieces(tj, source);
    read_sentencepiece_spaces(tj, v, source);

    std::vector<int> prefix, suffix;
    if (tj.contains("post_processor")) read_template(tj["post_processor"], prefix, suffix, source);
    const auto id_of = [&](const std::string& piece) {
        for (std::size_t id = 0; id < v.pieces.size(); ++id)
            if (v.pieces[id] == piece) return static_cast<int>(id);
        return -1;
    };
    const std::string bos = config_token(config, "bos_token"), eos = config_token(config, "eos_token");
    v.bos_id = !bos.empty() ? id_of(bos) : !prefix.empty() ? prefix.front() : id_of("<s>");
    v.eos_id = !eos.empty() ? id_of(eos) : !suffix.empty() ? suffix.back() : id_of("</s>");
    v.add_bos = !prefix.empty();
    v.add_eos = !suffix.empty();
    return std::make_unique<SentencePieceBpe>(std::move(v));
}

}  // namespace

HfBpeTokenizer::HfBpeTokenizer(ByteLevelBpeParts parts, const std::string& source) : source_(source) {
    model_ = std::make_unique<BpeModel>(std::move(parts.vocab), parts.merges);
    vocab_size_ = model_->size();
    stages_ = std::move(parts.stages);
    add_tokens(std::move(parts.added));
    prefix_ids_ = std::move(parts.prefix_ids);
    bos_id_ = parts.bos_id;
    eos_id_ = parts.eos_id;
}

void HfBpeTokenizer::add_tokens(std::vector<std::pair<std::string, int>> added) {
    for (auto& [content, id] : added) {
        if (content.empty()) continue;
        added_by_id_[id] = content;
        vocab_size_ = std::max(vocab_size_, id + 1);
        added_.push_back(AddedToken{std::move(content), id});
    }
    std::stable_sort(added_.begin(), added_.end(),
                     [](const AddedToken& a, const AddedToken& b) { return a.content.size() > b.content.size(); });
}

void HfBpeTokenizer::read_pre_tokenizer(const json& pre) {
    // The splitting stages, and a ByteLevel step somewhere.
    std::vector<json> steps;
    if (type_of(pre) == "Sequence" && pre.contains("pretokenizers") && pre["pretokenizers"].is_array())
        steps.assign(pre["pretokenizers"].begin(), pre["pretokenizers"].end());
    else
        steps.push_back(pre);
    bool byte_level = false;
    for (const json& step : steps) {
        const std::string type = type_of(step);
        if (type == "Split") {
            stages_.push_back(split_pattern(step, source_));
        } else if (type == "ByteLevel") {
            byte_level = true;
            add_prefix_space_ = flag(step, "add_prefix_space", true);
            if (flag(step, "use_regex", true)) stages_.push_back(SplitPattern::Gpt2);
        } else {
            throw Error("tokenizer.json '" + source_ + "': pre-tokenizer type '" + type +
                        "' is not supported (byte-level BPE needs ByteLevel, optionally after a Split).");
        }
    }
    if (!byte_level)
        throw Error("tokenizer.json '" + source_ +
                    "': BPE without a ByteLevel pre-tokenizer is not supported (only byte-level BPE is).");
}

HfBpeTokenizer::HfBpeTokenizer(const json& tj, const json& config, const std::string& source) : source_(source) {
    const json& model = tj.at("model");
    if (type_of(model) != "BPE")
        throw Error("tokenizer.json '" + source + "': model type '" + type_of(model) +
                    "' is not a BPE model.");
    if (flag(model, "byte_fallback", false))
        throw Error("tokenizer.json '" + source +
                    "': BPE with byte_fallback (SentencePiece-style, e.g. Llama-2) is not byte-level BPE.");
    for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"})
        if (model.contains(key) && model[key].is_string() && !model[key].get<std::string>().empty())
            throw Error("tokenizer.json '" + source + "': BPE " + key +
                        " is set; only byte-level BPE without it is supported.");
    model_ = std::make_unique<BpeModel>(read_vocab_object(model, source), read_merges(model, source),
                                        flag(model, "ignore_merges", false));
    vocab_size_ = model_->size();

    read_pre_tokenizer(tj.contains("pre_tokenizer") ? tj["pre_tokenizer"] : json());
    check_normalizer(tj.contains("normalizer") ? tj["normalizer"] : json(), source);

    std::vector<std::pair<std::string, int>> added;
    if (tj.contains("added_tokens") && tj["added_tokens"].is_array())
        for (const json& a : tj["added_tokens"])
            added.emplace_back(a.at("content").get<std::string>(),
                               token_id_from_json(a.at("id"), "tokenizer.json '" + source + "': the id of an added token"));
    add_tokens(std::move(added));
    if (tj.contains("post_processor")) read_template(tj["post_processor"], prefix_ids_, suffix_ids_, source);

    const std::string bos = config_token(config, "bos_token"), eos = config_token(config, "eos_token");
    bos_id_ = bos.empty() ? (prefix_ids_.empty() ? -1 : prefix_ids_.front()) : id_of_any(bos);
    eos_id_ = eos.empty() ? id_of_any("<|endoftext|>") : id_of_any(eos);
    if (bos.empty() && bos_id_ < 0) bos_id_ = id_of_any("<|endoftext|>");  // GPT-2 convention
}

int HfBpeTokenizer::id_of_any(const std::string& token) const {
    for (const AddedToken& a : added_)
        if (a.content == token) return a.id;
    return model_->id_of(token);
}

std::string HfBpeTokenizer::token_bytes(int id) const {
    if (const auto it = added_by_id_.find(id); it != added_by_id_.end()) return it->second;
    if (id < 0 || id >= model_->size() || model_->token_of(id).empty())
        throw Error("Token id " + std::to_string(id) + " is outside the vocabulary of '" + source_ +
                    "' (" + std::to_string(vocab_size_) + " ids).");
    std::string bytes;
    if (!byte_level::symbols_to_bytes(model_->token_of(id), bytes)) return model_->token_of(id);
    return bytes;
}

// Pre-tokenise (each stage splits every piece of the previous one), then BPE each piece.
void HfBpeTokenizer::encode_segment(const std::string& text, std::vector<int>& ids) const {
    if (text.empty()) return;
    const bool prefix_space = add_prefix_space_ && text.front() != ' ';
    const std::vector<std::string> pieces = split_in_stages(stages_, prefix_space ? " " + text : text);
    for (const std::string& p : pieces) {
        const std::vector<int> piece_ids = model_->encode_piece(byte_level::bytes_to_symbols(p));
        ids.insert(ids.end(), piece_ids.begin(), piece_ids.end());
    }
}

Tokens HfBpeTokenizer::encode(const std::string& text, bool add_special) const {
    std::vector<int> ids;
    if (add_special) ids = prefix_ids_;
    // Added tokens: at each position the longest one that matches; text between them
    // goes through the normal pipeline.
    size_t seg_start = 0;
    for (size_t pos = 0; pos < text.size();) {
        const AddedToken* hit = nullptr;
        for (const AddedToken& a : added_)
            if (text.compare(pos, a.content.size(), a.content) == 0) {
                hit = &a;
                break;  // longest first
            }
        if (!hit) {
            ++pos;
            continue;
        }
        encode_segment(text.substr(seg_start, pos - seg_start), ids);
        ids.push_back(hit->id);
        pos += hit->content.size();
        seg_start = pos;
    }
    encode_segment(text.substr(seg_start), ids);
    if (add_special) ids.insert(ids.end(), suffix_ids_.begin(), suffix_ids_.end());
    return tokens_of(std::move(ids));
}

std::unique_ptr<Tokenizer> load_tokenizer_json(const std::string& path, const std::string& config_path) {
    const json tj = read_json_file(path);
    json config;
    std::error_code ec;
    if (!config_path.empty() && std::filesystem::exists(config_path, ec))
        config = read_json_file(config_path);
    if (!tj.is_object() || !tj.contains("model") || !tj["model"].is_object())
        throw Error("tokenizer.json '" + path + "' has no \"model\" object.");
    const std::string type = type_of(tj["model"]);
    try {
        if (type == "BPE" && flag(tj["model"], "byte_fallback", false)) return make_sentencepiece_bpe(tj, config, path);
        if (type == "BPE") return std::make_unique<HfBpeTokenizer>(tj, config, path);
        if (type == "WordPiece") return make_wordpiece(tj, config, path);
    } catch (const json::exception& e) {  // a field missing or of the wrong type
        throw Error("tokenizer.json '" + path + "' is not as Hugging Face writes it: " + e.what());
    }
    throw Error("tokenizer.json '" + path + "': model type '" + type +
                "' is not supported (HeadScope reads byte-level BPE, SentencePiece-style BPE and WordPiece).");
}

}  // namespace hs
