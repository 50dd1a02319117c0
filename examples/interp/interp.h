// A layout-sensitive interpreter loop (see README.md).
#ifndef KEEL_EXAMPLE_INTERP_H
#define KEEL_EXAMPLE_INTERP_H
#include <stdint.h>

#define NOINLINE __attribute__((noinline))
#include "ops.inc"

typedef struct Insn {
  uint32_t Op, Arg;
} Insn;
typedef uint64_t (*Handler)(uint64_t, const Insn *);

// Handlers[0..NUM_OPS-1] are op_00.., Handlers[NUM_OPS] is op_loop (jump back
// to the start of the program, or stop).
extern Handler const Handlers[NUM_OPS + 1];

// Threaded dispatch: every handler ends in its own indirect tail call, so the
// successor of each bytecode is predicted per handler, as in real
// interpreters (and in cachegrind's per-address indirect-branch predictor).
#define DISPATCH(x, next)                                                      \
  do {                                                                         \
    const Insn *N_ = (next);                                                   \
    __attribute__((musttail)) return Handlers[N_->Op](x, N_);                  \
  } while (0)

#define DECLARE_OP(n) uint64_t op_##n(uint64_t, const Insn *);
FOR_EACH_OP(DECLARE_OP)
#undef DECLARE_OP
#define DECLARE_COLD(n) uint64_t cold_##n(uint64_t);
FOR_EACH_COLD(DECLARE_COLD)
#undef DECLARE_COLD

#endif
