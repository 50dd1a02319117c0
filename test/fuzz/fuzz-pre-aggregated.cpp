// libFuzzer target: readPreAggregated (perf2bolt --pa text), then
// writePreAggregated of what it accepted.
#include "FuzzCommon.h"
#include "keel/Profile/Formats.h"
using namespace keel;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  QualityReport Q;
  auto P = readPreAggregated(keel_fuzz::text(Data, Size), "fuzz.pa", nullptr, Q);
  if (!P) {
    llvm::consumeError(P.takeError());
    return 0;
  }
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  writePreAggregated(*P, OS);
  return 0;
}
