#include "core/kernels/gemm.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <vector>

#include "core/kernels/bus_error_guard.h"
#include "core/kernels/dispatched.h"

namespace hs::gemm {

void nn(int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
        const float* bias, float* c, int ldc) {
    kernels::dispatched::nn_block(m, n, k, alpha, a, lda, b, ldb, bias, c, ldc, false);
}

void nn_accumulate(int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c, int ldc) {
    kernels::dispatched::nn_block(m, n, k, 1.0f, a, lda, b, ldb, nullptr, c, ldc, true);
}

PackedWeights pack(const float* w, int n, int k, int ldw) {
    PackedWeights p;
    p.n = n;
    p.k = k;
    p.data.resize(static_cast<Eigen::Index>(p.panels()) * k * kPanel);  // every float written below
    for (int q = 0; q < p.panels(); ++q) pack_panel(w, n, k, ldw, q, p.panel(q));
    return p;
}

namespace {

// A panel (k, 64) whose weight has only `rows` < 64 rows left: the missing outputs read
// as zero weights.
void zero_missing_outputs(int rows, int k, float* panel) {
    for (int i = 0; i < k; ++i)
        std::fill(panel + static_cast<long>(i) * kPanel + rows, panel + (static_cast<long>(i) + 1) * kPanel, 0.0f);
}

}  // namespace

void pack_panel(const float* w, int n, int k, int ldw, int q, float* out) {
    const int rows = std::min(kPanel, n - q * kPanel);
    transpose(rows, k, w + static_cast<long>(q) * kPanel * ldw, ldw, out, kPanel);
    if (rows < kPanel) zero_missing_outputs(rows, k, out);
}

namespace {

// Blocks of kKBlock inputs: a block of a (≤ 256 rows × kKBlock, in L2) meets each panel's
// kKBlock × 64 block once, so with two threads streaming different panels each weight is
// read from memory once per call (not once per row block); later blocks add onto c.
constexpr int kKBlock = 256, kRowBlock = 256;

// A panel's block of inputs [k0, k0 + kn): kn × 64 floats, contiguous. Also what a
// product requests into L2 for the call after it (nn_block's `next`): such a block, or a
// run of stored bytes counted in 4-byte units (stored_panel_ahead), never read as floats.
struct PanelBlock {
    const float* data = nullptr;
    long floats = 0;
};

// c[i : i + rows, col : col + cols] (+)= a[i : i + rows, k0 : k0 + kn] · panel rows
// [k0, k0 + kn); the bias is added with the first block of inputs. `next` is the block
// the following call reads (the kernel requests it into L2 meanwhile).
void panel_block(int i, int rows, const float* a, int lda, const float* panel, int k0, int kn, int col,
                 int cols, const float* bias, float* c, int ldc, PanelBlock next) {
    kernels::dispatched::nn_block(rows, cols, kn, 1.0f, a + static_cast<long>(i) * lda + k0, lda,
                                  panel + static_cast<long>(k0) * kPanel, kPanel, bias && k0 == 0 ? bias + col : nullptr,
                                  c + static_cast<long>(i) * ldc + col, ldc, k0 > 0, false, next.data, next.floats);
}

// c[:, 64·panel0 : 64·(panel0 + panels)] (+ bias) = a (m, k) · the panels, panel q's
// (k, 64) block at panel_at(q): the loop of nn_packed (k blocks, then row blocks, then
// panels), so each element sums its k blocks in the same order whoever packed the panels.
// Each call requests into L2 the block the following call reads; with `ahead` (one panel,
// laid out just before, so in cache already), a share of `ahead` instead until it is
// all requested: what the caller reads next (the next panel's stored rows).
template <typename PanelAt>
void multiply_panels(int m, const float* a, int lda, int n, int k, const PanelAt& panel_at, int panel0,
                     int panels, const float* bias, float* c, int ldc, PanelBlock ahead = {}) {
    const auto block = [&](int q, int k0) {
        return PanelBlock{panel_at(q) + static_cast<long>(k0) * kPanel,
                          static_cast<long>(std::min(kKBlock, k - k0)) * kPanel};
    };
    const long calls = static_cast<long>((k + kKBlock - 1) / kKBlock) * ((m + kRowBlock - 1) / kRowBlock) * panels;
    const long share = calls > 0 ? (ahead.floats + calls - 1) / calls : 0;  // floats of `ahead` per call
    for (int k0 = 0; k0 < k; k0 += kKBlock) {
        const int kn = std::min(kKBlock, k - k0);
        for (int i = 0; i < m; i += kRowBlock)
            for (int q = panel0; q < panel0 + panels; ++q) {
                // The block read after this one: the next panel's, else the first panel's for the
                // next rows, else for the next k block.
                const bool last_panel = q + 1 == panel0 + panels;
                PanelBlock next = !last_panel         ? block(q + 1, k0)
                                  : i + kRowBlock < m ? block(panel0, k0)
                                  : k0 + kKBlock < k  ? block(panel0, k0 + kKBlock)
                                                      : PanelBlock{};
                if (ahead.floats > 0) {
                    next = {ahead.data, std::min(share, ahead.floats)};
                    ahead = {ahead.data + next.floats, ahead.floats - next.floats};
                }
                panel_block(i, std::min(kRowBlock, m - i), a, lda, panel_at(q), k0, kn, q * kPanel,
                            std::min(kPanel, n - q * kPanel), bias, c, ldc, next);
            }
    }
    assert(ahead.floats == 0 || calls == 0);  // every line of `ahead` requested
}

// c[:, 64·panel0 : 64·(panel0 + panels)] = a (m, k) · Wᵀ (+ bias) with W read as it is,
// through the transposed product: per panel q, W_q = W[64q : 64q + 64, :] (rows × k),
//   c_qᵀ (rows, m) = W_q · aᵀ (k, m)      W's elements broadcast, aᵀ's rows as vectors
// then c[:, 64q …] = (c_qᵀ)ᵀ. The loop of nn_packed turned around: blocks of kKBlock
// inputs (a block of aᵀ stays in L2), the bias after the first, so each element sums the
// same products (fma(x, w, acc) = fma(w, x, acc)) in the same order: the same floats.
void nn_transposed(int m, const float* a, int lda, const float* w, int n, int k, int ldw, int panel0, int panels,
                   const float* bias, float* c, int ldc) {
    thread_local Eigen::VectorXf a_t, c_t;  // aᵀ (k, m) and c_qᵀ (64, m), grow-only
    if (a_t.size() < static_cast<long>(k) * m) a_t.resize(static_cast<long>(k) * m);
    if (c_t.size() < static_cast<long>(kPanel) * m) c_t.resize(static_cast<long>(kPanel) * m);
    transpose(m, k, a, lda, a_t.data(), m);
    for (int q = panel0; q < panel0 + panels; ++q) {
        const int rows = std::min(kPanel, n - q * kPanel);
        const float* w_q = w + static_cast<long>(q) * kPanel * ldw;
        for (int k0 = 0; k0 < k; k0 += kKBlock) {
            kernels::dispatched::nn_block(rows, m, std::min(kKBlock, k - k0), 1.0f, w_q + k0, ldw,
                                          a_t.data() + static_cast<long>(k0) * m, m, nullptr, c_t.data(), m, k0 > 0,
                                          /*stream_a=*/true);
            if (k0 == 0 && bias)  // c_qᵀ row j += bias_j, where nn_packed's first block adds it
                for (int j = 0; j < rows; ++j) c_t.segment(static_cast<long>(j) * m, m).array() += bias[q * kPanel + j];
        }
        transpose(rows, m, c_t.data(), m, c + q * kPanel, ldc);
    }
}

// This thread's buffer for panel rows read with pread: grow-only, shared by every product.
std::vector<std::uint8_t>& panel_buffer() {
    thread_local std::vector<std::uint8_t> bytes;
    return bytes;
}

// use(panel) on panel q's rows of W (64, or fewer in the last) in memory. Rows left in a
// file are read where they lie in its map; should the file have shrunk under the map (a
// SIGBUS, which stops `use` part way), they are read again with pread into this thread's
// buffer, which throws naming the tensor, and `use` runs again from the start: it must
// write its outputs whole each time.
template <typename Use>
void with_panel(const StoredMatrix& w, int q, const Use& use) {
    std::vector<std::uint8_t>& panel_bytes = panel_buffer();
    const int r0 = q * kPanel, rows = std::min(kPanel, w.rows - r0);
    const StoredMatrix panel = w.rows_in_memory(r0, rows, panel_bytes, /*use_map=*/true);
    if (!panel.mapped) {
        use(panel);
        return;
    }
    // The panel's bytes requested into L2 first, in order (what pread's copy did besides
    // copying): the conversion then reads 8 rows at a time from L2, not from memory.
    for (const StoredRows& p : panel.parts) {
        const auto* bytes = reinterpret_cast<const char*>(p.bytes);
        for (long i = 0; i < static_cast<long>(p.rows) * p.row_bytes; i += 64) __builtin_prefetch(bytes + i, 0, 2);
    }
    if (!kernels::run_unless_bus_error([&] { use(panel); })) {
        use(w.rows_in_memory(r0, rows, panel_bytes, /*use_map=*/false));
    }
}

// Panel q of a stored weight as pack_panel lays it out: out (k, 64) = Wᵀ[:, 64q : 64q + 64].
void pack_stored_panel(const StoredMatrix& w, int q, float* out) {
    with_panel(w, q, [&](const StoredMatrix& panel) { panel.convert_transposed(out, kPanel); });
    const int rows = std::min(kPanel, w.rows - q * kPanel);
    if (rows < kPanel) zero_missing_outputs(rows, w.cols, out);
}

// c[:, 64·panel0 : 64·(panel0 + panels)] (+ bias) = a (m, k) · W (n, k)ᵀ, W's panels laid
// out by pack(q, out) `group` at a time — into `keep`'s storage, or else this thread's
// buffer — and each group then multiplied (multiply_panels). With one panel per group (up
// to 256 rows of a), ahead(q) (a PanelBlock: panel q's stored rows) is requested for the
// next panel during this one's product; a group of several is larger than L2, so the next
// group's rows would be gone before their turn.
template <typename Pack, typename Ahead>
void pack_and_multiply(int m, const float* a, int lda, int n, int k, int panel0, int panels, int group,
                       const Pack& pack, const Ahead& ahead, PackedWeights* keep, const float* bias, float* c,
                       int ldc) {
    thread_local Eigen::VectorXf buffer;  // 64-byte aligned, grow-only
    const long panel_floats = static_cast<long>(k) * kPanel;
    group = std::max(1, std::min(group, panels));
    if (!keep && buffer.size() < group * panel_floats) buffer.resize(group * panel_floats);
    for (int g0 = panel0; g0 < panel0 + panels; g0 += group) {
        const int count = std::min(group, panel0 + panels - g0);
        const auto panel_at = [&](int q) { return keep ? keep->panel(q) : buffer.data() + (q - g0) * panel_floats; };
        for (int q = g0; q < g0 + count; ++q) pack(q, panel_at(q));
        const PanelBlock next = group == 1 && g0 + 1 < panel0 + panels ? ahead(g0 + 1) : PanelBlock{};
        multiply_panels(m, a, lda, n, k, panel_at, g0, count, bias, c, ldc, next);
    }
}

// Panel q of a stored weight where its rows lie in memory or in the file's map, as the
// cache lines multiply_panels requests (from the line holding its first byte; floats only
// as a unit of 4 bytes, never read); {} when they are read with pread.
PanelBlock stored_panel_ahead(const StoredMatrix& w, int q) {
    const StoredMatrix::BytesInPlace bytes = w.bytes_in_place(q * kPanel, std::min(kPanel, w.rows - q * kPanel));
    if (!bytes.data) return {};
    const auto at = reinterpret_cast<std::uintptr_t>(bytes.data), line = at & ~std::uintptr_t{63};
    const long floats = static_cast<long>((at - line + bytes.size + 3) / 4);
    return {reinterpret_cast<const float*>(line), floats};
}

}  // namespace

void nn_packed(int m, const float* a, int lda, const PackedWeights& w, int panel0, int panels,
               const float* bias, float* c, int ldc) {
    multiply_panels(m, a, lda, w.n, w.k, [&](int q) { return w.panel(q); }, panel0, panels, bias, c, ldc);
}

void nn_packing(int m, const float* a, int lda, const float* w, int n, int k, int ldw, int panel0,
                int panels, const float* bias, float* c, int ldc, PackedWeights* keep) {
    if (!keep && m <= kRowBlock && m % kPanel == 0) {  // one block of rows, whole tiles
        nn_transposed(m, a, lda, w, n, k, ldw, panel0, panels, bias, c, ldc);
        return;
    }
    // One block of rows: each panel packed right before its product, which then reads it
    // from L2 (into the cache's storage, or, for a row count that would leave the
    // transposed product's tiles part empty (0.45-0.6x its speed at 100 or 200 rows), into
    // this thread's buffer). Longer inputs: every panel of the range first, then
    // nn_packed's loop, in which a block of a (in L2) meets every panel once instead of a
    // being read again per panel.
    pack_and_multiply(m, a, lda, n, k, panel0, panels, m <= kRowBlock ? 1 : panels,
                      [&](int q, float* out) { pack_panel(w, n, k, ldw, q, out); },
                      [](int) { return PanelBlock{}; }, keep, bias, c, ldc);
}

void nn_stored(int m, const float* a, int lda, const StoredMatrix& w, int panel0, int panels, const float* bias,
               float* c, int ldc) {
    // Up to one block of rows: a panel at a time, read from L2 by its product. More rows:
    // groups of panels (4 MiB), so that a block of a meets each panel of a group once.
    constexpr long kGroupBytes = 4L << 20;
    const long panel_bytes = static_cast<long>(w.cols) * kPanel * 4;
    const int group = m <= kRowBlock ? 1 : static_cast<int>(std::max(1L, kGroupBytes / std::max(panel_bytes, 1L)));
    pack_and_multiply(m, a, lda, w.rows, w.cols, panel0, panels, group,
                      [&](int q, float* out) { pack_stored_panel(w, q, out); },
                      [&](int q) { return stored_panel_ahead(w, q); }, nullptr, bias, c, ldc);
}

void nt_stored(int m, const float* a, int lda, const StoredMatrix& w, int panel0, int panels, const float* bias,
               float* c, int ldc) {
    assert(m <= kDotRows);
    constexpr int kRows = 16;
    thread_local Eigen::VectorXf rows_f32;  // (kRows, k), grow-only
    if (rows_f32.size() < static_cast<long>(kRows) * w.cols) rows_f32.resize(static_cast<long>(kRows) * w.cols);
    for (int q = panel0; q < panel0 + panels; ++q)
        with_panel(w, q, [&](const StoredMatrix& panel) {
            for (int r0 = 0; r0 < panel.rows; r0 += kRows) {
                const int n = std::min(kRows, panel.rows - r0), col = q * kPanel + r0;
                panel.convert(r0, n, 0, w.cols, rows_f32.data(), w.cols);
                if (bias)  // c = bias, then += the dots: bias + dot, as nt_dots on the converted W plus bias
                    for (int i = 0; i < m; ++i) std::copy_n(bias + col, n, c + static_cast<long>(i) * ldc + col);
                nt_dots(m, n, w.cols, a, lda, rows_f32.data(), w.cols, c + col, ldc, /*accumulate=*/bias != nullptr);
            }
        });
}

void nt_dots(int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c, int ldc,
             bool accumulate) {
    assert(m <= kDotRows);
    kernels::dispatched::nt_dots(m, n, k, a, lda, b, ldb, c, ldc, accumulate);
}

void transpose(int n, int k, const float* b, int ldb, float* bt, int ldbt) {
    kernels::dispatched::transpose(n, k, b, ldb, bt, ldbt);
}

}  // namespace hs::gemm
