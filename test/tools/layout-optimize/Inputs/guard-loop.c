/* guard-loop: ROUNDS rounds of a small loop; a build with fewer rounds
   executes fewer instructions, so it costs less under any model. */
#include <stdio.h>

#ifndef ROUNDS
#define ROUNDS 30000
#endif

int main(void) {
  long s = 1;
  for (int i = 0; i < ROUNDS; i++)
    s = s * 31 + (i ^ (s >> 7));
  printf("%ld\n", s);
  return 0;
}
