// libFuzzer target: parseJournal (layout-sweep's JSON-lines journal).
#include "FuzzCommon.h"
#include "keel/Sweep/Journal.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  keel_fuzz::consume(
      keel::sweep::parseJournal(keel_fuzz::text(Data, Size), "fuzz.journal"));
  return 0;
}
