// Hot and never-run functions interleaved, so the default (source) order
// is not the planned one.
#define NOINLINE __attribute__((noinline))
NOINLINE unsigned op_rare_a(unsigned x) { return x * 2654435761u + 7; }
NOINLINE unsigned op_fold(unsigned a, unsigned b) { return (a << 5) ^ (a >> 3) ^ b; }
NOINLINE unsigned op_rare_b(unsigned x) { return x ^ (x >> 11) ^ 0x9e3779b9u; }
NOINLINE unsigned op_mix(unsigned x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  return x ^ (x >> 15);
}
NOINLINE unsigned op_rare_c(unsigned x) { return x + (x << 9) + 3; }
NOINLINE unsigned op_step(unsigned x) { return x * 1664525u + 1013904223u; }
