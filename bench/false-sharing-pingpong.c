/* Cross-CPU cache-line round trip: thread A (CPU 0) and thread B (CPU 1)
 * hand a flag back and forth N times. On bare metal one round trip is
 * ~100-200 ns (two line transfers); on an overcommitted VM, whose vCPUs do
 * not run at the same time on the host, it is much longer, and false
 * sharing (which needs both writers running at once) cannot show. Used by
 * bench/false-sharing.sh to explain its ratio.  Usage: pingpong [N] */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static _Atomic int flag;
static long n = 20000;

static void pin(int cpu) {
  cpu_set_t s;
  CPU_ZERO(&s);
  CPU_SET(cpu, &s);
  pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

static void *other(void *arg) {
  (void)arg;
  pin(1);
  for (long i = 0; i < n; ++i) {
    while (atomic_load(&flag) != 1) {
    }
    atomic_store(&flag, 0);
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 1)
    n = atol(argv[1]);
  pthread_t t;
  pthread_attr_t attr;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(1, &one);
  pthread_attr_init(&attr);
  /* start the other thread on CPU 1 already: under SCHED_FIFO a thread
   * spinning on CPU 0 would never let it run there to move itself */
  pthread_attr_setaffinity_np(&attr, sizeof one, &one);
  pin(0);
  pthread_create(&t, &attr, other, NULL);
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  for (long i = 0; i < n; ++i) {
    while (atomic_load(&flag) != 0) {
    }
    atomic_store(&flag, 1);
  }
  pthread_join(t, NULL);
  clock_gettime(CLOCK_MONOTONIC, &b);
  printf("%.1f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n);
  return 0;
}
