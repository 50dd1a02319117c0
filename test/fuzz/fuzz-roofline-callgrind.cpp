// libFuzzer target: the roofline's own callgrind/cachegrind cost parser.
#include "FuzzCommon.h"
#include "keel/Roofline/Cachegrind.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  keel_fuzz::consume(keel::roofline::parseCallgrind(keel_fuzz::text(Data, Size),
                                                    "fuzz.callgrind"));
  return 0;
}
