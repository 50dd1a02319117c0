/* Seed 004's false-sharing microbenchmark: N threads each update one int
 * element of a shared array, at the start indices given on the command line.
 *   fs-array 2 0 1     both elements in one 64-byte line (false sharing)
 *   fs-array 2 0 64    elements 256 bytes apart (one line each)
 * KEEL_FS_ITERS (environment) sets the updates per thread (default 1e8).
 * The element is updated through a volatile pointer so every iteration is a
 * real load and store, as in the seed's unoptimized loop. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_THREADS 16
#define ELEMENTS 1024

int shared_array[ELEMENTS];

struct job {
  long index;
  long iters;
};

static void *worker(void *arg) {
  struct job *j = arg;
  volatile int *p = &shared_array[j->index];
  for (long i = 0; i < j->iters; ++i)
    *p += 1;
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s NTHREADS INDEX...\n", argv[0]);
    return 2;
  }
  int n = atoi(argv[1]);
  if (n < 1 || n > MAX_THREADS || argc != n + 2) {
    fprintf(stderr, "%s: want 1..%d threads and one index per thread\n",
            argv[0], MAX_THREADS);
    return 2;
  }
  const char *env = getenv("KEEL_FS_ITERS");
  long iters = env ? atol(env) : 100000000L;
  pthread_t t[MAX_THREADS];
  struct job jobs[MAX_THREADS];
  for (int i = 0; i < n; ++i) {
    jobs[i].index = atol(argv[i + 2]);
    jobs[i].iters = iters;
    if (jobs[i].index < 0 || jobs[i].index >= ELEMENTS) {
      fprintf(stderr, "%s: index %ld out of [0, %d)\n", argv[0], jobs[i].index,
              ELEMENTS);
      return 2;
    }
  }
  for (int i = 0; i < n; ++i)
    pthread_create(&t[i], NULL, worker, &jobs[i]);
  for (int i = 0; i < n; ++i)
    pthread_join(t[i], NULL);
  long sum = 0;
  for (int i = 0; i < ELEMENTS; ++i)
    sum += shared_array[i];
  printf("sum %ld\n", sum);
  return 0;
}
