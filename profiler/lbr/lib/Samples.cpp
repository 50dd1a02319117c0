//===- Samples.cpp - load LBR samples for the time analyses ---------------===//
#include "keel/LBR/Samples.h"

#include "keel/Profile/Binary.h"
#include "keel/Profile/PerfData.h"
#include "keel/Record/PerfDataFile.h"
#include "keel/Record/SampleFile.h"
#include "keel/Support/Input.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/Text.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <charconv>

using namespace llvm;

namespace keel {

void printJSON(json::Value V, raw_ostream &OS) {
  std::string Text = formatv("{0:2}", V).str();
  // Re-print each number that has a fraction or an exponent. Strings in
  // our documents hold names and hex addresses, so a digit run inside a
  // string is only touched when it looks like a float, which names do not.
  std::string Out;
  Out.reserve(Text.size());
  bool InString = false;
  for (size_t I = 0; I < Text.size();) {
    char C = Text[I];
    if (C == '"' && (I == 0 || Text[I - 1] != '\\'))
      InString = !InString;
    if (InString || !(isDigit(C) || C == '-')) {
      Out += C;
      ++I;
      continue;
    }
    size_t J = I + 1;
    while (J < Text.size() &&
           (isDigit(Text[J]) || Text[J] == '.' || Text[J] == 'e' ||
            Text[J] == 'E' || Text[J] == '-' || Text[J] == '+'))
      ++J;
    StringRef Num(Text.data() + I, J - I);
    double D;
    if (Num.find_first_of(".eE") != StringRef::npos && !Num.getAsDouble(D)) {
      char Buf[64];
      auto R = std::to_chars(Buf, Buf + sizeof(Buf), D);
      Out.append(Buf, R.ptr);
    } else {
      Out += Num;
    }
    I = J;
  }
  OS << Out << '\n';
}

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
  auto Buf = readInputFile(Path, InputKind::Profile);
  if (!Buf)
    return Buf.takeError();
  StringRef Text = (*Buf)->getBuffer();
  SampleSet S;
  S.FileName = Path.str();
  if (perfdata::looksLikePerfData(Text)) {
    auto F = perfdata::File::fromBuffer(std::move(*Buf), Path);
    if (!F)
      return F.takeError();
    auto Rec = readPerfDataRecording(**F);
    if (!Rec)
      return Rec.takeError();
    S.Filter = Rec->Info.LBR;
    AddressProfile AP =
        toAddressProfile(*Rec, Bin, Quality, Opts.BinaryPathInProfile);
    S.Samples = std::move(AP.Samples);
  } else if (Text.starts_with("# keel-samples")) {
    auto Rec = readSampleFile(Text, Path);
    if (!Rec)
      return Rec.takeError();
    S.Filter = Rec->Info.LBR;
    AddressProfile AP =
        toAddressProfile(*Rec, Bin, Quality, Opts.BinaryPathInProfile);
    S.Samples = std::move(AP.Samples);
  } else {
    // perf script text: binary data (a zero-filled or random file) is
    // refused from its first bytes, not parsed to its end.
    if (std::optional<size_t> At = firstBinaryByte(Text))
      return binaryDataError(Path, Text, *At);
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
