// Crashes in exactly one layout (an environment of 64 pad bytes), exits
// non-zero or hangs when asked to, otherwise does a little deterministic work.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv) {
  const char *Pad = getenv("KEEL_ENV_PAD");
  if (argc > 1 && !strcmp(argv[1], "fail")) {
    fprintf(stderr, "crashy: asked to fail\n");
    return 1;
  }
  if (argc > 1 && !strcmp(argv[1], "hang"))
    sleep(60);
  if (Pad && strlen(Pad) == 64) {
    fprintf(stderr, "crashy: this layout crashes\n");
    abort();
  }
  unsigned long S = 1;
  for (int I = 0; I < 1000; ++I)
    S = S * 6364136223846793005ul + 1442695040888963407ul;
  printf("%lu\n", S & 0xff);
  return 0;
}
