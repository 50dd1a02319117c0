/* A libc-free program for the planner's unit tests (PlanLayoutTest.cpp),
   built by test/unit/planner/CMakeLists.txt with and without
   -fbasic-block-address-map: _start calls f ten times in a loop. */
volatile int Total;

__attribute__((noinline)) int f(int I) {
  if (I & 1)
    return I + 1;
  return I * 2;
}

void _start(void) {
  int T = 0;
  for (int I = 0; I < 10; ++I)
    T += f(I);
  Total = T;
  __asm__ volatile("mov $60, %eax\n\txor %edi, %edi\n\tsyscall");
  __builtin_unreachable();
}
