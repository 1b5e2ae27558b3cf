// An 8 × 8 block of floats transposed in 256-bit registers, for the kernels compiled once
// per SIMD level (gemm_kernels.cpp, stored_rows.cpp). Included inside their
// hs::kernels::HWY_NAMESPACE, once per target (Highway's -inl.h convention: the guard
// flips per target).
#if defined(HS_KERNELS_TRANSPOSE_8X8_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef HS_KERNELS_TRANSPOSE_8X8_INL_H_
#undef HS_KERNELS_TRANSPOSE_8X8_INL_H_
#else
#define HS_KERNELS_TRANSPOSE_8X8_INL_H_
#endif

#if HWY_TARGET != HWY_SCALAR && HWY_MAX_BYTES >= 32
// Rows a…h in r[0…7] (8 floats each) → their columns stored at bt + j·ldbt:
//   t0 = a0 b0 a1 b1 | a4 b4 a5 b5,  t1 = a2 b2 a3 b3 | a6 b6 a7 b7   (InterleaveLower/Upper
//   of a and b, each 128-bit half apart), t2, t3 from c and d, t4…t7 from e…h;
//   u0 = a0 b0 c0 d0 | a4 b4 c4 d4   (the low 64 bits of each half of t0 and t2), u1 = columns
//   1 | 5, u2 = 2 | 6, u3 = 3 | 7; u4…u7 the same for rows e…h;
//   column j = the low halves of u_j and u_{4+j}, column j + 4 their high halves (j < 4).
// 24 shuffles and 8 stores per 64 floats.
using F8 = hn::Full256<float>;
HWY_INLINE void store_transposed_8x8(const hn::Vec<F8> (&r)[8], float* bt, long ldbt) {
    const F8 d;
    const hn::Repartition<std::uint64_t, F8> d64;
    hn::Vec<F8> t[8], u[8];
    for (int i = 0; i < 8; i += 2) {
        t[i] = hn::InterleaveLower(d, r[i], r[i + 1]);
        t[i + 1] = hn::InterleaveUpper(d, r[i], r[i + 1]);
    }
    for (int h = 0; h < 8; h += 4) {  // rows a–d, then e–h
        const auto lo = [&](int x, int y) {
            return hn::BitCast(d, hn::InterleaveLower(d64, hn::BitCast(d64, t[h + x]), hn::BitCast(d64, t[h + y])));
        };
        const auto hi = [&](int x, int y) {
            return hn::BitCast(d, hn::InterleaveUpper(d64, hn::BitCast(d64, t[h + x]), hn::BitCast(d64, t[h + y])));
        };
        u[h] = lo(0, 2);
        u[h + 1] = hi(0, 2);
        u[h + 2] = lo(1, 3);
        u[h + 3] = hi(1, 3);
    }
    for (int j = 0; j < 4; ++j) {
        hn::StoreU(hn::ConcatLowerLower(d, u[4 + j], u[j]), d, bt + j * ldbt);
        hn::StoreU(hn::ConcatUpperUpper(d, u[4 + j], u[j]), d, bt + (j + 4) * ldbt);
    }
}
#endif

#endif  // HS_KERNELS_TRANSPOSE_8X8_INL_H_
