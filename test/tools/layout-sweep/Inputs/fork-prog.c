/* Forks a child that does work of its own: keel-sim (like cachegrind)
   counts only the first process. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
  volatile unsigned long s = 0;
  for (unsigned long i = 0; i < 20000; i++)
    s += i;
  pid_t p = fork();
  if (p == 0) {
    for (unsigned long i = 0; i < 20000; i++)
      s += i;
    _exit(0);
  }
  waitpid(p, 0, 0);
  printf("%lu\n", (unsigned long)s);
  return 0;
}
