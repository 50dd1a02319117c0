/* Five hot functions whose order the relink permutes (order-link.py). */
#include <stdio.h>
#include <stdlib.h>

static unsigned long table[4096];

__attribute__((noinline)) unsigned long f0(unsigned long x) { return x * 3 + table[x & 4095]; }
__attribute__((noinline)) unsigned long f1(unsigned long x) { return (x ^ 0x55) + table[(x >> 3) & 4095]; }
__attribute__((noinline)) unsigned long f2(unsigned long x) {
#ifdef BIGGER
  x = x * 7 + 1;
#endif
  return (x << 1) - table[(x * 7) & 4095];
}
__attribute__((noinline)) unsigned long f3(unsigned long x) { return x % 97 + table[(x * 13) & 4095]; }
__attribute__((noinline)) unsigned long f4(unsigned long x) { return (x | 1) * 5 + table[(x >> 5) & 4095]; }

int main(int argc, char **argv) {
  unsigned long n = argc > 1 ? strtoul(argv[1], 0, 10) : 1000, s = 1;
  for (unsigned long i = 0; i < 4096; i++)
    table[i] = i * 2654435761u;
  for (unsigned long i = 0; i < n; i++) {
    s = f0(s) + i;
    s = f1(s);
    s = f2(s);
    s = f3(s);
    s = f4(s);
  }
  printf("%lu\n", s & 0xffff);
  return 0;
}
