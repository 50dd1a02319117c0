#include <stdio.h>

#ifdef NO_START
/* nosample: started without the C runtime; it exits at once, so a profile
   of it has no sample in it. */
void _start(void) {
  __asm__ volatile("mov $60, %eax\n\txor %edi, %edi\n\tsyscall");
}
#else
int main(void) {
  puts("other");
  return 0;
}
#endif
