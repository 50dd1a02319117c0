/*===- keelfs.c - false-sharing runtime for KeelFalseSharing.so ----------===*
 *
 * The pass calls __keel_fs_access(addr, size, kind, site) before every
 * instrumented load and store (kind: 0 read, 1 write, 3 read and write). We record, per 64-byte cache line and per
 * thread, which bytes the thread read and wrote (64-bit masks), how many
 * reads and writes it did, and the first few source sites it used; at exit
 * the table is written to $KEEL_FS_OUT (default keelfs.out) for
 * `layout-falseshare report`.
 *
 * Thread safety without locks:
 *  - the table is a fixed-size open-addressing hash of lines (claimed with a
 *    compare-and-swap on the key); memory is bounded (KEEL_FS_MAX_LINES,
 *    default 65536, at most 1<<22) and mapped lazily;
 *  - each line has KEEL_FS_SLOTS thread slots, claimed with a CAS on the
 *    thread id; a slot is then written by its owner thread only, so counts
 *    are plain relaxed stores and masks are or-ed in only when new bits
 *    appear. Each slot has its own cache line so the runtime adds no false
 *    sharing of its own;
 *  - lines that are full (table or slots) are counted as dropped and
 *    reported, never silently lost.
 * Sampling (-keel-fs-sample=N): each thread records every Nth access and
 * the counts are scaled by N in the report header (`sample N`).
 *===----------------------------------------------------------------------===*/
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define KEEL_FS_LINE 64
#define KEEL_FS_SLOTS 8
#define KEEL_FS_SITES 4

struct keel_fs_site { /* emitted by the pass, one per source location */
  const char *file;
  const char *func;
  uint32_t line;
  uint32_t col;
};

struct slot {
  _Atomic uint32_t tid; /* 0: free; else thread id + 1 */
  uint32_t pad0;
  _Atomic uint64_t rmask, wmask;
  _Atomic uint64_t reads, writes;
  const struct keel_fs_site *_Atomic site[KEEL_FS_SITES];
  _Atomic uint64_t sitecount[KEEL_FS_SITES];
  _Atomic uint64_t calls; /* accesses recorded by the runtime itself */
} __attribute__((aligned(128)));

_Static_assert(offsetof(struct slot, rmask) == 8 &&
                   offsetof(struct slot, wmask) == 16 &&
                   offsetof(struct slot, reads) == 24 &&
                   offsetof(struct slot, writes) == 32,
               "struct slot layout is shared with FalseSharing.cpp");

struct entry {
  _Atomic uint64_t key; /* line address + 1; 0: free */
  struct slot slots[KEEL_FS_SLOTS];
};

/* Heap allocations seen by __keel_fs_alloc, keyed by start address (a
 * reused address overwrites the older entry). Only the ones overlapping a
 * line two or more threads touched are written to the report. */
#define KEEL_FS_ALLOCS (1u << 16)
struct alloc {
  _Atomic uint64_t start; /* 0: free */
  _Atomic uint64_t size;
  const struct keel_fs_site *_Atomic site;
};
static struct alloc *allocs;
static _Atomic uint64_t dropped_allocs;

static struct entry *table;
static uint64_t table_lines;
static _Atomic int state; /* 0 uninit, 1 initializing, 2 ready, 3 failed/done */
static _Atomic uint32_t next_tid;
static _Atomic uint64_t dropped_table, dropped_slots, dropped_sites;
static uint32_t sample_every = 1;
static int stats_on; /* KEEL_FS_STATS set: count the runtime's records */

/* The inline fast path (ABI with FalseSharing.cpp, which emits it unless
 * -keel-fs-inline=0, -keel-fs-sample > 1 or the module is position
 * independent but not an executable): each source site has a thread-local
 * cache in the instrumented module, { line, slot, count }. Instrumented
 * code compares (addr >> 6) with `line`; if it matches, the access stays
 * within the line and the slot's masks already hold its bytes, it adds 1 to
 * the slot's reads and/or writes (offsets 24 and 32 of struct slot, checked
 * below) and to *count (the site's counter in the slot), and calls nothing.
 * Otherwise it calls __keel_fs_access_cached, which records the access and
 * refills the cache. `line` is KEEL_FS_NO_LINE (never equal to addr >> 6)
 * until then, and stays so when sampling: every access must then reach the
 * sampling counter. */
struct keel_fs_cache {
  uint64_t line;
  struct slot *slot;
  _Atomic uint64_t *count;
};
#define KEEL_FS_NO_LINE UINT64_MAX
static __thread uint32_t my_tid __attribute__((tls_model("initial-exec")));
static __thread uint32_t my_skip __attribute__((tls_model("initial-exec")));
static __thread uint64_t my_line __attribute__((tls_model("initial-exec")));
static __thread struct slot *my_slot __attribute__((tls_model("initial-exec")));

static uint64_t env_number(const char *name, uint64_t def, uint64_t lo,
                           uint64_t hi) {
  const char *s = getenv(name);
  if (!s || !*s)
    return def;
  char *end = NULL;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || *end || v < lo || v > hi) {
    fprintf(stderr,
            "keelfs: ignoring %s=%s (want an integer in [%llu, %llu])\n", name,
            s, (unsigned long long)lo, (unsigned long long)hi);
    return def;
  }
  return v;
}

static void write_report(void);

static void init(void) {
  int expect = 0;
  if (!atomic_compare_exchange_strong(&state, &expect, 1)) {
    while (atomic_load(&state) == 1)
      ;
    return;
  }
  const char *st = getenv("KEEL_FS_STATS");
  stats_on = st && *st && strcmp(st, "0") != 0;
  uint64_t lines = env_number("KEEL_FS_MAX_LINES", 65536, 64, 1u << 22);
  /* round up to a power of two */
  uint64_t p = 64;
  while (p < lines)
    p <<= 1;
  size_t bytes = p * sizeof(struct entry);
  void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) {
    fprintf(stderr, "keelfs: cannot map %zu bytes for %llu lines\n", bytes,
            (unsigned long long)p);
    atomic_store(&state, 3);
    return;
  }
  void *a = mmap(NULL, KEEL_FS_ALLOCS * sizeof(struct alloc),
                 PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  allocs = a == MAP_FAILED ? NULL : a;
  table = m;
  table_lines = p;
  atexit(write_report);
  atomic_store(&state, 2);
}

/* Called from a constructor the pass adds to every instrumented module. */
void __keel_fs_init(uint32_t sample) {
  if (sample > 1 && sample > sample_every)
    sample_every = sample;
  if (atomic_load(&state) == 0)
    init();
}

static struct slot *find_slot(uint64_t line) {
  uint64_t mask = table_lines - 1;
  uint64_t h = (line * 0x9E3779B97F4A7C15ull) >> 17;
  uint64_t key = line + 1;
  struct entry *e = NULL;
  for (uint64_t probe = 0; probe < 64; ++probe) {
    struct entry *c = &table[(h + probe) & mask];
    uint64_t k = atomic_load_explicit(&c->key, memory_order_acquire);
    if (k == key) {
      e = c;
      break;
    }
    if (k == 0) {
      uint64_t zero = 0;
      if (atomic_compare_exchange_strong(&c->key, &zero, key) || zero == key) {
        e = c;
        break;
      }
    }
  }
  if (!e) {
    atomic_fetch_add_explicit(&dropped_table, 1, memory_order_relaxed);
    return NULL;
  }
  uint32_t want = my_tid + 1;
  for (int i = 0; i < KEEL_FS_SLOTS; ++i) {
    struct slot *s = &e->slots[i];
    uint32_t t = atomic_load_explicit(&s->tid, memory_order_acquire);
    if (t == want)
      return s;
    if (t == 0) {
      uint32_t zero = 0;
      if (atomic_compare_exchange_strong(&s->tid, &zero, want))
        return s;
    }
  }
  atomic_fetch_add_explicit(&dropped_slots, 1, memory_order_relaxed);
  return NULL;
}

/* Count one access of [off, off + size) of line `line`, held in slot s;
 * with `out`, point the inline path's cache at the slot and the site's
 * counter. */
static inline __attribute__((always_inline)) void
update(struct slot *s, uint64_t line, uint32_t off, uint32_t size,
       uint32_t is_write, const struct keel_fs_site *site,
       struct keel_fs_cache *out) {
  uint64_t bits = (size >= 64 ? ~0ull : ((1ull << size) - 1)) << off;
  if (stats_on)
    atomic_store_explicit(
        &s->calls, atomic_load_explicit(&s->calls, memory_order_relaxed) + 1,
        memory_order_relaxed);
  /* kind: bit 0 write, bit 1 read (3: read-modify-write) */
  if (is_write != 1) {
    uint64_t old = atomic_load_explicit(&s->rmask, memory_order_relaxed);
    if ((old | bits) != old)
      atomic_store_explicit(&s->rmask, old | bits, memory_order_relaxed);
    atomic_store_explicit(
        &s->reads, atomic_load_explicit(&s->reads, memory_order_relaxed) + 1,
        memory_order_relaxed);
  }
  if (is_write & 1) {
    uint64_t old = atomic_load_explicit(&s->wmask, memory_order_relaxed);
    if ((old | bits) != old)
      atomic_store_explicit(&s->wmask, old | bits, memory_order_relaxed);
    atomic_store_explicit(
        &s->writes, atomic_load_explicit(&s->writes, memory_order_relaxed) + 1,
        memory_order_relaxed);
  }
  for (int i = 0; i < KEEL_FS_SITES; ++i) {
    const struct keel_fs_site *cur =
        atomic_load_explicit(&s->site[i], memory_order_relaxed);
    if (cur == site || cur == NULL) {
      if (cur == NULL)
        atomic_store_explicit(&s->site[i], site, memory_order_relaxed);
      atomic_store_explicit(
          &s->sitecount[i],
          atomic_load_explicit(&s->sitecount[i], memory_order_relaxed) + 1,
          memory_order_relaxed);
      if (out && sample_every == 1) {
        out->line = line;
        out->slot = s;
        out->count = &s->sitecount[i];
      }
      return;
    }
  }
  atomic_fetch_add_explicit(&dropped_sites, 1, memory_order_relaxed);
}

/* Any access: split at line ends, look the line's slot up. */
static void record(uint64_t addr, uint32_t size, uint32_t is_write,
                   const struct keel_fs_site *site, struct keel_fs_cache *out) {
  uint64_t line = addr / KEEL_FS_LINE;
  uint32_t off = (uint32_t)(addr % KEEL_FS_LINE);
  if (off + size > KEEL_FS_LINE) { /* split an access that crosses lines */
    uint32_t first = KEEL_FS_LINE - off;
    record(addr, first, is_write, site, out);
    record(addr + first, size - first, is_write, site, out);
    return;
  }
  struct slot *s;
  if (line == my_line && my_slot) {
    s = my_slot;
  } else {
    s = find_slot(line);
    if (!s)
      return;
    my_line = line;
    my_slot = s;
  }
  update(s, line, off, size, is_write, site, out);
}

/* Everything but the common case: initialisation, a new thread. */
static __attribute__((noinline)) void
access_slow(void *addr, uint32_t size, uint32_t is_write,
            const struct keel_fs_site *site, struct keel_fs_cache *out) {
  if (atomic_load_explicit(&state, memory_order_relaxed) != 2) {
    if (atomic_load(&state) == 0)
      init();
    if (atomic_load(&state) != 2)
      return;
  }
  if (my_tid == 0)
    my_tid = atomic_fetch_add(&next_tid, 1) + 1; /* ids start at 1 */
  if (sample_every > 1) {
    if (my_skip) {
      --my_skip;
      return;
    }
    my_skip = sample_every - 1;
  }
  if (size == 0 || size > 4096)
    return;
  record((uint64_t)(uintptr_t)addr, size, is_write, site, out);
}

static inline __attribute__((always_inline)) void
access_any(void *addr, uint32_t size, uint32_t is_write,
       const struct keel_fs_site *site, struct keel_fs_cache *out) {
  /* The common case -- runtime ready, thread known, same line as this
   * thread's previous access, inside one line -- is inlined here without a
   * stack frame: the instrumented loop does little else (docs/
   * false-sharing.md, instrumentation overhead). */
  if (__builtin_expect(
          atomic_load_explicit(&state, memory_order_relaxed) != 2 ||
              my_tid == 0,
          0)) {
    access_slow(addr, size, is_write, site, out);
    return;
  }
  if (sample_every > 1) {
    if (my_skip) {
      --my_skip;
      return;
    }
    my_skip = sample_every - 1;
  }
  uint64_t a = (uint64_t)(uintptr_t)addr;
  uint32_t off = (uint32_t)(a % KEEL_FS_LINE);
  if (__builtin_expect(a / KEEL_FS_LINE == my_line && my_slot != NULL &&
                           size != 0 && off + size <= KEEL_FS_LINE,
                       1)) {
    update(my_slot, my_line, off, size, is_write, site, out);
    return;
  }
  if (size == 0 || size > 4096)
    return;
  record(a, size, is_write, site, out);
}

void __keel_fs_access(void *addr, uint32_t size, uint32_t is_write,
                      const struct keel_fs_site *site) {
  access_any(addr, size, is_write, site, NULL);
}

/* The inline fast path's miss: record, then point the site's cache at the
 * slot and counter just used. */
void __keel_fs_access_cached(void *addr, uint32_t size, uint32_t is_write,
                             const struct keel_fs_site *site,
                             struct keel_fs_cache *cache) {
  access_any(addr, size, is_write, site, cache);
}

void __keel_fs_alloc(void *ptr, uint64_t size,
                     const struct keel_fs_site *site) {
  if (!ptr || !size)
    return;
  if (atomic_load_explicit(&state, memory_order_relaxed) != 2) {
    if (atomic_load(&state) == 0)
      init();
    if (atomic_load(&state) != 2)
      return;
  }
  if (!allocs)
    return;
  uint64_t start = (uint64_t)(uintptr_t)ptr;
  uint64_t h = (start * 0x9E3779B97F4A7C15ull) >> 20;
  for (uint64_t probe = 0; probe < 32; ++probe) {
    struct alloc *a = &allocs[(h + probe) & (KEEL_FS_ALLOCS - 1)];
    uint64_t cur = atomic_load_explicit(&a->start, memory_order_acquire);
    if (cur != start) {
      uint64_t zero = 0;
      if (cur != 0 ||
          (!atomic_compare_exchange_strong(&a->start, &zero, start) &&
           zero != start))
        continue;
    }
    atomic_store_explicit(&a->size, size, memory_order_relaxed);
    atomic_store_explicit(&a->site, site, memory_order_relaxed);
    return;
  }
  atomic_fetch_add_explicit(&dropped_allocs, 1, memory_order_relaxed);
}

static int cmp_u64(const void *x, const void *y) {
  uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
  return a < b ? -1 : a > b;
}

static int first_object(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  *(uint64_t *)data = info->dlpi_addr; /* the main program comes first */
  return 1;
}

/* Print a string with \, space, newline and non-printables escaped, so a
 * report line stays one line and whitespace-separated. */
static void put_escaped(FILE *f, const char *s) {
  if (!s || !*s) {
    fputs("-", f);
    return;
  }
  for (; *s; ++s) {
    unsigned char c = (unsigned char)*s;
    if (c == '\\' || c <= ' ' || c >= 127)
      fprintf(f, "\\x%02x", c);
    else
      fputc(c, f);
  }
}

/* The report's name: KEEL_FS_OUT (default keelfs.out) with "%p" replaced by
 * the process id (a forked child would otherwise overwrite its parent's
 * report). 0, or -1 after saying why there is none. */
static int report_path(char out[PATH_MAX]) {
  const char *env = getenv("KEEL_FS_OUT");
  if (!env || !*env)
    env = "keelfs.out";
  if (strlen(env) >= PATH_MAX) {
    fprintf(stderr, "keelfs: KEEL_FS_OUT is longer than PATH_MAX\n");
    return -1;
  }
  size_t o = 0;
  for (const char *c = env; *c; ++c) {
    if (c[0] == '%' && c[1] == 'p') {
      int n = snprintf(out + o, PATH_MAX - o, "%ld", (long)getpid());
      if (n < 0 || (size_t)n >= PATH_MAX - o) {
        fprintf(stderr, "keelfs: KEEL_FS_OUT is too long\n");
        return -1;
      }
      o += (size_t)n;
      ++c;
    } else {
      if (o + 1 >= PATH_MAX) {
        fprintf(stderr, "keelfs: KEEL_FS_OUT is too long\n");
        return -1;
      }
      out[o++] = *c;
    }
  }
  out[o] = 0;
  return 0;
}

/* The header records: version, line size, sampling, executable, load bias,
 * threads and what the tables dropped. */
static void write_header(FILE *f) {
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[n > 0 ? n : 0] = 0;
  uint64_t bias = 0;
  dl_iterate_phdr(first_object, &bias);
  fprintf(f, "keel-fs 1\nline-size %d\nsample %u\nexe ", KEEL_FS_LINE,
          sample_every);
  put_escaped(f, exe);
  fprintf(f, "\nbias 0x%llx\nthreads %u\n", (unsigned long long)bias,
          atomic_load(&next_tid));
  fprintf(f, "dropped %llu %llu %llu\n",
          (unsigned long long)atomic_load(&dropped_table),
          (unsigned long long)atomic_load(&dropped_slots),
          (unsigned long long)atomic_load(&dropped_sites));
}

/* " FUNCTION FILE\n": the end of a site or alloc record. */
static void put_site_names(FILE *f, const struct keel_fs_site *site) {
  put_escaped(f, site->func);
  fputc(' ', f);
  put_escaped(f, site->file);
  fputc('\n', f);
}

/* One 'access' record per thread slot of every line, each followed by its
 * 'site' records. */
static void write_accesses(FILE *f) {
  for (uint64_t i = 0; i < table_lines; ++i) {
    struct entry *e = &table[i];
    uint64_t key = atomic_load(&e->key);
    if (!key)
      continue;
    for (int j = 0; j < KEEL_FS_SLOTS; ++j) {
      struct slot *s = &e->slots[j];
      uint32_t t = atomic_load(&s->tid);
      if (!t)
        continue;
      fprintf(f, "access 0x%llx %u 0x%016llx 0x%016llx %llu %llu\n",
              (unsigned long long)((key - 1) * KEEL_FS_LINE), t - 1,
              (unsigned long long)atomic_load(&s->rmask),
              (unsigned long long)atomic_load(&s->wmask),
              (unsigned long long)atomic_load(&s->reads),
              (unsigned long long)atomic_load(&s->writes));
      for (int k = 0; k < KEEL_FS_SITES; ++k) {
        const struct keel_fs_site *site = atomic_load(&s->site[k]);
        if (!site)
          break;
        fprintf(f, "site %llu %u %u ",
                (unsigned long long)atomic_load(&s->sitecount[k]), site->line,
                site->col);
        put_site_names(f, site);
      }
    }
  }
}

/* KEEL_FS_STATS=1: how many recorded accesses called the runtime (the
 * rest were counted by the pass's inline fast path). */
static void print_call_stats(void) {
  uint64_t calls = 0, total = atomic_load(&dropped_sites);
  for (uint64_t i = 0; i < table_lines; ++i) {
    if (!atomic_load(&table[i].key))
      continue;
    for (int j = 0; j < KEEL_FS_SLOTS; ++j) {
      struct slot *s = &table[i].slots[j];
      calls += atomic_load(&s->calls);
      for (int k = 0; k < KEEL_FS_SITES; ++k)
        total += atomic_load(&s->sitecount[k]);
    }
  }
  fprintf(stderr,
          "keelfs: %llu of %llu recorded accesses called the runtime, "
          "%llu were counted inline\n",
          (unsigned long long)calls, (unsigned long long)total,
          (unsigned long long)(total - calls));
}

/* The start addresses of (at most max) lines that two or more threads
 * touched, sorted. */
static size_t shared_lines(uint64_t *shared, size_t max) {
  size_t nshared = 0;
  for (uint64_t i = 0; i < table_lines && nshared < max; ++i) {
    struct entry *e = &table[i];
    uint64_t key = atomic_load(&e->key);
    if (key && atomic_load(&e->slots[1].tid))
      shared[nshared++] = (key - 1) * KEEL_FS_LINE;
  }
  qsort(shared, nshared, sizeof shared[0], cmp_u64);
  return nshared;
}

/* Whether [start, start + size) overlaps one of the sorted lines. */
static int overlaps_line(const uint64_t *shared, size_t nshared,
                         uint64_t start, uint64_t size) {
  /* first shared line ending after start */
  size_t lo = 0, hi = nshared;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (shared[mid] + KEEL_FS_LINE <= start)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < nshared && shared[lo] < start + size;
}

/* An 'alloc' record for every allocation overlapping a line that two or
 * more threads touched. */
static void write_shared_allocs(FILE *f) {
  enum { MAX_SHARED = 4096 };
  static uint64_t shared[MAX_SHARED];
  size_t nshared = shared_lines(shared, MAX_SHARED);
  for (uint64_t i = 0; allocs && nshared && i < KEEL_FS_ALLOCS; ++i) {
    struct alloc *a = &allocs[i];
    uint64_t start = atomic_load(&a->start), size = atomic_load(&a->size);
    const struct keel_fs_site *site = atomic_load(&a->site);
    if (!start || !size || !site)
      continue;
    if (!overlaps_line(shared, nshared, start, size))
      continue;
    fprintf(f, "alloc 0x%llx %llu %u %u ", (unsigned long long)start,
            (unsigned long long)size, site->line, site->col);
    put_site_names(f, site);
  }
}

/* At exit: the report, written to a temporary file and renamed into place
 * (a reader never sees half of one). */
static void write_report(void) {
  int expect = 2;
  if (!atomic_compare_exchange_strong(&state, &expect, 3))
    return;
  char out[PATH_MAX];
  if (report_path(out) != 0)
    return;
  char tmp[PATH_MAX + 32];
  if (snprintf(tmp, sizeof tmp, "%s.tmp%ld", out, (long)getpid()) >=
      (int)sizeof tmp) {
    fprintf(stderr, "keelfs: KEEL_FS_OUT is too long\n");
    return;
  }
  FILE *f = fopen(tmp, "w");
  if (!f) {
    fprintf(stderr, "keelfs: cannot write %s: %s\n", tmp, strerror(errno));
    return;
  }
  write_header(f);
  write_accesses(f);
  if (stats_on)
    print_call_stats();
  write_shared_allocs(f);
  fputs("end\n", f);
  if (fclose(f) != 0 || rename(tmp, out) != 0) {
    fprintf(stderr, "keelfs: cannot write %s: %s\n", out, strerror(errno));
    unlink(tmp);
  }
}
