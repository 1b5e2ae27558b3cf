#pragma once
// The feed-forward activations, in place over n contiguous floats, vectorised at the SIMD
// level in use (core/kernels/simd.h). Without them a portable build would run these at
// SSE2 width: the GPT-2-shaped forward spent 2.8 % of its time in GELU instead of 0.5 %.
namespace hs::kernels {

// GELU(x) = ½ x (1 + erf(x / √2)) (PyTorch's default "gelu"). erf from Abramowitz & Stegun
// 7.1.26: erf(z) = 1 − (a₁t + a₂t² + a₃t³ + a₄t⁴ + a₅t⁵) e^(−z²), t = 1 / (1 + p z),
// z ≥ 0, odd in z; |error| ≤ 1.5e−7.
void gelu_erf(float* x, long n);
// GELU(x) ≈ ½ x (1 + tanh(√(2/π) (x + 0.044715 x³))) (GPT-2's "gelu_new").
void gelu_tanh(float* x, long n);
// SiLU(x) = x / (1 + e^(−x)) (the gate of SwiGLU).
void silu(float* x, long n);

}  // namespace hs::kernels
