//===- Kernels.cpp - peak FLOP/s and bandwidth kernels ---------------------===//
//
// Compiled with -O2 -mfma -mavx2 (see CMakeLists.txt); the rest of Keel is
// built for the baseline ISA, so callers check hasAVX2FMA() first.
// The FMA loops are inline assembly so the compiler can neither vectorize the
// scalar chains (SLP would turn them into vector FMAs) nor shorten them.
// Twelve independent accumulators cover a 4-cycle FMA latency on two ports.
//
//===----------------------------------------------------------------------===//
#include "Kernels.h"
#include "MixKernel.h"

#include <immintrin.h>

namespace keel {
namespace roofline {
namespace kernels {

#define KEEL_FMA12(OP, R)                                                      \
  OP " %%" R "14, %%" R "15, %%" R "0\n\t" OP " %%" R "14, %%" R "15, %%" R    \
     "1\n\t" OP " %%" R "14, %%" R "15, %%" R "2\n\t" OP " %%" R "14, %%" R    \
     "15, %%" R "3\n\t" OP " %%" R "14, %%" R "15, %%" R "4\n\t" OP " %%" R    \
     "14, %%" R "15, %%" R "5\n\t" OP " %%" R "14, %%" R "15, %%" R "6\n\t" OP \
     " %%" R "14, %%" R "15, %%" R "7\n\t" OP " %%" R "14, %%" R "15, %%" R    \
     "8\n\t" OP " %%" R "14, %%" R "15, %%" R "9\n\t" OP " %%" R "14, %%" R    \
     "15, %%" R "10\n\t" OP " %%" R "14, %%" R "15, %%" R "11\n\t"

void scalarFMA(uint64_t Iters) {
  if (!Iters)
    return;
  // Zeros stay zeros: no denormals, no overflow, constant latency.
  asm volatile("vxorpd %%ymm0, %%ymm0, %%ymm0\n\t"
               "vmovapd %%ymm0, %%ymm1\n\tvmovapd %%ymm0, %%ymm2\n\t"
               "vmovapd %%ymm0, %%ymm3\n\tvmovapd %%ymm0, %%ymm4\n\t"
               "vmovapd %%ymm0, %%ymm5\n\tvmovapd %%ymm0, %%ymm6\n\t"
               "vmovapd %%ymm0, %%ymm7\n\tvmovapd %%ymm0, %%ymm8\n\t"
               "vmovapd %%ymm0, %%ymm9\n\tvmovapd %%ymm0, %%ymm10\n\t"
               "vmovapd %%ymm0, %%ymm11\n\tvmovapd %%ymm0, %%ymm14\n\t"
               "vmovapd %%ymm0, %%ymm15\n\t"
               "1:\n\t" KEEL_FMA12("vfmadd231sd", "xmm") "dec %0\n\t"
               "jnz 1b\n\t"
               "vzeroupper\n\t"
               : "+r"(Iters)
               :
               : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6",
                 "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm14", "xmm15",
                 "cc");
}

void avx2FMA(uint64_t Iters) {
  if (!Iters)
    return;
  asm volatile("vxorpd %%ymm0, %%ymm0, %%ymm0\n\t"
               "vmovapd %%ymm0, %%ymm1\n\tvmovapd %%ymm0, %%ymm2\n\t"
               "vmovapd %%ymm0, %%ymm3\n\tvmovapd %%ymm0, %%ymm4\n\t"
               "vmovapd %%ymm0, %%ymm5\n\tvmovapd %%ymm0, %%ymm6\n\t"
               "vmovapd %%ymm0, %%ymm7\n\tvmovapd %%ymm0, %%ymm8\n\t"
               "vmovapd %%ymm0, %%ymm9\n\tvmovapd %%ymm0, %%ymm10\n\t"
               "vmovapd %%ymm0, %%ymm11\n\tvmovapd %%ymm0, %%ymm14\n\t"
               "vmovapd %%ymm0, %%ymm15\n\t"
               "1:\n\t" KEEL_FMA12("vfmadd231pd", "ymm") "dec %0\n\t"
               "jnz 1b\n\t"
               "vzeroupper\n\t"
               : "+r"(Iters)
               :
               : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6",
                 "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm14", "xmm15",
                 "cc");
}

double readAVX2(const double *A, size_t N) {
  // Four streams (the quarters of A) read side by side, two 32-byte loads
  // each per step into eight accumulators: loads, not add latency, bound the
  // loop in L1, and from memory four streams keep more lines in flight than
  // one (a single stream reads 10-20% slower from DRAM here, while the
  // kernels being modelled read several arrays at once).
  size_t Q = N / 4;
  const double *A0 = A, *A1 = A + Q, *A2 = A + 2 * Q, *A3 = A + 3 * Q;
  __m256d S0 = _mm256_setzero_pd(), S1 = S0, S2 = S0, S3 = S0, S4 = S0,
          S5 = S0, S6 = S0, S7 = S0;
  for (size_t I = 0; I < Q; I += 8) {
    S0 = _mm256_add_pd(S0, _mm256_load_pd(A0 + I));
    S1 = _mm256_add_pd(S1, _mm256_load_pd(A0 + I + 4));
    S2 = _mm256_add_pd(S2, _mm256_load_pd(A1 + I));
    S3 = _mm256_add_pd(S3, _mm256_load_pd(A1 + I + 4));
    S4 = _mm256_add_pd(S4, _mm256_load_pd(A2 + I));
    S5 = _mm256_add_pd(S5, _mm256_load_pd(A2 + I + 4));
    S6 = _mm256_add_pd(S6, _mm256_load_pd(A3 + I));
    S7 = _mm256_add_pd(S7, _mm256_load_pd(A3 + I + 4));
  }
  __m256d S = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(S0, S1),
                                          _mm256_add_pd(S2, S3)),
                            _mm256_add_pd(_mm256_add_pd(S4, S5),
                                          _mm256_add_pd(S6, S7)));
  alignas(32) double Out[4];
  _mm256_store_pd(Out, S);
  return Out[0] + Out[1] + Out[2] + Out[3];
}

void triadAVX2(double *A, const double *B, const double *C, double S,
               size_t N) {
  __m256d VS = _mm256_set1_pd(S);
  for (size_t I = 0; I < N; I += 16) {
    for (size_t J = 0; J < 16; J += 4)
      _mm256_store_pd(A + I + J, _mm256_fmadd_pd(VS, _mm256_load_pd(C + I + J),
                                                 _mm256_load_pd(B + I + J)));
  }
}

double mixAVX2(bool WithMem, unsigned N, const double *Mem,
               const double *const *L2, size_t Len, size_t R0, size_t R1) {
  return mixDispatch(WithMem, N, Mem, L2, Len, R0, R1);
}

} // namespace kernels
} // namespace roofline
} // namespace keel
