#include "core/analysis/head_similarity.h"

#include <algorithm>
#include <cmath>

#include <Eigen/Eigenvalues>

#include "core/error.h"

namespace hs {

namespace {

// KL term p ln(p / m) with 0 ln 0 = 0 (m ≥ p/2 > 0 whenever p > 0).
double kl_term(double p, double m) { return p > 0 ? p * std::log(p / m) : 0.0; }

}  // namespace

double head_jsd(const Matrix& a, const Matrix& b) {
    if (a.rows() != b.rows() || a.cols() != b.cols())
        throw Error("cannot compare attention maps of different shapes (" + std::to_string(a.rows()) +
                    "×" + std::to_string(a.cols()) + " and " + std::to_string(b.rows()) + "×" +
                    std::to_string(b.cols()) + ")");
    double total = 0;
    int rows = 0;
    for (Eigen::Index i = 0; i < a.rows(); ++i) {
        const double sa = a.row(i).cast<double>().sum(), sb = b.row(i).cast<double>().sum();
        if (sa <= 0 || sb <= 0) continue;
        double jsd = 0;
        for (Eigen::Index j = 0; j < a.cols(); ++j) {
            const double p = a(i, j) / sa, q = b(i, j) / sb, m = 0.5 * (p + q);
            jsd += 0.5 * kl_term(p, m) + 0.5 * kl_term(q, m);
        }
        total += std::max(jsd, 0.0);
        ++rows;
    }
    return rows > 0 ? total / rows : 0.0;
}

Eigen::MatrixXd jsd_matrix(const std::vector<const Matrix*>& maps) {
    const int N = static_cast<int>(maps.size());
    Eigen::MatrixXd d = Eigen::MatrixXd::Zero(N, N);
    for (int x = 0; x < N; ++x)
        for (int y = x + 1; y < N; ++y) d(x, y) = d(y, x) = head_jsd(*maps[x], *maps[y]);
    return d;
}

Eigen::MatrixXd jsd_matrix(const Trace& trace) {
    std::vector<const Matrix*> maps;
    for (const LayerTrace& layer : trace.main.layers)
        for (const Matrix& A : layer.self_attn.weights) maps.push_back(&A);
    return jsd_matrix(maps);
}

std::vector<HeadPair> most_redundant_pairs(const Eigen::MatrixXd& jsd, int k) {
    std::vector<HeadPair> pairs;
    for (int a = 0; a < jsd.rows(); ++a)
        for (int b = a + 1; b < jsd.cols(); ++b) pairs.push_back({a, b, jsd(a, b)});
    std::stable_sort(pairs.begin(), pairs.end(),
                     [](const HeadPair& x, const HeadPair& y) { return x.jsd < y.jsd; });
    if (k >= 0 && static_cast<std::size_t>(k) < pairs.size()) pairs.resize(k);
    return pairs;
}

Eigen::MatrixXd mds_layout(const Eigen::MatrixXd& jsd) {
    const Eigen::Index N = jsd.rows();
    Eigen::MatrixXd coords = Eigen::MatrixXd::Zero(N, 2);
    if (N < 2) return coords;
    // D² = JSD (d = √JSD); B = −½ J D² J with J = I − 11ᵀ/N (double centring)
    const Eigen::MatrixXd J =
        Eigen::MatrixXd::Identity(N, N) - Eigen::MatrixXd::Constant(N, N, 1.0 / static_cast<double>(N));
    const Eigen::MatrixXd B = -0.5 * J * jsd.cwiseMax(0.0) * J;
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(B);
    // eigenvalues ascending: the last two are the largest
    for (int c = 0; c < 2 && c < N; ++c) {
        const Eigen::Index k = N - 1 - c;
        const double lambda = std::max(eig.eigenvalues()(k), 0.0);
        Eigen::VectorXd v = eig.eigenvectors().col(k);
        // sign convention: the entry of largest magnitude is positive (stable layouts)
        Eigen::Index big = 0;
        v.cwiseAbs().maxCoeff(&big);
        if (v(big) < 0) v = -v;
        coords.col(c) = v * std::sqrt(lambda);
    }
    return coords;
}

}  // namespace hs
