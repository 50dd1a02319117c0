/* branchy MODE: 200000 data-dependent branches. MODE 0: the branch goes the
   same way every time (well predicted); MODE 1: by a linear congruential
   sequence (about half mispredicted by any predictor). The same
   instructions run in both modes. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  unsigned mode = argc > 1 ? (unsigned)atoi(argv[1]) : 0;
  unsigned x = 12345, mask = mode ? 0x10000u : 0;
  long s = 0;
  static volatile long sink; /* a store on one side: a branch, not a select */
  for (int i = 0; i < 200000; i++) {
    x = x * 1103515245u + 12345u;
    if (x & mask)
      sink = i;
    else
      s -= 3;
  }
  printf("%ld %ld\n", s, (long)sink);
  return 0;
}
