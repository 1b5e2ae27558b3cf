// Worked examples (see worked_example.h for the JSON format).
//
// Textbook convention in the file, PyTorch layout in memory:
//   file:   Q = X·W_Q, W_Q (D, H·Dh) or H × (D, Dh);  out = concat·W_O, W_O (H·Dh, D_out)
//   memory: in_proj_weight (3I, D) = [W_Qᵀ; W_Kᵀ; W_Vᵀ], out_proj_weight (D_out, I) = W_Oᵀ,
//           I = H·Dh, biases zero.
// A per-head list [W_Q1, W_Q2, …] is the full matrix W_Q = [W_Q1 | W_Q2 | …] (column blocks).
#include "core/worked_example.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/io/atomic_file.h"
#include "core/io/json_file.h"
#include "core/model/model.h"

namespace hs {

namespace {

using json = nlohmann::json;

std::string shape_str(Eigen::Index rows, Eigen::Index cols) {
    return std::to_string(rows) + "×" + std::to_string(cols);
}

// A JSON value in a few words, for "… is \"abc\", not a number".
std::string describe_value(const json& v) {
    std::string s = v.dump();
    if (s.size() > 40) s = s.substr(0, 37) + "...";
    return s;
}

// Reads a non-empty list of equal-length rows of numbers. `field` names it in errors
// ("X", "W_Q head 2").
Matrix read_matrix(const json& j, const std::string& field) {
    if (!j.is_array() || j.empty())
        throw Error(field + " must be a non-empty list of rows (a list of lists of numbers), "
                    "but it is " + describe_value(j) + ".");
    const size_t rows = j.size();
    size_t cols = 0;
    for (size_t r = 0; r < rows; ++r) {
        const json& row = j[r];
        if (!row.is_array())
            throw Error(field + " row " + std::to_string(r + 1) + " must be a list of numbers, "
                        "but it is " + describe_value(row) + ".");
        if (r == 0) {
            cols = row.size();
            if (cols == 0) throw Error(field + " row 1 is empty; every row needs at least one number.");
        } else if (row.size() != cols) {
            throw Error(field + " row " + std::to_string(r + 1) + " has " +
                        std::to_string(row.size()) + " numbers, but row 1 has " +
                        std::to_string(cols) + "; every row must have the same length.");
        }
    }
    Matrix m(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
    for (size_t r = 0; r < rows; ++r)
        for (size_t c = 0; c < cols; ++c) {
            const json& v = j[r][c];
            if (!v.is_number())
                throw Error(field + " row " + std::to_string(r + 1) + ", column " +
                            std::to_string(c + 1) + " is " + describe_value(v) +
                            ", not a number.");
            const double d = v.get<double>();
            if (!std::isfinite(d) || std::abs(d) > std::numeric_limits<float>::max())
                throw Error(field + " row " + std::to_string(r + 1) + ", column " + std::to_string(c + 1) +
                            " is " + v.dump() + ", beyond what a 32-bit float holds.");
            m(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) = static_cast<float>(d);
        }
    return m;
}

// [[[…]]]: a list whose first element is a list of lists (one matrix per head).
bool is_per_head_list(const json& j) {
    return j.is_array() && !j.empty() && j[0].is_array() && !j[0].empty() && j[0][0].is_array();
}

// Reads W_Q / W_K / W_V in either form and returns the full textbook matrix (D, H·Dh).
// expected_dk < 0: take Dh from this matrix (W_Q); otherwise it must match.
Matrix read_projection(const json& j, const std::string& name, int d_model, int heads,
                       int expected_dk) {
    if (is_per_head_list(j)) {
        if (static_cast<int>(j.size()) != heads)
            throw Error(name + " lists " + std::to_string(j.size()) + " head matrices, but heads is " +
                        std::to_string(heads) + ".");
        std::vector<Matrix> blocks;
        int dk = expected_dk;
        for (int h = 0; h < heads; ++h) {
            const std::string field = name + " head " + std::to_string(h + 1);
            Matrix m = read_matrix(j[static_cast<size_t>(h)], field);
            if (dk < 0) dk = static_cast<int>(m.cols());
            if (m.rows() != d_model || m.cols() != dk)
                throw Error(field + " has shape " + shape_str(m.rows(), m.cols()) + ", expected " +
                            shape_str(d_model, dk) + " (d_model × d_k).");
            blocks.push_back(std::move(m));
        }
        Matrix full(d_model, heads * dk);
        for (int h = 0; h < heads; ++h) full.middleCols(h * dk, dk) = blocks[static_cast<size_t>(h)];
        return full;
    }
    Matrix m = read_matrix(j, name);
    if (expected_dk >= 0) {
        if (m.rows() != d_model || m.cols() != heads * expected_dk)
            throw Error(name + " has shape " + shape_str(m.rows(), m.cols()) + ", expected " +
                        shape_str(d_model, heads * expected_dk) +
                        " (d_model × heads·d_k, the same as W_Q).");
        return m;
    }
    if (m.rows() != d_model)
        throw Error(name + " has shape " + shape_str(m.rows(), m.cols()) + ", expected " +
                    std::to_string(d_model) + " rows (d_model, the width of X) and heads·d_k columns.");
    if (m.cols() % heads != 0)
        throw Error(name + " has " + std::to_string(m.cols()) + " columns, which do not split into " +
                    std::to_string(heads) + " heads of equal width (expected heads·d_k columns).");
    return m;
}

int read_heads(const json& doc) {
    if (!doc.contains("heads")) {
        // Without "heads", a per-head W_Q says how many; a single matrix means one head.
        return is_per_head_list(doc["W_Q"]) ? static_cast<int>(doc["W_Q"].size()) : 1;
    }
    const json& h = doc["heads"];
    if (!h.is_number_integer() || h.get<long long>() < 1 || h.get<long long>() > 4096)
        throw Error("heads must be a positive whole number, but it is " + describe_value(h) + ".");
    return h.get<int>();
}

std::string read_string(const json& doc, const char* key) {
    if (!doc.contains(key)) return "";
    if (!doc[key].is_string())
        throw Error(std::string(key) + " must be a string, but it is " + describe_value(doc[key]) + ".");
    return doc[key].get<std::string>();
}

void check_known_keys(const json& doc) {
    static const char* const known[] = {"title", "description", "source", "title_zh", "description_zh",
                                        "source_zh", "tokens", "X", "heads", "W_Q", "W_K", "W_V", "W_O",
                                        "mask", "article"};
    for (const auto& item : doc.items()) {
        bool ok = false;
        for (const char* k : known) ok = ok || item.key() == k;
        if (!ok)
            throw Error("unknown field \"" + item.key() + "\"; the fields are title, description, "
                        "source (each also as …_zh), tokens, X, heads, W_Q, W_K, W_V, W_O, mask and article.");
    }
}

// "article": [{"step": …, "head": …, "values": [[…]]}, …] (heads < H checked here, shapes
// against the computed steps in compare_with_article).
std::vector<ArticleValues> read_article(const json& doc, int heads) {
    std::vector<ArticleValues> out;
    if (!doc.contains("article")) return out;
    const json& list = doc["article"];
    if (!list.is_array()) throw Error("article must be a list of {step, head, values}, but it is " + describe_value(list) + ".");
    for (std::size_t i = 0; i < list.size(); ++i) {
        const json& item = list[i];
        const std::string where = "article entry " + std::to_string(i + 1);
        if (!item.is_object() || !item.contains("step") || !item.contains("values"))
            throw Error(where + " needs \"step\" and \"values\".");
        ArticleValues a;
        a.step = read_string(item, "step");
        const auto& steps = article_steps();
        if (std::find(steps.begin(), steps.end(), a.step) == steps.end())
            throw Error(where + " has step \"" + a.step + "\"; the steps are Q, K, V, scores, scaled, weights, head, concat and output.");
        if (item.contains("head")) {
            const json& h = item["head"];
            if (!h.is_number_integer() || h.get<long long>() < 0 || h.get<long long>() >= heads)
                throw Error(where + " has head " + describe_value(h) + "; the example has heads 0 to " + std::to_string(heads - 1) + ".");
            a.head = h.get<int>();
        }
        a.printed = read_matrix(item["values"], where + " values");
        out.push_back(std::move(a));
    }
    return out;
}

WorkedExample parse_document(const json& doc) {
    if (!doc.is_object()) throw Error("a worked example must be a JSON object with X, W_Q, W_K and W_V.");
    check_known_keys(doc);
    WorkedExample ex;
    ex.title = read_string(doc, "title");
    ex.description = read_string(doc, "description");
    ex.source = read_string(doc, "source");
    ex.title_zh = read_string(doc, "title_zh");
    ex.description_zh = read_string(doc, "description_zh");
    ex.source_zh = read_string(doc, "source_zh");

    if (!doc.contains("X")) throw Error("X is missing: give the input as a list of token rows (n × d_model).");
    ex.x = read_matrix(doc["X"], "X");  // (n, D)
    const int n = static_cast<int>(ex.x.rows()), D = static_cast<int>(ex.x.cols());

    for (const char* key : {"W_Q", "W_K", "W_V"})
        if (!doc.contains(key))
            throw Error(std::string(key) + " is missing: give a " + std::to_string(D) +
                        " × (heads·d_k) matrix or one " + std::to_string(D) + " × d_k matrix per head.");
    const int H = read_heads(doc);
    const Matrix w_q = read_projection(doc["W_Q"], "W_Q", D, H, -1);  // (D, I)
    const int Dh = static_cast<int>(w_q.cols()) / H, I = H * Dh;
    const Matrix w_k = read_projection(doc["W_K"], "W_K", D, H, Dh);  // (D, I)
    const Matrix w_v = read_projection(doc["W_V"], "W_V", D, H, Dh);  // (D, I)

    Matrix w_o;  // (I, D_out)
    if (doc.contains("W_O")) {
        w_o = read_matrix(doc["W_O"], "W_O");
        if (w_o.rows() != I)
            throw Error("W_O has shape " + shape_str(w_o.rows(), w_o.cols()) + ", expected " +
                        std::to_string(I) + " rows (heads·d_k = " + std::to_string(H) + "·" +
                        std::to_string(Dh) + ") and any number of columns.");
    } else {
        w_o = Matrix::Identity(I, I);  // no output projection: out = concat
    }

    if (doc.contains("tokens")) {
        const json& t = doc["tokens"];
        if (!t.is_array())
            throw Error("tokens must be a list of strings, but it is " + describe_value(t) + ".");
        if (static_cast<int>(t.size()) != n)
            throw Error("tokens has " + std::to_string(t.size()) + " labels, but X has " +
                        std::to_string(n) + " rows.");
        for (size_t i = 0; i < t.size(); ++i) {
            if (!t[i].is_string())
                throw Error("tokens entry " + std::to_string(i + 1) + " is " + describe_value(t[i]) +
                            ", not a string.");
            ex.tokens.push_back(t[i].get<std::string>());
        }
    } else {
        for (int i = 0; i < n; ++i) {
            std::string label = "x";  // (GCC 12 warns falsely on "x" + std::to_string)
            label += std::to_string(i + 1);
            ex.tokens.push_back(label);
        }
    }

    if (doc.contains("mask")) {
        const json& m = doc["mask"];
        if (m == "causal") ex.causal = true;
        else if (m != "none")
            throw Error("mask must be \"none\" or \"causal\", but it is " + describe_value(m) + ".");
    }

    // PyTorch layout: W_in (3I, D) = [W_Qᵀ; W_Kᵀ; W_Vᵀ], W_out (D_out, I) = W_Oᵀ, zero biases.
    AttentionWeights& w = ex.weights;
    w.heads = H;
    w.in_proj_weight.resize(3 * I, D);
    w.in_proj_weight.topRows(I) = w_q.transpose();
    w.in_proj_weight.middleRows(I, I) = w_k.transpose();
    w.in_proj_weight.bottomRows(I) = w_v.transpose();
    w.in_proj_bias = Vector::Zero(3 * I);
    w.out_proj_weight = w_o.transpose();
    w.out_proj_bias = Vector::Zero(w_o.cols());
    ex.article = read_article(doc, H);
    return ex;
}

// Shortest decimal that reads back as the same float, so 0.1f is written as 0.1.
double tidy(float v) {
    char buf[32];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);
    double d = 0;
    std::from_chars(buf, res.ptr, d);
    return d;
}

json matrix_to_json(const Matrix& m) {
    json rows = json::array();
    for (Eigen::Index r = 0; r < m.rows(); ++r) {
        json row = json::array();
        for (Eigen::Index c = 0; c < m.cols(); ++c) row.push_back(tidy(m(r, c)));
        rows.push_back(std::move(row));
    }
    return rows;
}

// W (D, I) textbook, written per head when there is more than one head.
json projection_to_json(const Matrix& w_textbook, int heads) {
    if (heads == 1) return matrix_to_json(w_textbook);
    const int dk = static_cast<int>(w_textbook.cols()) / heads;
    json list = json::array();
    for (int h = 0; h < heads; ++h) list.push_back(matrix_to_json(w_textbook.middleCols(h * dk, dk)));
    return list;
}

}  // namespace

WorkedExample parse_worked_example(const std::string& json_text, const std::string& origin) {
    const json doc = parse_json_text(json_text, origin);
    try {
        return parse_document(doc);
    } catch (const Error& e) {
        throw Error(origin + ": " + e.what());
    }
}

WorkedExample load_worked_example(const std::string& path) {
    return parse_worked_example(read_file(path), path);
}

const std::vector<std::string>& article_steps() {
    static const std::vector<std::string> steps{"Q",      "K",       "V",    "scores", "scaled",
                                                "weights", "head", "concat", "output"};
    return steps;
}

namespace {

// The trace's matrix for an article step of head h (AttentionSteps, core/model/trace.h).
const Matrix& step_matrix(const AttentionSteps& s, const std::string& step, int h) {
    const auto at = [&](const std::vector<Matrix>& per_head) -> const Matrix& {
        if (h < 0 || h >= static_cast<int>(per_head.size()))
            throw Error("article " + step + " of head " + std::to_string(h) + ": the trace has " +
                        std::to_string(per_head.size()) + " heads");
        return per_head[static_cast<std::size_t>(h)];
    };
    if (step == "Q") return at(s.q_heads);
    if (step == "K") return at(s.k_heads);
    if (step == "V") return at(s.v_heads);
    if (step == "scores") return at(s.raw_scores);
    if (step == "scaled") return at(s.scaled_scores);
    if (step == "weights") return at(s.weights);
    if (step == "head") return at(s.head_outputs);
    if (step == "concat") return s.concat;
    return s.output;
}

}  // namespace

std::vector<ArticleCell> compare_with_article(const WorkedExample& example, const Trace& trace) {
    std::vector<ArticleCell> cells;
    if (example.article.empty()) return cells;
    if (!trace.steps) throw Error("the trace of the worked example has no steps to compare with the article");
    for (const ArticleValues& a : example.article) {
        const Matrix& ours = step_matrix(*trace.steps, a.step, a.head);
        if (ours.rows() != a.printed.rows() || ours.cols() != a.printed.cols())
            throw Error("article " + a.step + " of head " + std::to_string(a.head) + " is " +
                        shape_str(a.printed.rows(), a.printed.cols()) + ", but the step is " +
                        shape_str(ours.rows(), ours.cols()));
        for (Eigen::Index i = 0; i < ours.rows(); ++i)
            for (Eigen::Index j = 0; j < ours.cols(); ++j) {
                ArticleCell c{a.step, a.head, static_cast<int>(i), static_cast<int>(j), ours(i, j), a.printed(i, j)};
                c.agrees = std::fabs(c.ours - c.printed) <= 0.001 + 0.0005 * std::fabs(c.printed);
                cells.push_back(c);
            }
    }
    return cells;
}

std::string worked_example_to_json(const WorkedExample& example) {
    const AttentionWeights& w = example.weights;
    const int I = w.inner();
    json doc = json::object();
    if (!example.title.empty()) doc["title"] = example.title;
    if (!example.description.empty()) doc["description"] = example.description;
    if (!example.source.empty()) doc["source"] = example.source;
    if (!example.title_zh.empty()) doc["title_zh"] = example.title_zh;
    if (!example.description_zh.empty()) doc["description_zh"] = example.description_zh;
    if (!example.source_zh.empty()) doc["source_zh"] = example.source_zh;
    doc["tokens"] = example.tokens;
    doc["X"] = matrix_to_json(example.x);
    doc["heads"] = w.heads;
    doc["W_Q"] = projection_to_json(w.in_proj_weight.topRows(I).transpose(), w.heads);
    doc["W_K"] = projection_to_json(w.in_proj_weight.middleRows(I, I).transpose(), w.heads);
    doc["W_V"] = projection_to_json(w.in_proj_weight.bottomRows(I).transpose(), w.heads);
    const bool identity_out = w.out_proj_weight.rows() == I && w.out_proj_weight.cols() == I &&
                              w.out_proj_weight == Matrix::Identity(I, I);
    if (!identity_out) doc["W_O"] = matrix_to_json(w.out_proj_weight.transpose());
    doc["mask"] = example.causal ? "causal" : "none";
    if (!example.article.empty()) {
        json article = json::array();
        for (const ArticleValues& a : example.article)
            article.push_back({{"step", a.step}, {"head", a.head}, {"values", matrix_to_json(a.printed)}});
        doc["article"] = article;
    }
    return doc.dump(2);
}

Trace WorkedExample::run() const {
    // The example as a model of one attention-only layer: out = MHA(X), run by the one
    // forward with every step of its attention captured.
    const int T = static_cast<int>(x.rows());
    ModelConfig c;
    c.arch = Arch::EncoderOnly;
    c.attention_only = true;
    c.d_model = static_cast<int>(x.cols());
    c.heads = weights.heads;
    c.kv_heads = weights.kv_heads;
    c.head_dim = weights.d_h();  // not d_model / heads: W_Q may project to fewer columns
    c.layers = 1;
    c.pe = PosEncoding::None;
    c.mask = causal ? MaskKind::Causal : MaskKind::None;
    c.max_len = std::max(c.max_len, T);
    c.vocab = T + 1;  // no vocabulary: the ids are the positions 1…T (0 means padding)
    ModelWeights w;
    w.layers.resize(1);
    w.layers[0].self_attn = weights;
    ForwardInput in;
    for (int i = 0; i < T; ++i) in.ids.push_back(i + 1);
    in.tokens = tokens;
    in.embeddings = x;  // X itself enters the layer
    TraceOptions options;
    options.scores = true;
    options.detail_layer = 0;
    Trace trace = run_forward(c, w, in, options);
    trace.model_name = title.empty() ? "worked example" : title;
    return trace;
}

}  // namespace hs
