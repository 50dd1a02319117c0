/*===- heapshift.c - LD_PRELOAD shim that shifts heap allocations --------===*
 *
 * layout-sweep's heap axis: with LD_PRELOAD=libkeelheapshift.so and
 * KEEL_HEAP_SHIFT=N, every allocation returned by malloc, calloc, realloc,
 * reallocarray, memalign, posix_memalign, aligned_alloc, valloc and pvalloc
 * starts N bytes later than with N=0, so the program's heap data moves
 * relative to cache sets and pages while the program does the same work.
 *
 * Each block is [glibc block: Offset bytes ... header | user data]. The
 * 32-byte header just before the user pointer holds the requested size, the
 * offset back to the glibc block and a tag (user pointer ^ offset ^ magic);
 * free/realloc/malloc_usable_size recognise our blocks by the tag and hand
 * anything else (a pointer from before the shim was active) to glibc as is.
 * Offset = 32 + N for malloc (N is a multiple of 16, so results stay 16-byte
 * aligned), rounded up to the alignment for the aligned allocators.
 *
 * KEEL_HEAP_SHIFT must be a decimal multiple of 16 up to 1 MiB; anything else
 * stops the program at its first allocation with a message and exit code 125
 * (the sweep reports that variant as failed). The real allocator is reached
 * through glibc's __libc_* entry points, so no dlsym (which may allocate).
 *
 * KEEL_HEAP_COUNT=FILE: the shim also counts the allocations it serves
 * (each call of the functions above, realloc of a foreign block included)
 * and, when the process exits normally, appends "PID COUNT" as one line to
 * FILE. The automatic sweep runs the program once that way and skips the
 * heap axis when it allocated nothing (docs/sweep.md). A process that never
 * exits normally writes nothing: no line is "not known", never zero.
 *
 *===----------------------------------------------------------------------===*/
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

#define EXPORT __attribute__((visibility("default")))
#define HEADER 32u
#define MAX_SHIFT (1u << 20)
#define MAGIC ((uintptr_t)0x6b65656c68656170ull) /* "keelheap" */

typedef struct {
  size_t Size;      /* requested bytes */
  size_t Offset;    /* user pointer - glibc block */
  uintptr_t Tag;    /* user ^ Offset ^ MAGIC */
  size_t Reserved;
} Header;

static size_t Shift;
static int Ready; /* 0: not read yet, 1: read */
static unsigned long long Allocations; /* KEEL_HEAP_COUNT */

static void counted(void) {
  __atomic_add_fetch(&Allocations, 1, __ATOMIC_RELAXED);
}

/* "PID COUNT\n" into Buf (no stdio: it allocates). */
static size_t countLine(char *Buf, size_t Size, unsigned long long Pid,
                        unsigned long long Count) {
  char Tmp[48];
  size_t N = 0, T;
  unsigned long long Vals[2] = {Pid, Count};
  for (int I = 0; I < 2; ++I) {
    T = 0;
    do
      Tmp[T++] = (char)('0' + Vals[I] % 10);
    while ((Vals[I] /= 10) && T < sizeof(Tmp));
    while (T && N < Size)
      Buf[N++] = Tmp[--T];
    if (N < Size)
      Buf[N++] = I ? '\n' : ' ';
  }
  return N;
}

__attribute__((destructor)) static void writeCount(void) {
  const char *Path = getenv("KEEL_HEAP_COUNT");
  if (!Path || !*Path)
    return;
  int Fd = open(Path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (Fd < 0)
    return;
  char Line[64];
  size_t N = countLine(Line, sizeof(Line), (unsigned long long)getpid(),
                       __atomic_load_n(&Allocations, __ATOMIC_RELAXED));
  ssize_t Ignored = write(Fd, Line, N); /* one write: lines never interleave */
  (void)Ignored;
  close(Fd);
}

static void die(const char *Msg) {
  static const char Prefix[] = "libkeelheapshift: ";
  ssize_t Ignored = write(2, Prefix, sizeof(Prefix) - 1);
  Ignored = write(2, Msg, strlen(Msg));
  Ignored = write(2, "\n", 1);
  (void)Ignored;
  _exit(125);
}

/* Read KEEL_HEAP_SHIFT on the first allocation (which may come before any
 * constructor runs). getenv does not allocate. */
static size_t shift(void) {
  if (__atomic_load_n(&Ready, __ATOMIC_ACQUIRE))
    return Shift;
  const char *S = getenv("KEEL_HEAP_SHIFT");
  size_t V = 0;
  if (S && *S) {
    for (const char *P = S; *P; ++P) {
      if (*P < '0' || *P > '9')
        die("KEEL_HEAP_SHIFT must be a decimal byte count");
      V = V * 10 + (size_t)(*P - '0');
      if (V > MAX_SHIFT)
        die("KEEL_HEAP_SHIFT is above 1 MiB (1048576)");
    }
    if (V % 16)
      die("KEEL_HEAP_SHIFT must be a multiple of 16 (malloc alignment)");
  }
  Shift = V;
  __atomic_store_n(&Ready, 1, __ATOMIC_RELEASE);
  return V;
}

static Header *headerOf(void *User) { return (Header *)((char *)User - HEADER); }

static int isOurs(void *User) {
  Header *H = headerOf(User);
  return H->Tag == ((uintptr_t)User ^ H->Offset ^ MAGIC);
}

/* Place a user block Offset bytes into Block and fill in its header. */
static void *finish(void *Block, size_t Offset, size_t Size) {
  if (!Block)
    return NULL;
  char *User = (char *)Block + Offset;
  Header *H = headerOf(User);
  H->Size = Size;
  H->Offset = Offset;
  H->Tag = (uintptr_t)User ^ Offset ^ MAGIC;
  H->Reserved = 0;
  return User;
}

static int addOverflows(size_t A, size_t B, size_t *Sum) {
  return __builtin_add_overflow(A, B, Sum);
}

static void *allocAligned(size_t Align, size_t Size) {
  counted();
  if (Align < 16)
    Align = 16;
  size_t Offset = HEADER + shift();
  Offset = (Offset + Align - 1) & ~(Align - 1);
  size_t Total;
  if (addOverflows(Size, Offset, &Total)) {
    errno = ENOMEM;
    return NULL;
  }
  void *Block = Align == 16 ? __libc_malloc(Total) : __libc_memalign(Align, Total);
  return finish(Block, Offset, Size);
}

EXPORT void *malloc(size_t Size) { return allocAligned(16, Size); }

EXPORT void free(void *P) {
  if (!P)
    return;
  if (!isOurs(P)) {
    __libc_free(P);
    return;
  }
  Header *H = headerOf(P);
  void *Block = (char *)P - H->Offset;
  H->Tag = 0; /* a double free is not mistaken for ours again */
  __libc_free(Block);
}

EXPORT void *calloc(size_t N, size_t Size) {
  size_t Bytes;
  if (__builtin_mul_overflow(N, Size, &Bytes)) {
    errno = ENOMEM;
    return NULL;
  }
  void *P = malloc(Bytes);
  if (P)
    memset(P, 0, Bytes);
  return P;
}

EXPORT size_t malloc_usable_size(void *P) {
  if (!P)
    return 0;
  /* Foreign blocks: their size is not known here; 0 is allowed when unsure. */
  return isOurs(P) ? headerOf(P)->Size : 0;
}

EXPORT void *realloc(void *P, size_t Size) {
  if (!P)
    return malloc(Size);
  if (Size == 0) {
    free(P);
    return NULL;
  }
  if (!isOurs(P)) {
    counted();
    return __libc_realloc(P, Size);
  }
  void *Q = malloc(Size);
  if (!Q)
    return NULL; /* P stays valid, as realloc requires */
  size_t Old = headerOf(P)->Size;
  memcpy(Q, P, Old < Size ? Old : Size);
  free(P);
  return Q;
}

EXPORT void *reallocarray(void *P, size_t N, size_t Size) {
  size_t Bytes;
  if (__builtin_mul_overflow(N, Size, &Bytes)) {
    errno = ENOMEM;
    return NULL;
  }
  return realloc(P, Bytes);
}

static int isPowerOf2(size_t X) { return X && !(X & (X - 1)); }

EXPORT void *memalign(size_t Align, size_t Size) {
  if (!isPowerOf2(Align)) {
    errno = EINVAL;
    return NULL;
  }
  return allocAligned(Align, Size);
}

EXPORT int posix_memalign(void **Out, size_t Align, size_t Size) {
  if (!isPowerOf2(Align) || Align % sizeof(void *))
    return EINVAL;
  void *P = allocAligned(Align, Size);
  if (!P)
    return ENOMEM;
  *Out = P;
  return 0;
}

EXPORT void *aligned_alloc(size_t Align, size_t Size) { return memalign(Align, Size); }

EXPORT void *valloc(size_t Size) {
  return allocAligned((size_t)sysconf(_SC_PAGESIZE), Size);
}

EXPORT void *pvalloc(size_t Size) {
  size_t Page = (size_t)sysconf(_SC_PAGESIZE);
  size_t Rounded;
  if (addOverflows(Size, Page - 1, &Rounded)) {
    errno = ENOMEM;
    return NULL;
  }
  return allocAligned(Page, Rounded & ~(Page - 1));
}
