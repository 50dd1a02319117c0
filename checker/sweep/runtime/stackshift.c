/*===- stackshift.c - LD_PRELOAD shim that shifts the stack --------------===*
 *
 * layout-sweep's stack axis: with LD_PRELOAD=libkeelstackshift.so and
 * KEEL_STACK_SHIFT=N, main and everything it calls run N bytes lower on the
 * stack than with N=0, while the environment, argv and the auxiliary vector
 * stay where they are. (The env axis moves the stack by growing the
 * environment instead; that also moves the environment strings and changes
 * what getenv scans.)
 *
 * How: the executable's _start calls __libc_start_main through its GOT; a
 * preloaded definition comes first in the lookup, so this one runs. It
 * reserves N bytes with alloca and calls glibc's own __libc_start_main
 * (dlsym(RTLD_NEXT)) from below them; that calls main, which never returns
 * here (exit). Every variant runs this same frame, so only N differs.
 *
 * KEEL_STACK_SHIFT is read from the initial environment (envp, right after
 * argv) before anything else runs. layout-sweep writes it with a fixed
 * width (7 digits, zero-padded), so the environment has the same size in
 * every variant. It must be decimal, a multiple of 16 (the x86-64 ABI keeps
 * the stack 16-byte aligned at calls) and at most 1 MiB; anything else stops
 * the program with a message and exit code 125 (the sweep reports that
 * variant as failed). An unset or empty KEEL_STACK_SHIFT shifts nothing.
 *
 * A statically linked program never loads this library (LD_PRELOAD is the
 * dynamic loader's), so layout-sweep refuses --axis=stack for one.
 *
 *===----------------------------------------------------------------------===*/
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <alloca.h>
#include <dlfcn.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
#define MAX_SHIFT (1u << 20)

typedef int (*MainFn)(int, char **, char **);
typedef int (*StartFn)(MainFn, int, char **, void (*)(void), void (*)(void),
                       void (*)(void), void *);

static void die(const char *Msg) {
  static const char Prefix[] = "libkeelstackshift: ";
  ssize_t Ignored = write(2, Prefix, sizeof(Prefix) - 1);
  Ignored = write(2, Msg, strlen(Msg));
  Ignored = write(2, "\n", 1);
  (void)Ignored;
  _exit(125);
}

/* KEEL_STACK_SHIFT from the environment block the kernel passed. */
static size_t shiftOf(char **Envp) {
  static const char Name[] = "KEEL_STACK_SHIFT=";
  for (char **E = Envp; *E; ++E) {
    if (strncmp(*E, Name, sizeof(Name) - 1))
      continue;
    size_t V = 0;
    for (const char *P = *E + sizeof(Name) - 1; *P; ++P) {
      if (*P < '0' || *P > '9')
        die("KEEL_STACK_SHIFT must be a decimal byte count");
      V = V * 10 + (size_t)(*P - '0');
      if (V > MAX_SHIFT)
        die("KEEL_STACK_SHIFT is above 1 MiB (1048576)");
    }
    if (V % 16)
      die("KEEL_STACK_SHIFT must be a multiple of 16 (stack alignment)");
    return V;
  }
  return 0;
}

EXPORT int __libc_start_main(MainFn Main, int Argc, char **Argv,
                             void (*Init)(void), void (*Fini)(void),
                             void (*RtldFini)(void), void *StackEnd) {
  StartFn Real = (StartFn)dlsym(RTLD_NEXT, "__libc_start_main");
  if (!Real)
    die("cannot find glibc's __libc_start_main (dlsym RTLD_NEXT)");
  size_t N = shiftOf(Argv + Argc + 1);
  /* The same frame in every variant; N more bytes below it. The asm uses
   * keep the block alive across the call (no tail call, not optimised out). */
  char *Pad = alloca(N);
  __asm__ volatile("" : : "r"(Pad) : "memory");
  int R = Real(Main, Argc, Argv, Init, Fini, RtldFini, StackEnd);
  __asm__ volatile("" : : "r"(Pad) : "memory");
  return R;
}
