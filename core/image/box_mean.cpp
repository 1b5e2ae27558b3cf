#include "core/image/box_mean.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace hs {

namespace {

// A block holding −∞ (masked scores): the mean of its finite cells, so a zoomed-out causal
// map keeps its diagonal's scores; −∞ when every cell is masked (NaN cells are skipped too).
template <typename Block>
float finite_mean(const Block& b) {
    double sum = 0.0;
    int n = 0;
    for (Eigen::Index r = 0; r < b.rows(); ++r)
        for (Eigen::Index c = 0; c < b.cols(); ++c)
            if (std::isfinite(b(r, c))) sum += b(r, c), ++n;
    return n ? static_cast<float>(sum / n) : -std::numeric_limits<float>::infinity();
}

}  // namespace

Matrix box_mean(const Matrix& m, int out_rows, int out_cols) {
    const long long R = m.rows(), C = m.cols();
    Matrix out = Matrix::Zero(out_rows, out_cols);
    // Column j of the output sums input columns [c0[j], c0[j+1]).
    std::vector<int> c0(static_cast<std::size_t>(out_cols) + 1);
    for (int j = 0; j <= out_cols; ++j) c0[static_cast<std::size_t>(j)] = static_cast<int>(j * C / out_cols);
    for (int i = 0; i < out_rows; ++i) {
        const int r0 = static_cast<int>(i * R / out_rows), r1 = static_cast<int>((i + 1) * R / out_rows);
        // Row sums over [r0, r1) first (contiguous, vectorised), then column blocks.
        const Eigen::RowVectorXf rows = m.middleRows(r0, r1 - r0).colwise().sum();
        for (int j = 0; j < out_cols; ++j) {
            const int a = c0[static_cast<std::size_t>(j)], b = c0[static_cast<std::size_t>(j) + 1];
            out(i, j) = rows.segment(a, b - a).sum() / static_cast<float>((r1 - r0) * (b - a));
            if (std::isinf(out(i, j))) out(i, j) = finite_mean(m.block(r0, a, r1 - r0, b - a));
        }
    }
    return out;
}

Matrix mip_level_below(const Matrix& m) {
    const Eigen::Index R = m.rows(), C = m.cols();
    if (R < 2 || C < 2 || R % 2 != 0 || C % 2 != 0)
        return box_mean(m, std::max<int>(1, static_cast<int>(R / 2)), std::max<int>(1, static_cast<int>(C / 2)));
    // Even sides: out(i, j) = ¼ (m(2i, 2j) + m(2i, 2j+1) + m(2i+1, 2j) + m(2i+1, 2j+1)),
    // a row pair at a time (box_mean's cells, summed in another order, without its
    // per-cell block expressions).
    Matrix out(R / 2, C / 2);
    for (Eigen::Index i = 0; i < R / 2; ++i) {
        const float* a = m.data() + 2 * i * C;
        const float* b = a + C;
        float* o = out.data() + i * (C / 2);
        for (Eigen::Index j = 0; j < C / 2; ++j) {
            o[j] = ((a[2 * j] + a[2 * j + 1]) + (b[2 * j] + b[2 * j + 1])) * 0.25f;
            if (std::isinf(o[j])) o[j] = finite_mean(m.block(2 * i, 2 * j, 2, 2));  // masked cells in the block
        }
    }
    return out;
}

std::vector<Matrix> mip_chain(const Matrix& m) {
    std::vector<Matrix> levels;
    for (const Matrix* above = &m; above->rows() > 1 || above->cols() > 1; above = &levels.back())
        levels.push_back(mip_level_below(*above));
    return levels;
}

int sampled_mip_level(float texels_per_pixel, int levels) {
    if (levels <= 0 || !(texels_per_pixel > std::sqrt(2.0f))) return 0;
    return std::min(levels, static_cast<int>(std::ceil(std::log2(texels_per_pixel) + 0.5f)) - 1);
}

}  // namespace hs
