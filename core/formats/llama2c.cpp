#include "core/formats/llama2c.h"

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "core/io/state_dict.h"

namespace hs {

namespace {

struct Header {
    std::int32_t dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size, seq_len;
};

// Reads consecutive float32 arrays from the checkpoint.
class FloatReader {
public:
    FloatReader(std::ifstream& in, const std::string& path) : in_(in), path_(path) {}
    Matrix matrix(Eigen::Index rows, Eigen::Index cols, const char* what) {
        Matrix m(rows, cols);  // row-major (out, in), exactly as stored
        read(m.data(), m.size(), what);
        return m;
    }
    Vector vector(Eigen::Index n, const char* what) {
        Vector v(n);
        read(v.data(), v.size(), what);
        return v;
    }
    void skip(std::int64_t n_floats) { in_.seekg(n_floats * 4, std::ios::cur); }

private:
    void read(float* dst, Eigen::Index n, const char* what) {
        in_.read(reinterpret_cast<char*>(dst), static_cast<std::streamsize>(n) * 4);
        if (!in_) throw Error("llama2.c checkpoint '" + path_ + "': could not read " + what);
    }
    std::ifstream& in_;
    const std::string& path_;
};

}  // namespace

Model load_llama2c_model(const std::string& path) {
    std::error_code ec;
    const auto file_size = std::filesystem::file_size(path, ec);
    if (ec) throw Error("cannot open the llama2.c checkpoint '" + path + "': " + ec.message());
    const auto fail = [&](const std::string& what) {
        throw Error("llama2.c checkpoint '" + path + "': " + what);
    };
    if (file_size < sizeof(Header))
        fail("the file is " + std::to_string(file_size) + " bytes, shorter than the 28-byte header");
    std::ifstream in(path, std::ios::binary);
    if (!in) fail("cannot be opened for reading");
    Header h{};
    in.read(reinterpret_cast<char*>(&h), sizeof h);  // 7 little-endian int32

    const bool shared = h.vocab_size > 0;
    const std::int64_t D = h.dim, F = h.hidden_dim, L = h.n_layers, H = h.n_heads,
                       Hkv = h.n_kv_heads, V = shared ? h.vocab_size : -std::int64_t(h.vocab_size),
                       S = h.seq_len;
    const std::string dims = "dim " + std::to_string(D) + ", hidden_dim " + std::to_string(F) +
                             ", n_layers " + std::to_string(L) + ", n_heads " + std::to_string(H) +
                             ", n_kv_heads " + std::to_string(Hkv) + ", vocab_size " +
                             std::to_string(h.vocab_size) + ", seq_len " + std::to_string(S);
    constexpr std::int64_t kMax = 1 << 20;  // no real checkpoint comes near; guards overflow
    for (std::int64_t v : {D, F, L, H, Hkv, V, S})
        if (v < 1 || v > kMax) fail("the header (" + dims + ") has a value outside 1.." +
                                    std::to_string(kMax) + "; is this a llama2.c checkpoint?");
    if (D % H != 0) fail("dim " + std::to_string(D) + " is not divisible by " + std::to_string(H) +
                         " heads");
    if (H % Hkv != 0)
        fail(std::to_string(H) + " heads cannot share " + std::to_string(Hkv) +
             " key/value heads evenly");
    const std::int64_t Dh = D / H, kv_dim = Hkv * Dh;
    if (Dh % 2 != 0) fail("head size " + std::to_string(Dh) + " is odd; RoPE needs it even");

    // Expected size in floats, in file order.
    const std::int64_t n_floats = V * D + L * D + L * D * D + 2 * L * kv_dim * D + L * D * D +
                                  L * D + 3 * L * F * D + D + S * Dh + (shared ? 0 : V * D);
    const std::int64_t expected = static_cast<std::int64_t>(sizeof(Header)) + 4 * n_floats;
    if (static_cast<std::int64_t>(file_size) != expected)
        fail("the file is " + std::to_string(file_size) + " bytes but its header (" + dims +
             ") implies exactly " + std::to_string(expected) + " bytes" +
             (static_cast<std::int64_t>(file_size) < expected ? " (truncated download?)"
                                                              : " (not the legacy format?)"));

    ModelConfig c;
    c.family = "llama2.c";
    c.arch = Arch::DecoderOnly;
    c.mask = MaskKind::Causal;
    c.d_model = static_cast<int>(D);
    c.heads = static_cast<int>(H);
    c.kv_heads = Hkv == H ? 0 : static_cast<int>(Hkv);
    c.layers = static_cast<int>(L);
    c.d_ff = static_cast<int>(F);
    c.vocab = static_cast<int>(V);
    c.max_len = static_cast<int>(S);
    c.norm = NormPlacement::PreLN;
    c.norm_kind = NormKind::RMSNorm;
    c.norm_eps = 1e-5f;
    c.activation = Activation::SwiGLU;
    c.pe = PosEncoding::Rotary;
    c.rope_layout = RopeLayout::Interleaved;
    c.rope_theta = 10000.0f;
    c.qkv_bias = c.out_bias = c.mlp_bias = false;
    c.lm_head = shared ? LmHead::Tied : LmHead::Separate;

    ModelWeights w;
    FloatReader r(in, path);
    w.embed = r.matrix(V, D, "token_embedding");
    w.layers.resize(static_cast<std::size_t>(L));
    // Each array is stacked over layers: read layer by layer, array by array.
    std::vector<Matrix> wq(L), wk(L);
    for (auto& l : w.layers) l.norm1.weight = r.vector(D, "rms_att_weight");
    for (auto& m : wq) m = r.matrix(D, D, "wq");
    for (auto& m : wk) m = r.matrix(kv_dim, D, "wk");
    for (std::size_t il = 0; il < w.layers.size(); ++il) {  // in_proj = [wq; wk; wv]
        AttentionWeights& a = w.layers[il].self_attn;
        a.heads = c.heads;
        a.kv_heads = c.kv_heads;
        a.in_proj_weight.resize(D + 2 * kv_dim, D);
        a.in_proj_weight.topRows(D) = wq[il];
        a.in_proj_weight.middleRows(D, kv_dim) = wk[il];
        wq[il] = Matrix();
        wk[il] = Matrix();
    }
    for (auto& l : w.layers) l.self_attn.in_proj_weight.bottomRows(kv_dim) = r.matrix(kv_dim, D, "wv");
    for (auto& l : w.layers) l.self_attn.out_proj_weight = r.matrix(D, D, "wo");
    for (auto& l : w.layers) l.norm2.weight = r.vector(D, "rms_ffn_weight");
    for (auto& l : w.layers) l.ffn.gate_weight = r.matrix(F, D, "w1");     // gate: silu(w1 x)
    for (auto& l : w.layers) l.ffn.linear2_weight = r.matrix(D, F, "w2");  // down
    for (auto& l : w.layers) l.ffn.linear1_weight = r.matrix(F, D, "w3");  // up: ⊙ w3 x
    w.final_norm = LayerNormWeights{r.vector(D, "rms_final_weight"), Vector()};
    r.skip(S * Dh);  // freq_cis_real + freq_cis_imag: (S, Dh/2) each, recomputed instead
    if (!shared) w.lm_head = r.matrix(V, D, "wcls");
    require_finite_weights(c, w, "llama2.c checkpoint '" + path + "'");
    return Model(std::move(c), std::move(w), path);
}

std::string find_llama2c_tokenizer(const std::string& bin_path) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::path(bin_path).parent_path().empty() ? fs::path(".")
                                                                  : fs::path(bin_path).parent_path();
    std::error_code ec;
    if (fs::is_regular_file(dir / "tokenizer.bin", ec)) return (dir / "tokenizer.bin").string();
    std::vector<fs::path> found;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        if (entry.is_regular_file() && name.rfind("tok", 0) == 0 && entry.path().extension() == ".bin" &&
            entry.path() != fs::path(bin_path))
            found.push_back(entry.path());
    }
    if (found.size() == 1) return found[0].string();
    if (found.empty())
        throw Error("no tokenizer for the llama2.c checkpoint '" + bin_path +
                    "': put its tokenizer.bin (or tok512.bin, …) in " + dir.string());
    throw Error("several tokenizers next to '" + bin_path + "' (" + found[0].filename().string() +
                ", " + found[1].filename().string() +
                ", …): rename the right one to tokenizer.bin");
}

Llama2cCheckpoint load_llama2c(const std::string& bin_path, const std::string& tokenizer_path) {
    Model model = load_llama2c_model(bin_path);
    const std::string tok = tokenizer_path.empty() ? find_llama2c_tokenizer(bin_path) : tokenizer_path;
    auto tokenizer = std::make_unique<Llama2cTokenizer>(tok, model.config().vocab);
    return Llama2cCheckpoint{std::move(model), std::move(tokenizer)};
}

}  // namespace hs
