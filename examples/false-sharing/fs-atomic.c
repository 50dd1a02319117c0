/* True sharing (the counter-example): both threads increment the SAME
 * counter with atomics. The line bounces between cores as with false
 * sharing, but padding cannot help: the data itself is shared. The
 * detector reports it as true sharing, not false sharing.
 *   fs-atomic            (KEEL_FS_ITERS: increments per thread, default 1e7) */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

_Atomic long shared_counter;
static long iters = 10000000L;

static void *worker(void *arg) {
  (void)arg;
  for (long i = 0; i < iters; ++i)
    atomic_fetch_add_explicit(&shared_counter, 1, memory_order_relaxed);
  return NULL;
}

int main(void) {
  const char *env = getenv("KEEL_FS_ITERS");
  if (env)
    iters = atol(env);
  pthread_t t0, t1;
  pthread_create(&t0, NULL, worker, NULL);
  pthread_create(&t1, NULL, worker, NULL);
  pthread_join(t0, NULL);
  pthread_join(t1, NULL);
  printf("counter %ld\n", (long)atomic_load(&shared_counter));
  return 0;
}
