#pragma once
// Model = config + weights; forward(ids) -> Trace. One runtime for every model
// (DESIGN §3): playground specs, saved directories, Hugging Face and llama2.c checkpoints.
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/model/config.h"
#include "core/model/trace.h"
#include "core/kernels/packed_cache.h"
#include "core/model/layer_source.h"
#include "core/model/weights.h"

namespace hs {

// Called after each layer with (layers done, layers total); return false to cancel.
using ProgressFn = std::function<bool(int done, int total)>;

struct ForwardInput {
    std::vector<int> ids;                  // main stack (encoder for encoder-decoder)
    std::vector<std::string> tokens;       // display strings, same length as ids
    std::vector<int> decoder_ids;          // encoder-decoder only
    std::vector<std::string> decoder_tokens;
    std::vector<int> key_padding;          // positions of `ids` masked as keys
    Matrix embeddings;                     // (T, D) given: layer 0 reads these instead of
                                           //   the embedding of ids (worked examples' X)
    bool keep_first = false;               // more tokens than max_len: run the first max_len
                                           //   (Trace::dropped_tokens counts the rest)
    // The main stack's ids alone (tokens shown as their ids).
    static ForwardInput of(std::vector<int> ids) {
        ForwardInput in;
        in.ids = std::move(ids);
        return in;
    }
};

// Thrown by Model::forward when the progress callback asks to stop.
struct Cancelled {};

class Model {
public:
    Model(ModelConfig config, ModelWeights weights, std::string name = "");
    // A model whose main-stack layers stay in its file (core/model/layer_source.h), read
    // one at a time as the forward reaches them: `outside` holds every other weight (its
    // `layers` is empty). For single-stack models only.
    Model(ModelConfig config, ModelWeights outside, std::shared_ptr<const LayerSource> layers, std::string name = "");
    // A playground model: validates config (throws hs::Error) and initialises from its seed.
    static Model random(const ModelConfig& config);
    // This model with another head count (a live heads edit): config().heads set to
    // `heads`, the weights (and their packed panels) shared, not copied, as they do not
    // depend on the head count. For a model made by random(c) it equals random(c with
    // heads), without the initialisation. Throws hs::Error when the new config is invalid
    // (d_model not divisible by heads, …) or its weights' shapes depend on the head count
    // (kv_heads or head_dim set: ModelConfig::heads_only_split).
    Model with_heads(int heads) const;

    const ModelConfig& config() const { return config_; }
    // The layers run with config().heads. Weights may be shared with the models that
    // with_heads made from this one (or this one from), so AttentionWeights::heads in
    // here is the head count the weights were first made for.
    // Throws hs::Error for a model that reads its layers from its file (saving, editing and
    // training need every weight in memory).
    const ModelWeights& weights() const;
    // The weights in memory: all of them, or all but the main stack's layers when they are
    // read from the file (reads_layers_from_file(); ModelWeights::layers is empty then).
    const ModelWeights& resident_weights() const { return *weights_; }
    // Whether the layers are read from the file as the forward reaches them.
    bool reads_layers_from_file() const { return layer_source_ != nullptr; }
    // Main-stack layer il: the resident one, or the file's converted to f32 into `slot`.
    const EncoderLayerWeights& layer(int il, EncoderLayerWeights& slot) const;
    // The same for the forward's products only: the file's linear weights may stay as
    // stored (LayerSource::read_layer_for_products).
    const EncoderLayerWeights& layer_for_products(int il, ProductsLayer& slot) const;
    // For editing: unshares first (copy on write, the other models keep their weights)
    // and drops this model's packed panels, which an edit would leave stale (the forward
    // then reads the matrices themselves).
    ModelWeights& mutable_weights();
    const std::string& name() const { return name_; }
    void set_name(std::string name) { name_ = std::move(name); }

    // Runs the model. Throws hs::Error on bad input (empty ids, id out of range,
    // sequence longer than max_len, decoder ids missing for encoder-decoder).
    Trace forward(const ForwardInput& input, const TraceOptions& options = {},
                  const ProgressFn& progress = nullptr) const;
    // Logits (V) after the last position, without capturing anything: the decoder stack
    // for an encoder-decoder (decoder_ids), else the main stack. Throws hs::Error for a
    // model without an LM head.
    Vector next_token_logits(const ForwardInput& input) const;

    // The precision the weights were stored in ("f32", "bf16", "f16+f32", …); they are f32
    // in memory (one layer at a time when reads_layers_from_file()).
    const std::string& stored_dtype() const { return stored_dtype_; }
    void set_stored_dtype(std::string dtype) { stored_dtype_ = std::move(dtype); }

    // Total number of parameters.
    long long parameter_count() const;
    // Bytes of f32 weights this model holds at most: 4 per parameter, or, when it reads its
    // layers from its file, 4 per parameter outside the layers plus one layer's.
    double f32_weight_bytes() const;

private:
    // Shares `weights` and their packed panels.
    Model(ModelConfig config, std::shared_ptr<ModelWeights> weights,
          std::shared_ptr<const PackedPanels> packed, std::shared_ptr<const LayerSource> layers, std::string name);

    ModelConfig config_;
    std::shared_ptr<ModelWeights> weights_;  // null only in a moved-from Model
    // The kernel layer's packed copies of weights_'s linear layers (core/kernels/
    // packed_cache.h); null after mutable_weights(). It holds weights_ alive itself.
    std::shared_ptr<const PackedPanels> packed_;
    std::shared_ptr<const LayerSource> layer_source_;  // null: the layers are in weights_
    std::string name_;
    std::string stored_dtype_ = "f32";
};

// The weights every matmul of a forward multiplies by, as the packed-weight cache holds
// them: W_in and W_o of every self-attention; cross-attention's W_in as its two row blocks
// (W_Q for the queries, [W_K; W_V] for the memory); the FFN's linear1, linear2 and gate.
std::vector<WeightRows> linear_weights(const ModelWeights& weights);
// Those of one main-stack layer (W_in, W_o, linear1, linear2, gate), appended to list.
void append_linear_weights(const EncoderLayerWeights& layer, std::vector<WeightRows>& list);

// Top-k next-token probabilities from logits (softmax over all V, in double); ties go to
// the lower id.
std::vector<Trace::NextToken> top_k(const Vector& logits, int k);

// Refuses (hs::Error naming the sizes) to capture attention maps of more than 8 GB:
// cells_per_head T×S cells for every one of layers × heads maps (×2 with scores).
void ensure_maps_fit(double cells_per_head, long long tokens, int layers, int heads, bool scores);

// Recomputes the full maps of one attention block of `trace` (which model.forward
// produced) from its stored hidden states: the self-attention of layer block.layer of the
// main stack, or of the decoder stack (block.in_decoder), or the decoder's
// cross-attention (block.cross), with the trace's ablation. Exactly the maps a full
// capture holds; scores too when `scores`. Throws hs::Error when the trace lacks the
// hidden states or the block does not exist.
HeadMaps recompute_layer_maps(const Model& model, const Trace& trace, const HeadRef& block,
                              bool scores);

// Bytes of the maps of one attention block: H · cells · 4 (× 2 with scores).
double map_block_bytes(double cells_per_head, int heads, bool scores);

// The one forward (DESIGN §1): Model::forward runs it on its weights, training
// (core/train/) on the weights it is changing, with the recorders it needs. Throws
// hs::Error on bad input (see Model::forward), Cancelled when `progress` says stop.
// Trace::model_name is left empty.
Trace run_forward(const ModelConfig& config, const ModelWeights& weights, const ForwardInput& input,
                  const TraceOptions& options = {}, const ProgressFn& progress = nullptr);
// The same forward with the main stack's layers read from `layers` one at a time (the
// other weights from `outside`), or from `outside` when `layers` is null.
Trace run_forward(const ModelConfig& config, const ModelWeights& outside, const LayerSource* layers,
                  const ForwardInput& input, const TraceOptions& options, const ProgressFn& progress);

// The LM head's weight W_head (V, D): lm_head, or the token embedding when they are tied.
const Matrix& lm_head_weight(const ModelConfig& config, const ModelWeights& weights);

// Embeddings + positions entering layer 0: (T, D) = embed[ids] (· √D not applied) + PE
// (sinusoidal or learned; rotary positions are applied in attention instead)
// + type_embed[0] (token types), then the embedding norm when the model has one.
Matrix embed_tokens(const Model& model, const std::vector<int>& ids);
Matrix embed_tokens(const ModelConfig& config, const ModelWeights& weights, const std::vector<int>& ids);

}  // namespace hs
