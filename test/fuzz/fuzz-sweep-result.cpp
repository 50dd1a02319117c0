// libFuzzer target: the sweep result JSON (what layout-sweep-report reads):
// llvm::json::parse then fromJSON(SweepResult).
#include "FuzzCommon.h"
#include "keel/SweepReport/Result.h"
#include "llvm/Support/JSON.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  auto V = llvm::json::parse(keel_fuzz::text(Data, Size));
  if (!V) {
    llvm::consumeError(V.takeError());
    return 0;
  }
  keel::sweep::SweepResult R;
  llvm::json::Path::Root Root("result");
  if (!keel::sweep::fromJSON(*V, R, Root))
    llvm::consumeError(Root.getError());
  return 0;
}
