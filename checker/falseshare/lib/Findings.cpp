//===- Findings.cpp - what a keelfs report says ---------------------------===//
//
// Names the data at run-time addresses (symbol table, DWARF fields, heap
// allocations of the report), classifies lines, proposes fixes, predicts
// latent false sharing, and writes the report and the plan.
//
//===----------------------------------------------------------------------===//
#include "keel/FalseShare/Findings.h"
#include "keel/FalseShare/Fields.h"
#include "keel/Profile/Binary.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/Text.h"
#include "keel/Support/Diagnostics.h"
#include "keel/Support/Input.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Path.h"

#include <set>

using namespace llvm;
using namespace keel;
using namespace keel::fs;

namespace {

/// "a[1]+3" -> "a[1]": the member or element containing a byte.
std::string stripOffset(std::string S) {
  size_t Plus = S.rfind('+');
  if (Plus != std::string::npos && Plus + 1 < S.size() &&
      S.find_first_not_of("0123456789", Plus + 1) == std::string::npos &&
      S.find(' ') == std::string::npos)
    S.resize(Plus);
  return S;
}

/// What lives at a run-time address.
struct Place {
  const SymbolInfo *Sym = nullptr;
  const HeapAlloc *Heap = nullptr; ///< when not a global
  std::string Base; ///< the heap object's name, without the offset
  uint64_t Offset = 0;
  std::string Name; ///< "counters.hits", "shared_array[1]", "0x7ffd..."
};

class Namer {
public:
  Namer(const RawReport &R, Binary *B) : R(R), B(B) {
    if (B)
      Fields = std::make_unique<FieldNamer>(B->object());
  }
  Place at(uint64_t Addr) {
    Place P;
    uint64_t Link = Addr - R.Bias;
    if (B)
      P.Sym = B->dataAt(Link);
    if (!P.Sym) {
      auto It = llvm::upper_bound(R.Allocs, Addr,
                                  [](uint64_t A, const HeapAlloc &H) {
                                    return A < H.Start;
                                  });
      if (It != R.Allocs.begin() && Addr < std::prev(It)->Start +
                                              std::prev(It)->Size) {
        P.Heap = &*std::prev(It);
        P.Offset = Addr - P.Heap->Start;
        P.Base = formatv("heap({0} bytes at {1}:{2} in {3})",
                         P.Heap->Size, sys::path::filename(P.Heap->Site.File),
                         P.Heap->Site.Line, P.Heap->Site.Function)
                     .str();
        P.Name = P.Base;
        if (P.Offset)
          P.Name += "+" + std::to_string(P.Offset);
        return P;
      }
      P.Name = formatv("{0:x}", Addr).str();
      return P;
    }
    P.Offset = Link - P.Sym->Addr;
    std::optional<std::string> Path = Fields->path(P.Sym->Name, P.Offset);
    P.Name = P.Sym->Name +
             (Path ? *Path
                   : (P.Offset ? "+" + std::to_string(P.Offset) : ""));
    return P;
  }
  /// Name the bytes [Start, End): "a.x" or "a[0] .. a[3]".
  std::string range(uint64_t Start, uint64_t End) {
    Place PA = at(Start), PZ = at(End - 1);
    if (!PA.Sym && !PZ.Sym && !PA.Heap && !PZ.Heap)
      return PA.Name + ".." + PZ.Name +
             " (not a global of the binary: heap, stack or a shared library)";
    if (PA.Heap && PA.Heap == PZ.Heap)
      return formatv("{0} bytes {1}-{2}", PA.Base, PA.Offset, PZ.Offset);
    std::string A = stripOffset(PA.Name), Z = stripOffset(PZ.Name);
    if (A == Z)
      return A;
    return A + " .. " + Z;
  }

private:
  const RawReport &R;
  Binary *B;
  std::unique_ptr<FieldNamer> Fields;
};

std::vector<std::pair<unsigned, unsigned>> runsOf(uint64_t Mask) {
  std::vector<std::pair<unsigned, unsigned>> Out;
  for (unsigned B = 0; B < 64;) {
    if (!(Mask >> B & 1)) {
      ++B;
      continue;
    }
    unsigned E = B;
    while (E < 64 && (Mask >> E & 1))
      ++E;
    Out.push_back({B, E});
    B = E;
  }
  return Out;
}


bool alignedAndPadded(const SymbolInfo *S, unsigned LineSize) {
  return S && S->Addr % LineSize == 0 && S->Size % LineSize == 0;
}


/// The fix for one false-sharing pair of threads on line L, from the last
/// byte the lower writer writes before the higher writer's first byte: align
/// both through the plan (different globals), pad a heap object, keep
/// elements of one array apart, or pad inside one object.
std::string pairFix(const LineRecord &L, const ThreadAccess &A,
                    const ThreadAccess &B, unsigned LineSize, Namer &N,
                    Findings &F) {
  bool AFirst = countr_zero(A.WMask) < countr_zero(B.WMask);
  const ThreadAccess &Lo = AFirst ? A : B, &Hi = AFirst ? B : A;
  unsigned HiFirst = countr_zero(Hi.WMask);
  uint64_t Below = Lo.WMask & ((1ull << HiFirst) - 1);
  unsigned LoLast = 63 - countl_zero(Below);
  Place PLo = N.at(L.Addr + LoLast), PHi = N.at(L.Addr + HiFirst);
  if (PLo.Sym && PHi.Sym && PLo.Sym != PHi.Sym) {
    std::string Reason =
        formatv("written by 2 threads at disjoint bytes of one line "
                "({0} and {1})",
                PLo.Sym->Name, PHi.Sym->Name)
            .str();
    F.plan(PLo.Sym, Reason, LineSize);
    F.plan(PHi.Sym, Reason, LineSize);
    return formatv("align and pad {0} and {1} to {2} bytes (plan "
                   "false-sharing: entries, --plan-out)",
                   PLo.Sym->Name, PHi.Sym->Name, LineSize)
        .str();
  }
  if (PLo.Heap && PLo.Heap == PHi.Heap) {
    unsigned Pad = LoLast + LineSize - HiFirst;
    return formatv("bytes {0} and {1} of the heap object allocated at "
                   "{2}:{3} are written by different threads: insert {4} "
                   "bytes of padding before offset {1} (or allocate with "
                   "aligned_alloc({5}, ...) and start the second part at "
                   "offset {6})",
                   PLo.Offset, PHi.Offset,
                   sys::path::filename(PLo.Heap->Site.File),
                   PLo.Heap->Site.Line, Pad, LineSize,
                   (PLo.Offset / LineSize + 1) * LineSize)
        .str();
  }
  if (!PLo.Sym || !PHi.Sym)
    return formatv("bytes {0} and {1} (not globals of the binary) are "
                   "written by different threads: keep such data {2} bytes "
                   "apart (pad the structure or align each allocation)",
                   PLo.Name, PHi.Name, LineSize)
        .str();
  unsigned Pad = LoLast + LineSize - HiFirst;
  std::string SA = stripOffset(PLo.Name), SB = stripOffset(PHi.Name);
  size_t BA = SA.rfind('['), BB = SB.rfind('[');
  if (BA != std::string::npos && BA == BB && SA.back() == ']' &&
      SB.back() == ']' && SA.compare(0, BA, SB, 0, BB) == 0)
    // Elements of one array: a stride, not padding between two.
    return formatv("{0} and {1} are elements of one array written by "
                   "different threads: give each thread elements at "
                   "least {2} bytes apart (or a {2}-byte aligned, padded "
                   "element type)",
                   SA, SB, LineSize)
        .str();
  // Anywhere in memory, HiFirst must move to LoLast + LineSize; in a
  // line-aligned object, to the next line after LoLast.
  uint64_t AlignedPad = (PLo.Offset / LineSize + 1) * LineSize - PHi.Offset;
  return formatv("{0} and {1} (one object, {2} bytes between them) are "
                 "written by different threads: insert {3} bytes of "
                 "padding before {1} ({5} if {6} is {4}-byte aligned), or "
                 "give each its own {4}-byte aligned line",
                 SA, SB, HiFirst - LoLast - 1, Pad, LineSize, AlignedPad,
                 PLo.Sym->Name)
      .str();
}

/// One shared line as reported: the threads of its sharing pairs, with the
/// bytes and data each touches, the objects on it, and one fix per false
/// pair.
LineView lineView(const LineRecord &L, const LineVerdict &V,
                  const ReportInput &In, Namer &N, Findings &F) {
  const RawReport &R = In.R;
  LineView LV;
  LV.Addr = L.Addr;
  // Lines of the binary's data by link-time address (as llvm-nm shows
  // them); heap and stack lines by run-time address.
  LV.LinkAddr =
      In.Bin && In.Bin->sectionAt(L.Addr - R.Bias) ? L.Addr - R.Bias : L.Addr;
  LV.Kind = V.Kind;
  std::set<unsigned> Involved;
  for (auto &Pr : V.FalsePairs)
    Involved.insert({Pr.first, Pr.second});
  for (auto &Pr : V.TruePairs)
    Involved.insert({Pr.first, Pr.second});
  std::set<std::string> Objects;
  for (unsigned I : Involved) {
    const ThreadAccess &T = L.Threads[I];
    ThreadView TV{
        T.Tid, T.Reads, T.Writes, maskRanges(T.RMask), maskRanges(T.WMask),
        {},    T.Sites};
    for (auto [B, E] : runsOf(T.WMask ? T.WMask : T.RMask)) {
      TV.Written.push_back(N.range(L.Addr + B, L.Addr + E));
      Place Pl = N.at(L.Addr + B);
      Objects.insert(Pl.Sym    ? Pl.Sym->Name
                     : Pl.Heap ? Pl.Base
                               : std::string("(unknown)"));
    }
    LV.Threads.push_back(std::move(TV));
  }
  LV.Objects.assign(Objects.begin(), Objects.end());
  // One fix per false pair: pad apart (same object) or align both
  // (different globals, through the plan).
  std::set<std::string> Fixes;
  for (auto [I, J] : V.FalsePairs)
    Fixes.insert(pairFix(L, L.Threads[I], L.Threads[J], R.LineSize, N, F));
  LV.Fixes.assign(Fixes.begin(), Fixes.end());
  return LV;
}

/// Latent false sharing: runs of bytes written by different threads, in
/// different lines but closer than a line, except objects that own their
/// lines (aligned and a whole number of lines: they cannot move onto one
/// line). Different globals get plan entries.
void findLatent(const RawReport &R, uint64_t MinAccesses, Namer &N,
                Findings &F) {
  for (const LatentPair &LP :
       latentPairs(writeRuns(R, MinAccesses), R.LineSize)) {
    Place PA = N.at(LP.A.End - 1), PB = N.at(LP.B.Start);
    if (PA.Sym && PB.Sym && PA.Sym != PB.Sym &&
        alignedAndPadded(PA.Sym, R.LineSize) &&
        alignedAndPadded(PB.Sym, R.LineSize))
      continue;
    if (PA.Sym && PA.Sym == PB.Sym && alignedAndPadded(PA.Sym, R.LineSize))
      continue;
    LatentView LV{N.range(LP.A.Start, LP.A.End),
                  N.range(LP.B.Start, LP.B.End),
                  LP.A.Tid,
                  LP.B.Tid,
                  LP.B.Start - LP.A.End,
                  ""};
    if (PA.Sym && PB.Sym && PA.Sym != PB.Sym) {
      std::string Reason =
          formatv("latent: written by different threads {0} bytes apart "
                  "({1} and {2})",
                  LV.Distance, PA.Sym->Name, PB.Sym->Name)
              .str();
      F.plan(PA.Sym, Reason, R.LineSize);
      F.plan(PB.Sym, Reason, R.LineSize);
      LV.Fix = formatv("align and pad {0} and {1} to {2} bytes (plan)",
                       PA.Sym->Name, PB.Sym->Name, R.LineSize)
                   .str();
    } else {
      LV.Fix = formatv("keep them {0} bytes apart or align the object to "
                       "{0}",
                       R.LineSize)
                   .str();
    }
    F.Latent.push_back(std::move(LV));
  }
}


std::string siteText(const SiteCount &S) {
  return formatv("{0}:{1}:{2} in {3}", sys::path::filename(S.File), S.Line,
                 S.Col, S.Function.empty() ? "?" : S.Function)
      .str();
}

/// --json: the header, the lines with their threads, sites and fixes, the
/// latent pairs.
void writeJSON(raw_ostream &OS, const ReportInput &In, const Findings &F) {
  const RawReport &R = In.R;
  json::OStream J(OS, 2);
  J.object([&] {
    J.attribute("report", In.Path);
    J.attribute("binary", In.BinPath);
    J.attribute("sample", R.Sample);
    J.attribute("threads", R.Threads);
    J.attribute("lines_seen", uint64_t(R.Lines.size()));
    J.attribute("dropped", R.DroppedLines + R.DroppedSlots);
    J.attributeArray("lines", [&] {
      for (const LineView &LV : F.Views)
        J.object([&] {
          J.attribute("sharing", sharingName(LV.Kind));
          J.attribute("line", formatv("{0:x}", LV.LinkAddr).str());
          J.attributeArray("objects", [&] {
            for (auto &O : LV.Objects)
              J.value(O);
          });
          J.attributeArray("threads", [&] {
            for (const ThreadView &T : LV.Threads)
              J.object([&] {
                J.attribute("thread", T.Tid);
                J.attribute("reads", T.Reads);
                J.attribute("writes", T.Writes);
                J.attribute("read_bytes", T.ReadBytes);
                J.attribute("write_bytes", T.WriteBytes);
                J.attributeArray("data", [&] {
                  for (auto &W : T.Written)
                    J.value(W);
                });
                J.attributeArray("sites", [&] {
                  for (const SiteCount &S : T.Sites)
                    J.object([&] {
                      J.attribute("file", S.File);
                      J.attribute("line", S.Line);
                      J.attribute("column", S.Col);
                      J.attribute("function", S.Function);
                      J.attribute("count", S.Count);
                    });
                });
              });
          });
          J.attributeArray("fixes", [&] {
            for (auto &Fix : LV.Fixes)
              J.value(Fix);
          });
        });
    });
    J.attributeArray("latent", [&] {
      for (const LatentView &L : F.Latent)
        J.object([&] {
          J.attribute("a", L.A);
          J.attribute("b", L.B);
          J.attribute("thread_a", L.TidA);
          J.attribute("thread_b", L.TidB);
          J.attribute("gap", L.Distance);
          J.attribute("fix", L.Fix);
        });
    });
  });
  OS << "\n";
}

/// The text report: a header, each shared line with its threads, sites and
/// fixes, the latent pairs, a summary.
void writeText(raw_ostream &OS, const ReportInput &In, const Findings &F) {
  const RawReport &R = In.R;
  OS << formatv("{0}: {1} threads, {2} lines touched, sampling 1/{3}, {4} "
                "records dropped\n",
                In.Path, R.Threads, R.Lines.size(), R.Sample,
                R.DroppedLines + R.DroppedSlots);
  for (const LineView &LV : F.Views) {
    OS << formatv("{0} sharing: line {1:x} ({2})\n", sharingName(LV.Kind),
                  LV.LinkAddr, join(LV.Objects, ", "));
    for (const ThreadView &T : LV.Threads) {
      OS << formatv("  thread {0}: writes bytes {1}, reads bytes {2}: {3} "
                    "writes, {4} reads: {5}\n",
                    T.Tid, T.WriteBytes, T.ReadBytes, T.Writes, T.Reads,
                    join(T.Written, ", "));
      for (const SiteCount &S : T.Sites)
        OS << formatv("    {0}: {1} accesses\n", siteText(S), S.Count);
    }
    for (auto &Fix : LV.Fixes)
      OS << "  fix: " << Fix << "\n";
  }
  for (const LatentView &L : F.Latent)
    OS << formatv("latent false sharing: {0} (thread {1}) and {2} (thread "
                  "{3}) are {4} bytes apart in different lines; another "
                  "placement puts them on one line; fix: {5}\n",
                  L.A, L.TidA, L.B, L.TidB, L.Distance, L.Fix);
  OS << formatv("summary: {0} false, {1} mixed, {2} true sharing lines, {3} "
                "latent pairs\n",
                F.Counts[unsigned(Sharing::False)],
                F.Counts[unsigned(Sharing::Mixed)],
                F.Counts[unsigned(Sharing::True)], F.Latent.size());
}


} // namespace

ReportInput::ReportInput() = default;
ReportInput::ReportInput(ReportInput &&) = default;
ReportInput &ReportInput::operator=(ReportInput &&) = default;
ReportInput::~ReportInput() = default;

void Findings::plan(const SymbolInfo *S, const std::string &Reason,
                    unsigned LineSize) {
  if (!S || !Planned.insert(S->Name).second)
    return;
  FalseSharingCandidate C;
  C.Name = S->Name;
  if (S->IsLocal)
    C.File = S->FileName;
  C.Align = LineSize;
  C.Reason = Reason;
  P.FalseSharing.push_back(C);
}

Expected<ReportInput> keel::fs::readReportInput(const ReportOptions &O) {
  if (O.Input.empty())
    return usageError("give the keelfs report to read");
  Expected<std::string> Text = readTextFile(O.Input);
  if (!Text)
    return Text.takeError();
  Expected<RawReport> RR = parseRawReport(*Text, O.Input);
  if (!RR)
    return RR.takeError();
  ReportInput In;
  In.Path = O.Input;
  In.R = std::move(*RR);
  In.BinPath = O.BinaryPath.empty() ? In.R.Exe : O.BinaryPath;
  if (In.BinPath.empty())
    return std::move(In);
  if (!O.BinaryPath.empty() || sys::fs::exists(In.BinPath)) {
    Expected<std::unique_ptr<Binary>> B = Binary::open(In.BinPath);
    if (!B)
      return B.takeError();
    In.Bin = std::move(*B);
  } else {
    In.BinaryMissing = true;
  }
  return std::move(In);
}

Findings keel::fs::findSharing(const ReportInput &In,
                               const ReportOptions &O) {
  Findings F;
  Namer N(In.R, In.Bin.get());
  for (const LineRecord &L : In.R.Lines) {
    LineVerdict V = classifyLine(L, O.MinAccesses);
    if (V.Kind == Sharing::None)
      continue;
    ++F.Counts[unsigned(V.Kind)];
    F.Views.push_back(lineView(L, V, In, N, F));
  }
  if (!O.NoLatent)
    findLatent(In.R, O.MinAccesses, N, F);
  return F;
}

void keel::fs::writeReport(raw_ostream &OS, const ReportInput &In,
                           const Findings &F, bool JSON) {
  if (JSON) {
    writeJSON(OS, In, F);
    return;
  }
  std::string Text; // global and field names: never raw control or bidi
  raw_string_ostream TS(Text);
  writeText(TS, In, F);
  OS << printableText(Text);
}

Error keel::fs::writePlanFile(StringRef Path, const ReportInput &In,
                              Findings &F) {
  F.P.Binary = In.BinPath;
  if (In.Bin)
    F.P.BuildID = In.Bin->buildID().str();
  return writeOutput(Path, [&](raw_ostream &OS) {
    writePlan(F.P, OS);
    return Error::success();
  });
}
