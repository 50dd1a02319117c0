// libFuzzer target: parsePlan (the plan file, YAML).
#include "FuzzCommon.h"
#include "keel/Plan/Plan.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  keel_fuzz::consume(keel::parsePlan(keel_fuzz::text(Data, Size), "fuzz.plan"));
  return 0;
}
