// Prints where a stack local of main landed, the size of its environment
// and where the environment's first string is (low 20 bits of addresses).
#include <stdint.h>
#include <stdio.h>
#include <string.h>
extern char **environ;
int main(void) {
  volatile int Local = 0;
  size_t Count = 0, Bytes = 0;
  for (char **E = environ; *E; ++E, ++Count)
    Bytes += strlen(*E) + 1;
  printf("stack %lu\n", (unsigned long)((uintptr_t)&Local & 0xfffff));
  printf("environ %zu strings %zu bytes\n", Count, Bytes);
  printf("envstr %lu\n", (unsigned long)((uintptr_t)environ[0] & 0xfffff));
  return Local;
}
