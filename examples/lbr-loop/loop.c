// The example of docs/lbr-analyses.md: two phases with known work.
//
//   loop ITERS ROUNDS
//
// Phase 1 runs hot_loop ITERS times (the block table's check: the loop's
// instructions per iteration, read from the disassembly, times ITERS).
// Phase 2 calls f1, f2 and f3 in turn ROUNDS times; their work is 1:3:1,
// the time line's example of short functions that run between two samples.
// Build: clang-22 -O1 -static -fno-unroll-loops -fno-vectorize loop.c
#include <stdlib.h>

static volatile unsigned Sink;

__attribute__((noinline)) unsigned hot_loop(unsigned n) {
  unsigned x = 1;
  for (unsigned i = 0; i < n; ++i)
    x = x * 1103515245u + i;
  return x;
}

// n steps of a small mixing loop; the callers pick n for the 1:3:1 work.
static inline unsigned work(unsigned x, unsigned n) {
  for (unsigned i = 0; i < n; ++i)
    x = (x ^ i) * 2654435761u;
  return x;
}
__attribute__((noinline)) unsigned f1(unsigned x) { return work(x, 10); }
__attribute__((noinline)) unsigned f2(unsigned x) { return work(x, 30); }
__attribute__((noinline)) unsigned f3(unsigned x) { return work(x, 10); }

int main(int argc, char **argv) {
  unsigned iters = argc > 1 ? (unsigned)atoi(argv[1]) : 100000;
  unsigned rounds = argc > 2 ? (unsigned)atoi(argv[2]) : 1000;
  Sink = hot_loop(iters);
  unsigned x = 7;
  for (unsigned r = 0; r < rounds; ++r)
    x = f3(f2(f1(x)));
  Sink = x;
  return 0;
}
