//===- Kernels.h - measurement kernels (built with -mavx2 -mfma) -*- C++ -*-===//
//
// Kernels.cpp is compiled with -O2 -mfma -mavx2; call hasAVX2FMA() (runtime
// CPU detection) before any function whose name says avx2.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_ROOFLINE_KERNELS_H
#define KEEL_ROOFLINE_KERNELS_H

#include <cstddef>
#include <cstdint>

namespace keel {
namespace roofline {
namespace kernels {

bool hasAVX2FMA();

/// Flops done by one call of the FMA loops per Iters (12 independent chains).
constexpr double ScalarFMAFlopsPerIter = 12 * 2;
constexpr double AVX2FMAFlopsPerIter = 12 * 2 * 4;
void scalarFMA(uint64_t Iters);
void avx2FMA(uint64_t Iters);

/// Read kernel: sums N doubles (N a multiple of 32, A 32-byte aligned) as
/// four interleaved streams (readAVX2); 8 bytes and 1 flop per element.
/// Returns the sum so it cannot be elided.
double readAVX2(const double *A, size_t N);
double readScalar(const double *A, size_t N);
/// Triad A[i] = B[i] + S*C[i]: 24 bytes (STREAM convention, no write-allocate)
/// and 2 flops per element. N a multiple of 16.
void triadAVX2(double *A, const double *B, const double *C, double S,
               size_t N);
void triadScalar(double *A, const double *B, const double *C, double S,
                 size_t N);

/// The level-overlap kernel (MixKernel.h): rows [R0, R1) of Len doubles,
/// each reading row R of Mem (when WithMem) and the N arrays L2[0..N-1]
/// (N = 0 needs WithMem; N in 0, 2, 4, 8, 16). 8 B and 1 flop per array
/// per element; returns the sum.
double mixAVX2(bool WithMem, unsigned N, const double *Mem,
               const double *const *L2, size_t Len, size_t R0, size_t R1);
double mixBase(bool WithMem, unsigned N, const double *Mem,
               const double *const *L2, size_t Len, size_t R0, size_t R1);

} // namespace kernels
} // namespace roofline
} // namespace keel

#endif
