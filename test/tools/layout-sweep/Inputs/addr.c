// Prints where its first heap block and a stack local landed.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
int main(void) {
  volatile int Local = 0;
  void *P = malloc(64);
  printf("heap %lu\nstack %lu\n", (unsigned long)((uintptr_t)P & 0xfffff),
         (unsigned long)((uintptr_t)&Local & 0xfffff));
  free(P);
  return Local;
}
