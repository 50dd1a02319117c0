/* The false-sharing microbenchmark of Peri's article (docs/references.md):
 * N threads each update one int element of a shared array, at the start
 * indices given on the command line.
 *   fs-array 2 0 1     both elements in one 64-byte line (false sharing)
 *   fs-array 2 0 64    elements 256 bytes apart (one line each)
 *   fs-array 2         with -DKEEL_FS_SPACING=S: thread i updates element
 *                      i * S / sizeof(int), so S=4 is `0 1`, S=256 `0 64`
 *                      (layout-sweep --false-sharing varies S)
 * -DKEEL_FS_ATOMIC: update with a relaxed atomic add (lock xadd) instead of
 * a volatile load and store; still one element per thread (false sharing,
 * not true sharing), but every update needs the line.
 * -DKEEL_FS_TIGHT: the optimised loop (counter in a register) instead of
 * the article's loop (counter, bound and pointer in memory).
 * KEEL_FS_ITERS (environment) sets the updates per thread (default 1e8).
 * KEEL_FS_PIN=1 pins thread i to CPU i (mod the CPUs of the affinity mask),
 * so two threads run on two cores even when the scheduler would stack them.
 * The element is updated through a volatile pointer so every iteration is a
 * real load and store to memory, as in the article's unoptimized loop. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_THREADS 16
#define ELEMENTS 1024

/* Line-aligned, so which elements share a line is the same in every build:
 * elements i and j share one iff i / 16 == j / 16. */
int shared_array[ELEMENTS] __attribute__((aligned(64)));

struct job {
  long index;
  long iters;
  int cpu; /* -1: not pinned */
};

static void *worker(void *arg) {
  struct job *j = arg;
#ifdef KEEL_FS_ATOMIC
  /* Each thread still updates its own element, but with a locked add,
   * which needs the line in this core's cache for every update (a plain
   * store can wait in the store buffer and commit in bursts). */
  int *p = &shared_array[j->index];
  for (long i = 0; i < j->iters; ++i)
    __atomic_fetch_add(p, 1, __ATOMIC_RELAXED);
#elif defined(KEEL_FS_TIGHT)
  /* The loop an optimiser makes of it: counter and pointer in registers,
   * one `incl (mem)` per update. Only one store every ~6 cycles (each
   * update waits for the previous one through store forwarding), so the
   * store buffer hides the line's trips to the other core: no penalty on
   * this machine (docs/false-sharing.md, Measurements). */
  volatile int *p = &shared_array[j->index];
  for (long i = 0; i < j->iters; ++i)
    *p += 1;
#else
  /* The article's loop as its unoptimised build runs it: the counter, the
   * bound and the element pointer live in memory (this thread's stack),
   * and each iteration loads, increments and stores the thread's own
   * element through memory. `volatile` keeps that shape at -O2. */
  volatile int *volatile p = &shared_array[j->index];
  volatile long n = j->iters;
  for (volatile long i = 0; i < n; ++i)
    *p += 1;
#endif
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s NTHREADS INDEX...\n", argv[0]);
    return 2;
  }
  int n = atoi(argv[1]);
#ifdef KEEL_FS_SPACING
  int spaced = argc == 2;
#else
  int spaced = 0;
#endif
  if (n < 1 || n > MAX_THREADS || (argc != n + 2 && !spaced)) {
    fprintf(stderr, "%s: want 1..%d threads and one index per thread\n",
            argv[0], MAX_THREADS);
    return 2;
  }
  const char *env = getenv("KEEL_FS_ITERS");
  long iters = env ? atol(env) : 100000000L;
  pthread_t t[MAX_THREADS];
  struct job jobs[MAX_THREADS];
  int cpus[CPU_SETSIZE], ncpus = 0;
  const char *pin = getenv("KEEL_FS_PIN");
  cpu_set_t mask;
  if (pin && *pin == '1' && sched_getaffinity(0, sizeof mask, &mask) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &mask))
        cpus[ncpus++] = c;
  for (int i = 0; i < n; ++i) {
#ifdef KEEL_FS_SPACING
    if (spaced)
      jobs[i].index = (long)i * (KEEL_FS_SPACING / (long)sizeof(int));
    else
#endif
      jobs[i].index = atol(argv[i + 2]);
    jobs[i].iters = iters;
    jobs[i].cpu = ncpus ? cpus[i % ncpus] : -1;
    if (jobs[i].index < 0 || jobs[i].index >= ELEMENTS) {
      fprintf(stderr, "%s: index %ld out of [0, %d)\n", argv[0], jobs[i].index,
              ELEMENTS);
      return 2;
    }
  }
  for (int i = 0; i < n; ++i) {
    /* Pinned threads start on their CPU (not on main's and then move):
     * under a real-time policy a spinning thread would otherwise keep main
     * from creating the next one. */
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    if (jobs[i].cpu >= 0) {
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(jobs[i].cpu, &set);
      pthread_attr_setaffinity_np(&attr, sizeof set, &set);
    }
    pthread_create(&t[i], &attr, worker, &jobs[i]);
    pthread_attr_destroy(&attr);
  }
  for (int i = 0; i < n; ++i)
    pthread_join(t[i], NULL);
  long sum = 0;
  for (int i = 0; i < ELEMENTS; ++i)
    sum += shared_array[i];
  printf("sum %ld\n", sum);
  return 0;
}
