// libFuzzer target: the roofline JSON inputs: parseJSON, parseCeilings (both
// scopes), parseKernels, and parseKernelName on the text's first line.
#include "FuzzCommon.h"
#include "keel/Roofline/JSONInput.h"
#include "keel/Roofline/Model.h"
using namespace keel::roofline;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Text = keel_fuzz::text(Data, Size);
  keel_fuzz::consume(parseKernels(Text, "fuzz.json"));
  keel_fuzz::consume(parseKernelName(Text.split('\n').first));
  (void)lineOfKey(Text, "Mband");
  auto V = parseJSON(Text, "fuzz.json");
  if (!V) {
    llvm::consumeError(V.takeError());
    return 0;
  }
  keel_fuzz::consume(parseCeilings(*V, "core", "fuzz.json"));
  keel_fuzz::consume(parseCeilings(*V, "all", "fuzz.json"));
  return 0;
}
