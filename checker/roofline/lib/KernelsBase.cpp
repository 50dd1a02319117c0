//===- KernelsBase.cpp - baseline-ISA kernels and CPU detection ------------===//
//
// Built for the baseline ISA: this is where the CPU is asked whether the
// AVX2/FMA kernels in Kernels.cpp may run at all.
//
//===----------------------------------------------------------------------===//
#include "Kernels.h"
#include "MixKernel.h"

namespace keel {
namespace roofline {
namespace kernels {

bool hasAVX2FMA() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

double readScalar(const double *A, size_t N) {
  double S0 = 0, S1 = 0, S2 = 0, S3 = 0;
  for (size_t I = 0; I < N; I += 4) {
    S0 += A[I];
    S1 += A[I + 1];
    S2 += A[I + 2];
    S3 += A[I + 3];
  }
  return S0 + S1 + S2 + S3;
}

void triadScalar(double *A, const double *B, const double *C, double S,
                 size_t N) {
#pragma clang loop vectorize(disable)
  for (size_t I = 0; I < N; ++I)
    A[I] = B[I] + S * C[I];
}

double mixBase(bool WithMem, unsigned N, const double *Mem,
               const double *const *L2, size_t Len, size_t R0, size_t R1) {
  return mixDispatch(WithMem, N, Mem, L2, Len, R0, R1);
}

} // namespace kernels
} // namespace roofline
} // namespace keel
