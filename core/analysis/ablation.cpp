#include "core/analysis/ablation.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"

namespace hs {

namespace {

// ‖b − a‖_F / ‖a‖_F in double; a zero baseline gives ‖b‖_F (0 when both are zero).
double relative_change(const Matrix& a, const Matrix& b) {
    const double base = a.cast<double>().norm();
    const double diff = (b.cast<double>() - a.cast<double>()).norm();
    return base > 0.0 ? diff / base : diff;
}

// mean over all T·S entries of |B − A|
double mean_abs_diff(const Matrix& a, const Matrix& b) {
    if (a.size() == 0) return 0.0;
    return (b.cast<double>() - a.cast<double>()).cwiseAbs().mean();
}

void check_same_shape(const Matrix& a, const Matrix& b, const std::string& what) {
    if (a.rows() != b.rows() || a.cols() != b.cols())
        throw Error("cannot compare the traces: " + what + " is " + std::to_string(a.rows()) +
                    " × " + std::to_string(a.cols()) + " in the baseline but " +
                    std::to_string(b.rows()) + " × " + std::to_string(b.cols()) +
                    " in the ablated run");
}

// Per-layer hidden changes and per-head map changes of one stack's self-attention.
void compare_stacks(const StackTrace& base, const StackTrace& abl, const char* name,
                    std::vector<double>& hidden, std::vector<std::vector<double>>& maps) {
    if (base.layers.size() != abl.layers.size())
        throw Error(std::string("cannot compare the traces: the ") + name + " has " +
                    std::to_string(base.layers.size()) + " layers in the baseline but " +
                    std::to_string(abl.layers.size()) + " in the ablated run");
    for (std::size_t l = 0; l < base.layers.size(); ++l) {
        const LayerTrace& lb = base.layers[l];
        const LayerTrace& la = abl.layers[l];
        const std::string where = std::string("the ") + name + " layer " + std::to_string(l);
        check_same_shape(lb.output, la.output, where + " output");
        hidden.push_back(relative_change(lb.output, la.output));
        const auto& wb = lb.self_attn.weights;
        const auto& wa = la.self_attn.weights;
        if (wb.size() != wa.size())
            throw Error("cannot compare the traces: " + where + " has " +
                        std::to_string(wb.size()) + " head maps in the baseline but " +
                        std::to_string(wa.size()) + " in the ablated run");
        std::vector<double> per_head;
        for (std::size_t h = 0; h < wb.size(); ++h) {
            check_same_shape(wb[h], wa[h], where + " head " + std::to_string(h) + " weights");
            per_head.push_back(mean_abs_diff(wb[h], wa[h]));
        }
        maps.push_back(std::move(per_head));
    }
}

// log softmax(z): (V) in double, ln p_v = z_v − (max z + ln Σ_u exp(z_u − max z))
Eigen::VectorXd log_softmax(const Vector& logits) {
    const Eigen::VectorXd z = logits.cast<double>();
    const double z_max = z.maxCoeff();
    const double log_sum = z_max + std::log((z.array() - z_max).exp().sum());
    return z.array() - log_sum;
}

// The k most probable ids (ties: smaller id first).
std::vector<int> top_ids(const Eigen::VectorXd& log_p, int k) {
    std::vector<int> order(static_cast<std::size_t>(log_p.size()));
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
    k = std::min<int>(k, static_cast<int>(order.size()));
    std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int a, int b) {
        return log_p(a) > log_p(b) || (log_p(a) == log_p(b) && a < b);
    });
    order.resize(static_cast<std::size_t>(k));
    return order;
}

std::string token_text(int id, const Trace& base, const Trace& abl) {
    for (const Trace* t : {&base, &abl})
        for (const auto& n : t->next_tokens)
            if (n.id == id && !n.text.empty()) return n.text;
    return "#" + std::to_string(id);
}

void compare_next_tokens(const Trace& base, const Trace& abl, int top_k, AblationEffect& out) {
    if (base.next_token_logits.size() == 0 || abl.next_token_logits.size() == 0) return;
    if (base.next_token_logits.size() != abl.next_token_logits.size())
        throw Error("cannot compare the traces: the next-token logits have " +
                    std::to_string(base.next_token_logits.size()) +
                    " entries in the baseline but " + std::to_string(abl.next_token_logits.size()) +
                    " in the ablated run");
    out.has_next_token = true;
    const Eigen::VectorXd lp = log_softmax(base.next_token_logits);
    const Eigen::VectorXd lq = log_softmax(abl.next_token_logits);
    // KL(p ‖ q) = Σ_v p_v (ln p_v − ln q_v); identical logits give exactly 0.
    out.kl = (lp.array().exp() * (lp - lq).array()).sum();
    std::vector<int> ids = top_ids(lp, top_k);
    for (int id : top_ids(lq, top_k))
        if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
    for (int id : ids)
        out.top_tokens.push_back(TokenChange{id, token_text(id, base, abl),
                                             static_cast<float>(std::exp(lp(id))),
                                             static_cast<float>(std::exp(lq(id)))});
    std::stable_sort(
        out.top_tokens.begin(), out.top_tokens.end(),
        [](const TokenChange& a, const TokenChange& b) { return a.p_base > b.p_base; });
}

void check_ablatable(const TraceSource& source) {
    if (!source.takes_text())
        throw Error("cannot ablate heads of '" + source.name() + "': a " + source.kind() +
                    " has fixed inputs and weights and ignores ablation; open a model instead");
}

}  // namespace

AblationEffect compare_traces(const Trace& base, const Trace& ablated, int top_k) {
    AblationEffect out;
    compare_stacks(base.main, ablated.main, "main stack", out.hidden_change, out.map_change);
    if (base.decoder.has_value() != ablated.decoder.has_value())
        throw Error("cannot compare the traces: only one of them has a decoder stack");
    if (base.decoder)
        compare_stacks(*base.decoder, *ablated.decoder, "decoder stack", out.decoder_hidden_change,
                       out.decoder_map_change);
    const std::vector<double>& last = base.decoder ? out.decoder_hidden_change : out.hidden_change;
    if (!last.empty()) out.last_layer_change = last.back();
    compare_next_tokens(base, ablated, top_k, out);
    return out;
}

AblationEffect ablate(const TraceSource& source, const SourceInput& input,
                      const std::vector<HeadRef>& heads, AblationMode mode) {
    check_ablatable(source);
    TraceOptions options;
    const Trace base = source.run(input, options);
    options.ablate = heads;
    options.ablate_mode = mode;
    const Trace ablated = source.run(input, options);
    AblationEffect effect = compare_traces(base, ablated);
    effect.heads = heads;
    effect.mode = mode;
    return effect;
}

HeadRanking rank_heads(const TraceSource& source, const SourceInput& input, AblationMode mode,
                       const ProgressFn& progress) {
    check_ablatable(source);
    // Only outputs and logits are compared: skip the per-head maps.
    TraceOptions options;
    options.head_weights = false;
    const Trace base = source.run(input, options);
    const int L = source.config().layers, H = source.config().heads;
    HeadRanking ranking;
    ranking.measure = base.next_token_logits.size() > 0 ? "kl" : "last_layer_change";
    for (int l = 0; l < L; ++l)
        for (int h = 0; h < H; ++h) {
            options.ablate = {HeadRef{l, h, false, false}};
            options.ablate_mode = mode;
            const AblationEffect e = compare_traces(base, source.run(input, options), 0);
            ranking.heads.push_back(
                RankedHead{options.ablate[0], e.has_next_token ? e.kl : e.last_layer_change});
            if (progress && !progress(l * H + h + 1, L * H)) throw Cancelled{};
        }
    // Effect descending; ties keep layer-major order.
    std::stable_sort(ranking.heads.begin(), ranking.heads.end(),
                     [](const RankedHead& a, const RankedHead& b) { return a.effect > b.effect; });
    return ranking;
}

HeadRef parse_head_ref(const std::string& text) {
    HeadRef ref;
    std::string rest = text;
    if (rest.rfind("dec:", 0) == 0) {
        ref.in_decoder = true;
        rest = rest.substr(4);
    } else if (rest.rfind("cross:", 0) == 0) {
        ref.in_decoder = ref.cross = true;
        rest = rest.substr(6);
    }
    // "L3.H0", as the Heads table, the rankings and analyze print heads, reads as "3.0".
    if (rest.size() > 1 && rest[0] == 'L') {
        const auto h = rest.find(".H");
        if (h != std::string::npos) rest = rest.substr(1, h - 1) + "." + rest.substr(h + 2);
    }
    const auto dot = rest.find('.');
    const auto is_number = [](const std::string& s) {
        return !s.empty() && s.size() < 7 &&
               std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    if (dot == std::string::npos || !is_number(rest.substr(0, dot)) ||
        !is_number(rest.substr(dot + 1)))
        throw Error("'" + text + "' is not a head: write LAYER.HEAD such as 0.3 or L0.H3 (dec:1.2 or " +
                    "cross:1.2 for a decoder's self- or cross-attention)");
    ref.layer = std::stoi(rest.substr(0, dot));
    ref.head = std::stoi(rest.substr(dot + 1));
    return ref;
}

std::string to_string(const HeadRef& head) {
    const std::string prefix = head.cross ? "cross:" : head.in_decoder ? "dec:" : "";
    return prefix + std::to_string(head.layer) + "." + std::to_string(head.head);
}

AblationMode parse_ablation_mode(const std::string& text) {
    if (text == "zero") return AblationMode::Zero;
    if (text == "mean") return AblationMode::Mean;
    throw Error("ablation mode '" + text + "' is not one of zero, mean");
}

const char* to_string(AblationMode mode) { return mode == AblationMode::Zero ? "zero" : "mean"; }

}  // namespace hs
