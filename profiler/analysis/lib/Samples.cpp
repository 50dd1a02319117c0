//===- Samples.cpp - load LBR samples for the time analyses ---------------===//
#include "keel/Analysis/Samples.h"

#include "keel/Profile/Binary.h"
#include "keel/Record/SampleFile.h"
#include "keel/Support/OutputFile.h"

#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;

namespace keel {

std::string functionName(const Binary &Bin, uint64_t Addr) {
  if (const SymbolInfo *S = Bin.functionAt(Addr))
    return S->Name;
  return "[unknown]";
}

static void noteCounters(SampleSet &S) {
  S.HasCounters = !S.Samples.empty();
  for (const RawSample &R : S.Samples) {
    if (!R.Cycles || !R.Instructions)
      S.HasCounters = false;
    for (const LBREntry &E : R.Stack)
      if (E.Cycles)
        S.HasEntryCycles = true;
  }
}

Expected<SampleSet> loadSamples(StringRef Path, const Binary &Bin,
                                QualityReport &Quality,
                                const PerfScriptOptions &Opts) {
  auto Buf = MemoryBuffer::getFileOrSTDIN(Path, /*IsText=*/true);
  if (!Buf)
    return inputError(Path, 0, "cannot read: {0}", Buf.getError().message());
  StringRef Text = (*Buf)->getBuffer();
  SampleSet S;
  S.FileName = Path.str();
  if (Text.starts_with("# keel-samples")) {
    auto Rec = readSampleFile(Text, Path);
    if (!Rec)
      return Rec.takeError();
    S.Filter = Rec->Info.LBR;
    AddressProfile AP = toAddressProfile(*Rec, Bin, Quality);
    S.Samples = std::move(AP.Samples);
  } else {
    PerfScriptOptions PO = Opts;
    PO.KeepSamples = true;
    auto AP = readPerfScript(Text, Path, &Bin, Quality, PO);
    if (!AP)
      return AP.takeError();
    S.Samples = std::move(AP->Samples);
  }
  if (S.Samples.empty())
    return inputError(Path, 0, "no samples");
  noteCounters(S);
  return S;
}

} // namespace keel
