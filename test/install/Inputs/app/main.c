// The hot loop calls op_mix, op_step and op_fold (ops.c); the op_rare_*
// functions, defined between them, run only with an argument of 0.
#include <stdio.h>
#include <stdlib.h>

unsigned op_mix(unsigned);
unsigned op_step(unsigned);
unsigned op_fold(unsigned, unsigned);
unsigned op_rare_a(unsigned);
unsigned op_rare_b(unsigned);
unsigned op_rare_c(unsigned);

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000;
  unsigned acc = 1;
  if (n == 0)
    acc = op_rare_a(acc) + op_rare_b(acc) + op_rare_c(acc);
  for (long i = 0; i < n; ++i)
    acc = op_fold(acc, op_step(op_mix(acc + (unsigned)i)));
  printf("%u\n", acc);
  return 0;
}
