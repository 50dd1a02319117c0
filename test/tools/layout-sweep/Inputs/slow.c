// Sleeps a little so a sweep can be killed between variants.
#include <stdio.h>
#include <time.h>
int main(void) {
  struct timespec T = {0, 400 * 1000 * 1000};
  nanosleep(&T, 0);
  puts("done");
  return 0;
}
