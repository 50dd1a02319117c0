// Does more work the larger its environment: not layout-independent, so a
// sweep must say its instruction counts differ rather than blame the layout.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(void) {
  const char *Pad = getenv("KEEL_ENV_PAD");
  unsigned long N = 20000 + (Pad ? strlen(Pad) : 0) * 500;
  unsigned long S = 1;
  for (unsigned long I = 0; I < N; ++I)
    S = S * 6364136223846793005ul + 1442695040888963407ul;
  printf("%lu\n", S & 0xff);
  return 0;
}
