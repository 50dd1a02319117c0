// Exercises every allocator entry point the heap shim replaces and checks
// contents and alignment; prints the low bits of one block's address.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <malloc.h>
int main(void) {
  char *a = malloc(100);
  memset(a, 1, 100);
  char *b = calloc(10, 10);
  for (int i = 0; i < 100; ++i) if (b[i]) return 3;
  a = realloc(a, 5000);
  for (int i = 0; i < 100; ++i) if (a[i] != 1) return 4;
  void *c; if (posix_memalign(&c, 256, 10) || ((uintptr_t)c & 255)) return 5;
  void *d = aligned_alloc(64, 128); if ((uintptr_t)d & 63) return 6;
  void *e = memalign(4096, 10); if ((uintptr_t)e & 4095) return 7;
  if (((uintptr_t)a & 15) || ((uintptr_t)b & 15)) return 8;
  char *s = strdup("hello"); free(s);
  printf("%lu\n", (unsigned long)((uintptr_t)b & 0xfff));
  free(a); free(b); free(c); free(d); free(e);
  return 0;
}
