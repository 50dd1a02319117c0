//===- MixKernel.h - memory stream + L2 arrays, the family's shape -*- C++ -*-===//
//
// The level-overlap measurement: per element, M arrays streamed from memory
// (M = 0 or 1) and N arrays re-read from L2, summed by a balanced tree into
// four accumulators (4 doubles each), the code shape of
// examples/roofline/gen-family.py's mM-nL2-(m+n)F kernels. Included by
// Kernels.cpp (built with -mavx2 -mfma) and KernelsBase.cpp (baseline ISA);
// everything here has internal linkage, so the two builds never merge.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_ROOFLINE_MIXKERNEL_H
#define KEEL_ROOFLINE_MIXKERNEL_H

#include <cstddef>

namespace {

typedef double MixV4 __attribute__((vector_size(32)));

template <int Lo, int Hi>
inline MixV4 mixTree(const MixV4 *const *P, long J) {
  if constexpr (Hi - Lo == 1)
    return P[Lo][J];
  else
    return mixTree<Lo, (Lo + Hi) / 2>(P, J) + mixTree<(Lo + Hi) / 2, Hi>(P, J);
}

/// Rows [R0, R1): row R reads Mem + R * Len (when M = 1) and L2[0..N-1]
/// (Len doubles each, Len a multiple of 16, 32-byte aligned).
template <int M, int N>
double mixRows(const double *Mem, const double *const *L2, size_t Len,
               size_t R0, size_t R1) {
  static_assert(M + N >= 1 && M <= 1, "one memory stream at most");
  MixV4 S0 = {0, 0, 0, 0}, S1 = S0, S2 = S0, S3 = S0;
  for (size_t R = R0; R < R1; ++R) {
    const MixV4 *P[M + N];
    if constexpr (M == 1)
      P[0] = reinterpret_cast<const MixV4 *>(Mem + R * Len);
    for (int I = 0; I < N; ++I)
      P[M + I] = reinterpret_cast<const MixV4 *>(L2[I]);
    for (long J = 0; J < long(Len / 4); J += 4) {
      S0 += mixTree<0, M + N>(P, J);
      S1 += mixTree<0, M + N>(P, J + 1);
      S2 += mixTree<0, M + N>(P, J + 2);
      S3 += mixTree<0, M + N>(P, J + 3);
    }
  }
  MixV4 S = (S0 + S1) + (S2 + S3);
  return S[0] + S[1] + S[2] + S[3];
}

/// Runtime dispatch over the shapes the measurement uses (N in 2, 4, 8, 16).
inline double mixDispatch(bool WithMem, unsigned N, const double *Mem,
                          const double *const *L2, size_t Len, size_t R0,
                          size_t R1) {
#define KEEL_MIX_CASE(NN)                                                      \
  case NN:                                                                     \
    return WithMem ? mixRows<1, NN>(Mem, L2, Len, R0, R1)                      \
                   : mixRows<0, NN>(Mem, L2, Len, R0, R1);
  switch (N) {
  case 0:
    return mixRows<1, 0>(Mem, L2, Len, R0, R1);
    KEEL_MIX_CASE(2)
    KEEL_MIX_CASE(4)
    KEEL_MIX_CASE(8)
    KEEL_MIX_CASE(16)
  default:
    return 0;
  }
#undef KEEL_MIX_CASE
}

} // namespace

#endif
