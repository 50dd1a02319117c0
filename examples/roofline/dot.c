/* A dot product to place on the roofline with `layout-roofline run`:
   two 8 MiB arrays (beyond L2, so every pass streams them from L3/DRAM),
   50 passes. Without -ffast-math the reduction stays scalar: one scalar FMA
   (2 flops) per element; with -ffast-math it vectorizes. See docs/roofline.md. */
#include <stdio.h>
#include <stdlib.h>
#define N (1 << 20)
#define PASSES 50

__attribute__((noinline)) double kernel(const double *a, const double *b, int r) {
  double s = 0;
  for (int i = 0; i < N; i++)
    s += a[i] * b[i];
  return s * r;
}

int main(void) {
  double *a = malloc(N * sizeof(double)), *b = malloc(N * sizeof(double));
  if (!a || !b)
    return 1;
  for (int i = 0; i < N; i++) {
    a[i] = i & 7;
    b[i] = 1;
  }
  double s = 0;
  for (int r = 0; r < PASSES; r++)
    s += kernel(a, b, r);
  printf("%g\n", s);
  return 0;
}
