/* False sharing between two globals: each thread updates the `hits` field
 * of its own counter struct, but the two structs are adjacent in .bss and
 * share a cache line. `layout-falseshare report --plan-out=fs.yaml` names
 * c0.hits and c1.hits and writes plan false-sharing: entries; rebuilding
 * with LayoutOpt.so and that plan aligns and pads both to 64 bytes.
 *   fs-struct            (KEEL_FS_ITERS: updates per thread, default 1e8)
 * -DKEEL_FS_SPACING=N (a multiple of 8) puts N bytes between the two
 * structs by hand, in one line-aligned object: c0.hits is at bytes 0-7 and
 * c1.hits at 16+N, so N < 48 shares a line and N >= 48 does not
 * (layout-sweep --false-sharing varies N). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct counter {
  long hits;
  int id;
};

#ifdef KEEL_FS_SPACING
/* One object, so the compiler keeps the order and the spacing. */
struct {
  struct counter c0;
  char pad[KEEL_FS_SPACING]; /* 0: a GNU zero-length array */
  struct counter c1;
} spaced __attribute__((aligned(64)));
#define C0 spaced.c0
#define C1 spaced.c1
#else
struct counter c0, c1;
#define C0 c0
#define C1 c1
#endif

static long iters = 100000000L;

static void *worker(void *arg) {
  volatile long *hits = arg;
  for (long i = 0; i < iters; ++i)
    *hits += 1;
  return NULL;
}

int main(void) {
  const char *env = getenv("KEEL_FS_ITERS");
  if (env)
    iters = atol(env);
  pthread_t t0, t1;
  pthread_create(&t0, NULL, worker, (void *)&C0.hits);
  pthread_create(&t1, NULL, worker, (void *)&C1.hits);
  pthread_join(t0, NULL);
  pthread_join(t1, NULL);
  printf("hits %ld %ld\n", C0.hits, C1.hits);
  return 0;
}
