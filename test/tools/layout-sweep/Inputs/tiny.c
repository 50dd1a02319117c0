// A tiny deterministic program for layout-sweep tests.
#include <stdio.h>
int main(int argc, char **argv) {
  unsigned long S = 1;
  for (int I = 0; I < 20000; ++I)
    S = S * 6364136223846793005ul + 1442695040888963407ul;
  printf("%lu\n", S & 0xff);
  return 0;
}
