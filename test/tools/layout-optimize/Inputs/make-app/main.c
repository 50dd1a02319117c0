#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"

/* app N: N rounds of the loop; app fail: exit 3 (a failing workload). */
int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "fail") == 0) {
    fprintf(stderr, "app: asked to fail\n");
    return 3;
  }
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  long s = 1;
  for (int i = 0; i < n; i++) {
    s = op_fold(op_step(op_mix(s, i), i), i);
    if (i % 500 == 0)
      s = op_rare(s);
  }
  if (argc > 2)
    s = op_never(s);
  printf("%ld\n", s);
  return 0;
}
