//===- layout-falseshare.cpp - report false sharing found without a PMU ---===//
//
//   layout-falseshare report keelfs.out [--binary=app] [--json]
//       [--plan-out=fs.yaml] [--min-accesses=N] [-o file]
//   layout-falseshare record --source=perf [--event=E] [--period=N]
//       [-o perf-fs.out] -- program args...
//
// `record` is the path with hardware counters (perf c2c style): precise
// memory samples through keelRecord, loads that hit a line Modified in
// another core (HITM) mark the contended lines, and the samples become a
// report in libkeelfs's format for `report` (PerfHitm.h).
//
// Reads the report libkeelfs.so writes at exit (programs built with
// -fpass-plugin=KeelFalseSharing.so), classifies every cache line (false,
// true or mixed sharing), names the global and the field at each offset
// (symbol table + DWARF of the binary), lists source lines and access
// counts, predicts latent false sharing (data written by different threads
// closer than a line, in different lines only by the current placement),
// and writes plan `false-sharing:` entries for LayoutOpt.so.
//
//===----------------------------------------------------------------------===//
#include "keel/FalseShare/Fields.h"
#include "keel/FalseShare/PerfHitm.h"
#include "keel/FalseShare/Report.h"
#include "keel/Plan/Plan.h"
#include "keel/Profile/Binary.h"
#include "keel/Record/Recorder.h"
#include "keel/Record/RingBuffer.h"
#include "keel/Support/Diagnostics.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/Process.h"
#include "keel/Support/Tool.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"

#include <map>
#include <set>

using namespace llvm;
using namespace keel;
using namespace keel::fs;

static const char *Tool = "layout-falseshare";

static cl::SubCommand ReportCmd("report",
                                "classify the cache lines of a keelfs report");
static cl::OptionCategory Cat("layout-falseshare options");
static cl::opt<std::string> Input(cl::Positional, cl::desc("<keelfs.out>"),
                                  cl::sub(ReportCmd), cl::cat(Cat));
static cl::opt<std::string>
    BinaryPath("binary",
               cl::desc("the instrumented program (default: the report's "
                        "'exe' line)"),
               cl::value_desc("file"), cl::sub(ReportCmd), cl::cat(Cat));
static cl::opt<bool> JSON("json", cl::desc("print JSON instead of text"),
                          cl::sub(ReportCmd), cl::cat(Cat));
static cl::opt<std::string> Output("o", cl::desc("write the report here"),
                                   cl::value_desc("file"), cl::init("-"),
                                   cl::sub(ReportCmd), cl::cat(Cat));
static cl::opt<std::string>
    PlanOut("plan-out",
            cl::desc("write a plan whose false-sharing: entries name the "
                     "globals to align and pad (for LayoutOpt.so)"),
            cl::value_desc("fs.yaml"), cl::sub(ReportCmd), cl::cat(Cat));
static cl::opt<uint64_t> MinAccesses(
    "min-accesses",
    cl::desc("ignore a thread on a line with fewer accesses (default 100)"),
    cl::init(100), cl::sub(ReportCmd), cl::cat(Cat));
static cl::opt<bool> NoLatent("no-latent",
                              cl::desc("do not predict latent false sharing"),
                              cl::sub(ReportCmd), cl::cat(Cat));

static cl::SubCommand
    RecordCmd("record", "sample memory accesses with the PMU (HITM, as perf "
                        "c2c) and write a report for 'report'");
static cl::OptionCategory RecCat("layout-falseshare record options");
static cl::opt<std::string>
    RecSource("source",
              cl::desc("where the accesses come from: perf (hardware "
                       "memory sampling; the PMU-free path is the "
                       "KeelFalseSharing.so plugin)"),
              cl::init("perf"), cl::sub(RecordCmd), cl::cat(RecCat));
static cl::opt<std::string> RecEvent(
    "event",
    cl::desc("precise load event (libpfm4 name): the load-latency event "
             "(data source says HITM), or one that counts only HITM loads "
             "(MEM_LOAD_L3_HIT_RETIRED.XSNP_HITM; XSNP_FWD on Ice Lake and "
             "later)"),
    cl::init("MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=30"), cl::sub(RecordCmd),
    cl::cat(RecCat));
static cl::opt<uint64_t> RecPeriod("period",
                                   cl::desc("sample every N events"),
                                   cl::init(1000), cl::sub(RecordCmd),
                                   cl::cat(RecCat));
static cl::opt<bool> RecAllLines(
    "all-lines",
    cl::desc("keep every line two threads sampled, not only HITM lines"),
    cl::sub(RecordCmd), cl::cat(RecCat));
static cl::opt<bool>
    RecPeer("peer",
            cl::desc("count loads forwarded from a peer cache as HITM (Arm "
                     "SPE, AMD IBS data sources have no HITM)"),
            cl::sub(RecordCmd), cl::cat(RecCat));
static cl::opt<std::string> RecOutput("o",
                                      cl::desc("write the report here"),
                                      cl::value_desc("file"),
                                      cl::init("perf-fs.out"),
                                      cl::sub(RecordCmd), cl::cat(RecCat));
static cl::opt<std::string> RecReplay(
    "replay",
    cl::desc("parse perf records from this file (the kernel's ring-buffer "
             "layout for this tool's attributes) instead of running the "
             "program; the program names the binary"),
    cl::value_desc("file"), cl::sub(RecordCmd), cl::cat(RecCat));
static cl::opt<std::string> RecProgram(cl::Positional,
                                       cl::desc("<program>"),
                                       cl::sub(RecordCmd), cl::cat(RecCat));
static cl::list<std::string> RecArgs(cl::ConsumeAfter,
                                     cl::desc("<program arguments>..."),
                                     cl::sub(RecordCmd), cl::cat(RecCat));

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

struct ThreadView {
  uint32_t Tid;
  uint64_t Reads, Writes;
  std::string ReadBytes, WriteBytes;
  std::vector<std::string> Written; ///< names of written data
  std::vector<SiteCount> Sites;
};

struct LineView {
  uint64_t Addr, LinkAddr;
  Sharing Kind;
  std::vector<std::string> Objects;
  std::vector<ThreadView> Threads;
  std::vector<std::string> Fixes;
};

struct LatentView {
  std::string A, B;
  uint32_t TidA, TidB;
  uint64_t Distance; ///< bytes from the end of A to the start of B
  std::string Fix;
};

bool alignedAndPadded(const SymbolInfo *S, unsigned LineSize) {
  return S && S->Addr % LineSize == 0 && S->Size % LineSize == 0;
}

/// The report and, when it can be opened, the binary that names its
/// addresses.
struct ReportInput {
  RawReport R;
  std::unique_ptr<Binary> Bin;
  std::string BinPath; ///< --binary, else the report's `exe` line
};

/// What the report says: the shared lines, the latent pairs and the plan.
struct Findings {
  std::vector<LineView> Views;
  std::vector<LatentView> Latent;
  unsigned Counts[4] = {0, 0, 0, 0}; ///< shared lines by Sharing kind
  Plan P;
  std::set<std::string> Planned;

  /// A plan false-sharing: entry for global S (once per name: the first
  /// reason stays).
  void plan(const SymbolInfo *S, const std::string &Reason, unsigned LineSize) {
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
};

/// Reads and parses the report; opens the binary named by --binary (an
/// error if it cannot be opened) or by the report (only a warning when it is
/// missing: the report is still useful with addresses instead of names).
Expected<ReportInput> readReportInput() {
  if (Input.empty())
    return inputError("<command line>", 0, "give the keelfs report to read");
  Expected<std::string> Text = readWholeFile(Input);
  if (!Text)
    return Text.takeError();
  Expected<RawReport> RR = parseRawReport(*Text, Input);
  if (!RR)
    return RR.takeError();
  ReportInput In;
  In.R = std::move(*RR);
  In.BinPath = BinaryPath.empty() ? In.R.Exe : BinaryPath;
  if (In.BinPath.empty())
    return std::move(In);
  if (!BinaryPath.empty() || sys::fs::exists(In.BinPath)) {
    Expected<std::unique_ptr<Binary>> B = Binary::open(In.BinPath);
    if (!B)
      return B.takeError();
    In.Bin = std::move(*B);
  } else {
    WithColor::warning(errs(), Tool)
        << "binary '" << In.BinPath
        << "' not found; give --binary to name globals and fields\n";
  }
  return std::move(In);
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
void findLatent(const RawReport &R, Namer &N, Findings &F) {
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

/// Classifies every line (--min-accesses), then predicts latent pairs
/// unless --no-latent. Plan entries come in that order.
Findings analyse(const ReportInput &In) {
  Findings F;
  Namer N(In.R, In.Bin.get());
  for (const LineRecord &L : In.R.Lines) {
    LineVerdict V = classifyLine(L, MinAccesses);
    if (V.Kind == Sharing::None)
      continue;
    ++F.Counts[unsigned(V.Kind)];
    F.Views.push_back(lineView(L, V, In, N, F));
  }
  if (!NoLatent)
    findLatent(In.R, N, F);
  return F;
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
    J.attribute("report", Input);
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
                Input, R.Threads, R.Lines.size(), R.Sample,
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

/// --plan-out: the plan's false-sharing: entries, with the binary's path
/// and build id.
Error writePlanFile(const ReportInput &In, Findings &F) {
  F.P.Binary = In.BinPath;
  if (In.Bin)
    F.P.BuildID = In.Bin->buildID().str();
  return writeOutput(PlanOut, [&](raw_ostream &OS) {
    writePlan(F.P, OS);
    return Error::success();
  });
}

} // namespace

/// layout-falseshare report: read, analyse, write the report, then the plan.
static Error runReport() {
  Expected<ReportInput> In = readReportInput();
  if (!In)
    return In.takeError();
  Findings F = analyse(*In);
  if (Error E = writeOutput(Output, [&](raw_ostream &OS) -> Error {
        if (JSON)
          writeJSON(OS, *In, F);
        else
          writeText(OS, *In, F);
        return Error::success();
      }))
    return E;
  if (!PlanOut.empty())
    return writePlanFile(*In, F);
  return Error::success();
}

/// layout-falseshare record: returns the program's exit status on success.
static Expected<int> runRecord() {
  if (RecSource != "perf")
    return inputError("<command line>", 0,
                      "unknown --source={0} (only perf: without counters, "
                      "build with -fpass-plugin=KeelFalseSharing.so, "
                      "docs/false-sharing.md)",
                      RecSource);
  if (RecProgram.empty())
    return inputError("<command line>", 0,
                      "give the program to run: layout-falseshare record -- "
                      "./prog args");
  if (RecPeriod == 0)
    return inputError("<command line>", 0, "--period must be at least 1");
  Expected<std::string> Path = findProgram(RecProgram);
  if (!Path) {
    consumeError(Path.takeError());
    return inputError("<command line>", 0, "cannot find the program '{0}'",
                      RecProgram);
  }
  // The report's `exe` must name the binary from any directory.
  SmallString<256> Abs(*Path);
  if (!sys::fs::real_path(*Path, Abs))
    *Path = Abs.str().str();
  auto Bin = Binary::open(*Path);
  if (!Bin)
    return Bin.takeError();
  if (Error E = checkOutputPath(RecOutput))
    return std::move(E);

  RecordOptions Opts;
  Opts.Event = RecEvent;
  Opts.LBR = "none";
  Opts.Period = RecPeriod;
  Opts.Freq = 0;
  Opts.CyclesEvent = "";
  Opts.InstructionsEvent = "";
  Opts.DataMmaps = true;
  Opts.MemorySamples = true;
  RecordResult Result;
  RecordResult *R = &Result;
  if (!RecReplay.empty()) {
    Expected<std::string> Bytes = readWholeFile(RecReplay);
    if (!Bytes)
      return Bytes.takeError();
    RecordLayout L;
    L.SampleType = memorySampleType();
    L.ReadFormat = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
    L.SampleIdAll = true;
    L.EventName = RecEvent;
    RecordParser P(std::move(L));
    if (Error E = P.parse(ArrayRef<uint8_t>(
            reinterpret_cast<const uint8_t *>(Bytes->data()), Bytes->size())))
      return inputError(RecReplay, 0, "{0}", toString(std::move(E)));
    R->Rec = P.take();
  } else {
    // Bad options (exit 2) and a missing PMU (exit 3) before anything runs.
    if (Expected<EventGroup> G = buildEventGroup(Opts); !G)
      return G.takeError();
    std::vector<std::string> Argv{*Path};
    Argv.insert(Argv.end(), RecArgs.begin(), RecArgs.end());
    Expected<RecordResult> Live = record(Argv, Opts);
    if (!Live)
      return Live.takeError();
    Result = std::move(*Live);
  }

  HitmOptions HO;
  HO.EventIsHitm = eventCountsOnlyHitm(RecEvent);
  HO.PeerIsHitm = RecPeer;
  HO.AllLines = RecAllLines;
  HitmStats Stats;
  Expected<RawReport> Raw = hitmReport(R->Rec, Bin->get(), *Path, HO, Stats);
  if (!Raw)
    return Raw.takeError();
  if (Error E = writeOutput(RecOutput, [&](raw_ostream &OS) {
        writeRawReport(*Raw, OS);
        return Error::success();
      }))
    return std::move(E);
  errs() << formatv("{0}: {1} samples, {2} with a data address ({3} loads, "
                    "{4} stores), {5} HITM ({6} remote); {7} lines, {8} with "
                    "HITM; wrote {9}\n",
                    Tool, Stats.Samples, Stats.Memory, Stats.Loads,
                    Stats.Stores, Stats.Hitm, Stats.RemoteHitm, Stats.Lines,
                    Stats.HitmLines, RecOutput);
  if (R->Rec.Stats.LostEvents || R->Rec.Stats.LostSamples)
    WithColor::warning(errs(), Tool)
        << R->Rec.Stats.LostEvents + R->Rec.Stats.LostSamples
        << " samples lost by the kernel (try a larger --period)\n";
  if (R->Signal)
    return ExitCheckFailed;
  return R->ExitCode;
}

static const char *const Overview =
    "layout-falseshare: false sharing from KeelFalseSharing.so "
    "instrumentation (no PMU needed) or from HITM memory samples\n";

int main(int argc, char **argv) {
  return runTool(argc, argv, {Tool, Overview, {&Cat, &RecCat}},
                 []() -> Expected<int> {
                   if (ReportCmd)
                     return exitStatus(runReport());
                   if (RecordCmd)
                     return runRecord();
                   return inputError("<command line>", 0,
                                     "give a subcommand: report or record");
                 });
}
