#pragma once
// Head similarity: Jensen–Shannon divergence between two heads' maps, row by row,
//   JSD(P, Q) = ½ KL(P ‖ M) + ½ KL(Q ‖ M),  M = ½ (P + Q),  natural log (0 ≤ JSD ≤ ln 2),
// averaged over the query rows that are non-empty in both maps. N = L·H heads, index
// n = layer·H + head. √JSD is a metric (the Jensen–Shannon distance), which is what the
// classical MDS layout embeds.
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "core/model/trace.h"

namespace hs {

// Row-averaged JSD of two maps of the same shape (T, S). Throws hs::Error on a shape
// mismatch. Rows empty in either map are skipped; 0 if no row is left.
double head_jsd(const Matrix& a, const Matrix& b);

// (N, N) symmetric matrix of head_jsd over the main stack's self-attention heads.
Eigen::MatrixXd jsd_matrix(const Trace& trace);
// The same over any list of maps (all the same shape).
Eigen::MatrixXd jsd_matrix(const std::vector<const Matrix*>& maps);

struct HeadPair {
    int a = 0, b = 0;  // head indices (layer·H + head), a < b
    double jsd = 0;
};
// The `k` pairs with the smallest JSD (most redundant), smallest first.
std::vector<HeadPair> most_redundant_pairs(const Eigen::MatrixXd& jsd, int k);

// Classical (Torgerson) MDS of the distances d_ab = √JSD_ab into 2-D:
//   B = −½ J D² J, J = I − 11ᵀ/N;  coords = top-2 eigenvectors of B · √λ  (λ < 0 → 0).
// Returns (N, 2). Uses Eigen::SelfAdjointEigenSolver.
Eigen::MatrixXd mds_layout(const Eigen::MatrixXd& jsd);

}  // namespace hs
