// libFuzzer target: readSampleFile (keel-samples v1 text), then the writers
// of what it accepted.
#include "FuzzCommon.h"
#include "keel/Record/SampleFile.h"
using namespace keel;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  auto R = readSampleFile(keel_fuzz::text(Data, Size), "fuzz.samples");
  if (!R) {
    llvm::consumeError(R.takeError());
    return 0;
  }
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  writeSampleFile(*R, OS);
  exportPerfScript(*R, OS);
  return 0;
}
