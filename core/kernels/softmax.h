#pragma once
// The softmax of one row of attention scores (and the soft-cap before it), vectorised at the SIMD level in use
// (core/kernels/simd.h):
//   a_j = exp(s_j − max_k s_k) / Σ_k exp(s_k − max_k s_k)   over the first n_allowed keys
// A masked key (s_j = −∞) gets exactly 0; keys from n_allowed on (the causal future) are
// set to 0; a row whose allowed keys are all −∞ becomes zeros (no attention, not NaN).
namespace hs::kernels {

void softmax_row(float* row, int n_allowed, int n);

// Soft-capping of n scores in place: s ← cap · tanh(s / cap), cap > 0 (Gemma 2's attention
// and final logits; every score then lies within ±cap). Finite scores only: −∞ would
// become −cap, so the mask comes after the cap.
void softcap_row(float* row, int n, float cap);

}  // namespace hs::kernels
