/* Two threads, pinned to CPUs 0 and 1, that start together and spin in
   different functions: perf record writes each CPU's samples from its own
   ring buffer, so the file holds them CPU by CPU, not in time order. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

static volatile unsigned long sink;
static unsigned long n;
static pthread_barrier_t start;

__attribute__((noinline)) static unsigned long spin_a(unsigned long k) {
  unsigned long x = 1;
  for (unsigned long i = 0; i < k; ++i)
    x = x * 6364136223846793005UL + i;
  return x;
}

__attribute__((noinline)) static unsigned long spin_b(unsigned long k) {
  unsigned long x = 3;
  for (unsigned long i = 0; i < k; ++i)
    x ^= (x << 7) + i;
  return x;
}

static void pin(int cpu) {
  cpu_set_t s;
  CPU_ZERO(&s);
  CPU_SET(cpu, &s);
  pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

static void *worker(void *arg) {
  pin(1);
  pthread_barrier_wait(&start);
  sink += spin_b(n);
  return arg;
}

int main(int argc, char **argv) {
  n = argc > 1 ? strtoul(argv[1], 0, 10) : 30000000;
  pthread_t t;
  pthread_barrier_init(&start, 0, 2);
  pthread_create(&t, 0, worker, 0);
  pin(0);
  pthread_barrier_wait(&start);
  sink += spin_a(n);
  pthread_join(t, 0);
  return 0;
}
