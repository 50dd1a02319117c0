#include "ops.h"

const int op_table[16] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3};

/* Hot: called every iteration. */
long op_mix(long s, int x) {
  if (x % 3 == 0)
    return s * 31 + op_table[x & 15];
  if (x % 3 == 1)
    return s ^ (s >> 7) ^ x;
  return s + x * 2654435761u;
}

long op_step(long s, int x) {
  for (int i = 0; i < (x & 7); i++)
    s = s * 17 + i;
  return s;
}

/* Warm: every 500th iteration. */
long op_rare(long s) {
  for (int i = 0; i < 16; i++)
    s = s * 13 + op_table[i];
  return s;
}

/* Cold: never called by the workload. */
long op_never(long s) {
  for (int i = 0; i < 100; i++)
    s = s * 7 + i;
  return s;
}

long op_fold(long s, int x) {
  if (x < 0)
    return -1;
  return s ^ (s << 5) ^ op_table[(x >> 4) & 15];
}
