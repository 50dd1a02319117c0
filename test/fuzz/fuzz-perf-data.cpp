// libFuzzer target: the perf.data reader (keel/Profile/PerfData.h), file and
// pipe mode, through the profile builder (readPerfData, no binary) and a
// visitor that decodes every branch entry and group-read value; records
// go through the time-order queue (keel/Profile/PerfOrderedRecords.h).
#include "FuzzCommon.h"
#include "keel/Profile/Formats.h"
#include "keel/Profile/PerfData.h"
#include "llvm/Support/MemoryBuffer.h"
using namespace keel;

namespace {
struct Touch : perfdata::Visitor {
  uint64_t Sum = 0;
  llvm::Error sample(const perfdata::Sample &S) override {
    for (uint64_t I = 0; I < S.NumBranches; ++I) {
      perfdata::Branch B = S.branch(I);
      Sum += B.From ^ B.To ^ B.Flags;
      Sum += perfdata::branchTypeName(B.type(), B.newType()).size();
    }
    for (uint64_t I = 0; I < S.NumValues; ++I)
      Sum += S.value(I) ^ S.valueId(I);
    return llvm::Error::success();
  }
  llvm::Error mmap(const perfdata::Mmap &M) override {
    Sum += M.Path.size() + M.BuildID.size();
    return llvm::Error::success();
  }
  llvm::Error comm(const perfdata::Comm &C) override {
    Sum += C.Name.size();
    return llvm::Error::success();
  }
};
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  auto F = perfdata::File::fromBuffer(
      llvm::MemoryBuffer::getMemBuffer(keel_fuzz::text(Data, Size), "fuzz",
                                       /*RequiresNullTerminator=*/false),
      "fuzz.perf.data");
  if (!F) {
    keel_fuzz::consume(F.takeError());
    return 0;
  }
  // The time-order queue with its default limit, and with one so small
  // that it hands out half its records at almost every push.
  if (Size & 2)
    (*F)->setOrderLimit(256);
  Touch T;
  keel_fuzz::consume((*F)->read(T));
  QualityReport Q;
  PerfScriptOptions Opts;
  Opts.KeepSamples = Size & 1;
  keel_fuzz::consume(readPerfData(**F, nullptr, Q, Opts));
  return 0;
}
