// libFuzzer target: readFdata (BOLT fdata text), then writeFdata of what it
// accepted.
#include "FuzzCommon.h"
#include "keel/Profile/Formats.h"
using namespace keel;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  auto P = readFdata(keel_fuzz::text(Data, Size), "fuzz.fdata");
  if (!P) {
    llvm::consumeError(P.takeError());
    return 0;
  }
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  writeFdata(*P, OS);
  return 0;
}
