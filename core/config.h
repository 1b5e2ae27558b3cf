#pragma once
// ModelConfig: the architecture of a playground model, plus validation that
// reports every problem at once in words a user understands.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace hs {

enum class Arch { EncoderOnly, DecoderOnly, EncoderDecoder };
enum class PosEncoding { Sinusoidal, Learned, None };
enum class NormPlacement { PostLN, PreLN };
enum class Activation { ReLU, GELU };
enum class MaskKind { None, Causal };

struct ModelConfig {
    Arch arch = Arch::EncoderOnly;
    int d_model = 512;
    int heads = 8;
    int layers = 2;          // per stack: encoder-decoder has `layers` of each
    int d_ff = 2048;
    int vocab = 8192;        // playground ids are hashed into [0, vocab)
    int max_len = 4096;      // longest sequence (learned PE table rows)
    PosEncoding pe = PosEncoding::Sinusoidal;
    NormPlacement norm = NormPlacement::PostLN;
    Activation activation = Activation::ReLU;
    // Self-attention mask of the main stack (encoder-only / decoder-only) and of the
    // decoder stack of an encoder-decoder. The encoder of an encoder-decoder is never masked.
    MaskKind mask = MaskKind::None;
    float norm_eps = 1e-5f;
    std::uint64_t seed = 0;  // initialisation seed (playground)

    int d_k() const { return heads > 0 ? d_model / heads : 0; }
    bool has_decoder_stack() const { return arch == Arch::EncoderDecoder; }
    // Defaults per architecture: decoder-only is causal.
    static ModelConfig defaults_for(Arch arch);
    bool operator==(const ModelConfig&) const = default;
};

// Every problem with the config, each a full sentence; empty when valid.
std::vector<std::string> validate(const ModelConfig& config);
// Throws hs::Error with all problems joined by "; " when invalid.
void ensure_valid(const ModelConfig& config);

// Names used in JSON, specs and the UI: "encoder", "decoder", "encoder-decoder";
// "sinusoidal", "learned", "none"; "post-ln", "pre-ln"; "relu", "gelu"; "none", "causal".
std::string to_string(Arch v);
std::string to_string(PosEncoding v);
std::string to_string(NormPlacement v);
std::string to_string(Activation v);
std::string to_string(MaskKind v);
Arch parse_arch(const std::string& s);              // throws hs::Error naming the choices
PosEncoding parse_pos_encoding(const std::string& s);
NormPlacement parse_norm_placement(const std::string& s);
Activation parse_activation(const std::string& s);
MaskKind parse_mask(const std::string& s);

// config.json of a model directory (DESIGN §4).
nlohmann::json config_to_json(const ModelConfig& config);
ModelConfig config_from_json(const nlohmann::json& j);  // missing keys keep defaults

// Playground spec "random:d_model=512,heads=8,layers=2,seed=7,mask=causal,arch=decoder,pe=learned".
// Keys: d_model heads layers d_ff vocab max_len seed mask arch pe norm act. Unknown keys,
// bad numbers and bad values throw hs::Error naming the key. Does not validate.
ModelConfig parse_playground_spec(const std::string& spec);
// Whether a MODEL argument names a playground spec ("random:…") rather than a directory
// or a worked example (open_source dispatches on it).
bool is_playground_spec(const std::string& arg);
std::string to_playground_spec(const ModelConfig& config);

}  // namespace hs
