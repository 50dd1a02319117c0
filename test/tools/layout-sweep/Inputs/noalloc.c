// A deterministic program that makes no heap allocation at all: its output
// goes through write(2), not stdio (whose buffer comes from malloc).
#include <unistd.h>
int main(void) {
  unsigned long S = 1;
  for (int I = 0; I < 20000; ++I)
    S = S * 6364136223846793005ul + 1442695040888963407ul;
  char Out[2] = {(char)('a' + (S & 15)), '\n'};
  return write(1, Out, 2) == 2 ? 0 : 1;
}
