#pragma once
// Per-row normalisations, vectorised at the SIMD level in use (core/kernels/simd.h). Row
// x: (n) → y: (n); y may equal x. A portable build ran these at SSE2 width, on the serial
// path between the parallel GEMMs (the live-edit forward's second thread spun meanwhile).
namespace hs::kernels {

// LayerNorm: y = (x − μ) / √(σ² + eps) · γ + β, μ and σ² (biased, as PyTorch) over the row.
// beta may be null (no bias).
void layer_norm_row(const float* x, float* y, const float* gamma, const float* beta, int n, float eps);
// RMSNorm: y = x / √(mean(x²) + eps) · γ.
void rms_norm_row(const float* x, float* y, const float* gamma, int n, float eps);

}  // namespace hs::kernels
