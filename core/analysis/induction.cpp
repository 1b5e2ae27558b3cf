#include "core/analysis/induction.h"

#include <algorithm>

#include "core/error.h"
#include "core/source.h"
#include "core/rng.h"

namespace hs {

namespace {

// Pieces that are not ordinary text: "<s>", "</s>", "<unk>", "<0x0A>", "[CLS]", "[PAD]", "".
bool is_special_piece(const std::string& s) {
    if (s.empty()) return true;
    if (s.size() >= 3 && s.front() == '<' && s.back() == '>') return true;
    if (s.size() >= 3 && s.front() == '[' && s.back() == ']') return true;
    return false;
}

// m distinct entries of `pool`, in a seeded random order (partial Fisher–Yates).
std::vector<int> draw_distinct(std::vector<int> pool, int m, std::uint64_t seed) {
    Rng rng(seed);
    for (int k = 0; k < m; ++k) {
        const auto left = static_cast<std::uint64_t>(pool.size() - k);
        const auto pick = k + static_cast<std::size_t>(rng.next_u64() % left);
        std::swap(pool[k], pool[pick]);
    }
    pool.resize(m);
    return pool;
}

// Largest m with prefix + 2m + suffix ≤ max_len and m ≤ usable tokens; error if < 2.
int fit_block_length(int wanted, int prefix, int suffix, int max_len, int usable,
                     const std::string& model) {
    const int m = std::min({wanted, (max_len - prefix - suffix) / 2, usable});
    if (m < 2)
        throw Error("the induction input needs at least 2 random tokens repeated twice, but '" +
                    model + "' allows only " + std::to_string(std::max(m, 0)) +
                    " (max_len " + std::to_string(max_len) + ", " + std::to_string(usable) +
                    " usable tokens)");
    return m;
}

}  // namespace

InductionInput make_induction_input(const TraceSource& source, const InductionOptions& options) {
    if (options.m < 2)
        throw Error("the induction block length must be at least 2 tokens, got " +
                    std::to_string(options.m));
    InductionInput in;
    std::vector<int> lead, tail;  // P, and specials that follow the text (BERT's [SEP])
    std::vector<int> pool;
    // A model HeadScope trained reads its task's tokens (<bos>, #2 … or the words): the
    // tokenizer that reads its continuations back, so P is its <bos> as in training.
    const Tokenizer* tokenizer = source.tokenizer() ? source.tokenizer() : source.continuation_tokenizer();
    if (tokenizer) {
        // What the tokenizer wraps around an empty text: [BOS], [CLS][SEP], or nothing.
        const std::vector<int> wrap = tokenizer->encode("", true).ids;
        if (!wrap.empty()) {
            lead.push_back(wrap.front());
            tail.assign(wrap.begin() + 1, wrap.end());
        } else if (tokenizer->bos_id() >= 0) {
            lead.push_back(tokenizer->bos_id());
        }
        for (int id = 0; id < tokenizer->vocab_size(); ++id) {
            if (id == tokenizer->bos_id() || id == tokenizer->eos_id()) continue;
            if (std::find(wrap.begin(), wrap.end(), id) != wrap.end()) continue;
            if (is_special_piece(tokenizer->display(id))) continue;
            pool.push_back(id);
        }
    } else if (source.model()) {
        // Playground ids live in [1, vocab); 0 is padding. There is no BOS.
        for (int id = 1; id < source.config().vocab; ++id) pool.push_back(id);
    } else {
        throw Error("the induction score needs a model that reads token ids; '" + source.name() +
                    "' (" + source.kind() + ") has fixed inputs");
    }
    in.prefix = static_cast<int>(lead.size());
    in.m = fit_block_length(options.m, in.prefix, static_cast<int>(tail.size()),
                            source.config().max_len, static_cast<int>(pool.size()), source.name());
    const std::vector<int> r = draw_distinct(std::move(pool), in.m, options.seed);
    // ids = lead, r, r, tail
    in.ids.reserve(lead.size() + 2 * r.size() + tail.size());
    for (const std::vector<int>* part : std::initializer_list<const std::vector<int>*>{&lead, &r, &r, &tail})
        in.ids.insert(in.ids.end(), part->begin(), part->end());
    for (int id : in.ids)
        in.tokens.push_back(tokenizer ? tokenizer->display(id) : "#" + std::to_string(id));
    return in;
}

Trace run_induction_input(const TraceSource& source, const InductionInput& input,
                          const ProgressFn& progress) {
    TraceOptions options;
    options.hidden_states = false;
    const Model* model = source.model();
    if (!model)
        throw Error("the induction score needs a model that reads token ids; '" + source.name() +
                    "' (" + source.kind() + ") has fixed inputs");
    ForwardInput fwd;
    fwd.ids = input.ids;
    fwd.tokens = input.tokens;
    if (model->config().has_decoder_stack()) {  // the encoder is scored; feed the decoder the same
        fwd.decoder_ids = input.ids;
        fwd.decoder_tokens = input.tokens;
    }
    return model->forward(fwd, options, progress);
}

double induction_score(const Matrix& A, const InductionInput& input) {
    const int first = input.prefix + input.m, last = input.prefix + 2 * input.m - 1;
    if (A.rows() <= last || A.cols() <= last)
        throw Error("the attention map (" + std::to_string(A.rows()) + "×" +
                    std::to_string(A.cols()) + ") is smaller than the induction input (" +
                    std::to_string(last + 1) + " tokens)");
    double sum = 0;
    for (int i = first; i <= last; ++i) sum += A(i, i - input.m + 1);  // token after the earlier copy
    return sum / input.m;
}

std::vector<double> induction_scores(const Trace& trace, const InductionInput& input) {
    std::vector<double> out;
    for (const LayerTrace& layer : trace.main.layers)
        for (const Matrix& A : layer.self_attn.weights) out.push_back(induction_score(A, input));
    return out;
}

void add_induction_scores(const TraceSource& source, std::vector<HeadMetrics>& metrics,
                          const InductionOptions& options, const ProgressFn& progress) {
    const InductionInput input = make_induction_input(source, options);
    const std::vector<double> scores = induction_scores(run_induction_input(source, input, progress), input);
    if (scores.size() != metrics.size())
        throw Error("the induction run gave " + std::to_string(scores.size()) +
                    " heads but the metrics table has " + std::to_string(metrics.size()));
    for (std::size_t k = 0; k < metrics.size(); ++k) metrics[k][Metric::Induction] = scores[k];
}

}  // namespace hs
