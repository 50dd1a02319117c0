/* Keel's bundled example: a small, deterministic program with a few hot
 * functions and a call graph worth laying out. It builds a table of
 * pseudo-random keys (an LCG, so every run is the same), counts them in an
 * open-addressing hash table, sorts the distinct keys with a recursive
 * quicksort and folds them into a checksum. About 3 million instructions.
 *
 *   demo [N]   N keys (default 20000); prints "demo: N keys, D distinct,
 *              checksum C" and exits 0.
 */
#include <stdio.h>
#include <stdlib.h>

#define TABLE_BITS 15
#define TABLE_SIZE (1u << TABLE_BITS)

struct slot {
  unsigned key;
  unsigned count;
};

static struct slot table[TABLE_SIZE];
static unsigned keys[TABLE_SIZE];

static unsigned lcg_state = 12345u;

static unsigned __attribute__((noinline)) next_key(void) {
  lcg_state = lcg_state * 1103515245u + 12345u;
  return (lcg_state >> 8) % 9000u + 1u; /* never 0: 0 marks an empty slot */
}

static unsigned hash(unsigned k) { return (k * 2654435761u) >> (32 - TABLE_BITS); }

/* Count one occurrence of k; returns 1 when k is new. */
static int __attribute__((noinline)) insert(unsigned k) {
  unsigned i = hash(k);
  for (;;) {
    if (table[i].key == k) {
      table[i].count++;
      return 0;
    }
    if (table[i].key == 0) {
      table[i].key = k;
      table[i].count = 1;
      return 1;
    }
    i = (i + 1) & (TABLE_SIZE - 1);
  }
}

static void __attribute__((noinline)) quicksort(unsigned *a, int lo, int hi) {
  while (lo < hi) {
    unsigned pivot = a[lo + (hi - lo) / 2];
    int i = lo, j = hi;
    while (i <= j) {
      while (a[i] < pivot)
        i++;
      while (a[j] > pivot)
        j--;
      if (i <= j) {
        unsigned t = a[i];
        a[i] = a[j];
        a[j] = t;
        i++;
        j--;
      }
    }
    /* Recurse into the smaller half, loop on the larger. */
    if (j - lo < hi - i) {
      quicksort(a, lo, j);
      lo = i;
    } else {
      quicksort(a, i, hi);
      hi = j;
    }
  }
}

static unsigned __attribute__((noinline)) fold(const unsigned *a, int n) {
  unsigned c = 0;
  for (int i = 0; i < n; i++) {
    switch (a[i] & 3) {
    case 0: c = c * 31 + a[i]; break;
    case 1: c ^= a[i] << 7; break;
    case 2: c += a[i] * a[i]; break;
    default: c = (c >> 3) | (c << 29); break;
    }
  }
  return c;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 20000;
  int distinct = 0;
  for (int i = 0; i < n; i++)
    distinct += insert(next_key());
  int m = 0;
  for (unsigned i = 0; i < TABLE_SIZE; i++)
    if (table[i].key)
      keys[m++] = table[i].key;
  quicksort(keys, 0, m - 1);
  printf("demo: %d keys, %d distinct, checksum %u\n", n, distinct, fold(keys, m));
  return 0;
}
