// libFuzzer target: readCallgrind against a tiny static binary assembled at
// build time from test/Inputs/callgrind/tiny.s (KEEL_FUZZ_TINY), opened once.
#include "FuzzCommon.h"
#include "keel/Profile/Binary.h"
#include "keel/Profile/Formats.h"
#include <cstdio>
#include <cstdlib>
#include <memory>
using namespace keel;

static std::unique_ptr<Binary> Tiny;

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  auto B = Binary::open(KEEL_FUZZ_TINY);
  if (!B) {
    llvm::errs() << "fuzz-callgrind: " << llvm::toString(B.takeError()) << "\n";
    std::exit(1);
  }
  Tiny = std::move(*B);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  QualityReport Q;
  keel_fuzz::consume(
      readCallgrind(keel_fuzz::text(Data, Size), "fuzz.callgrind", *Tiny, Q));
  return 0;
}
