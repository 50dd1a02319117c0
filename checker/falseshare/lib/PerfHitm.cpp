//===- PerfHitm.cpp - HITM memory samples -> keelfs report -----------------===//
#include "keel/FalseShare/PerfHitm.h"
#include "keel/Profile/Binary.h"
#include "keel/Record/Recording.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/DebugInfo/DWARF/DWARFContext.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"

#include <linux/perf_event.h>

#include <map>
#include <optional>
#include <set>

using namespace llvm;

namespace keel::fs {

bool DataSource::isLoad() const { return op() & PERF_MEM_OP_LOAD; }
bool DataSource::isStore() const { return op() & PERF_MEM_OP_STORE; }

bool DataSource::hitm() const { return snoop() & PERF_MEM_SNOOP_HITM; }

bool DataSource::remoteHitm() const {
  return hitm() &&
         ((lvl() & (PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_REM_CCE2)) ||
          remote());
}

bool DataSource::peer() const { return snoopX() & PERF_MEM_SNOOPX_PEER; }

std::string DataSource::describe() const {
  if (!Raw)
    return "N/A";
  static const char *const Levels[] = {
      "N/A",        "hit",          "miss",           "L1",
      "LFB",        "L2",           "L3",             "Local RAM",
      "Remote RAM (1 hop)", "Remote RAM (2 hops)", "Remote Cache (1 hop)",
      "Remote Cache (2 hops)", "I/O", "Uncached"};
  SmallVector<std::string, 4> Where;
  unsigned L = lvl();
  for (unsigned B = 3; B < std::size(Levels); ++B)
    if (L & (1u << B))
      Where.push_back(Levels[B]);
  std::string Out = Where.empty() ? "N/A" : join(Where, " or ");
  if (L & PERF_MEM_LVL_HIT)
    Out += " hit";
  else if (L & PERF_MEM_LVL_MISS)
    Out += " miss";
  static const char *const Snoops[] = {"N/A", "None", "Hit", "Miss", "HITM"};
  unsigned S = snoop();
  for (unsigned B = 1; B < std::size(Snoops); ++B)
    if (S & (1u << B))
      Out += std::string(", snoop ") + Snoops[B];
  if (snoopX() & PERF_MEM_SNOOPX_FWD)
    Out += ", snoop forward";
  if (peer())
    Out += ", snoop peer";
  if (lock() & PERF_MEM_LOCK_LOCKED)
    Out += ", locked";
  return Out;
}

bool eventCountsOnlyHitm(StringRef Event) {
  std::string U = Event.upper();
  return StringRef(U).contains("XSNP_HITM") ||
         StringRef(U).contains("XSNP_FWD") || StringRef(U).contains("HITM");
}

namespace {

/// What the instruction at a sampled IP does to memory.
struct Access {
  unsigned Size = 1;
  bool Writes = false; ///< a load that also writes (read-modify-write)
  bool Known = false;
};

/// The operand width of an x86 opcode name ("INC32m", "ADD64mr",
/// "MOV8rm"): the first 8/16/32/64 after a letter; 0 if none.
unsigned widthFromName(StringRef Name) {
  for (size_t I = 1; I < Name.size(); ++I) {
    if (!isDigit(Name[I]) || isDigit(Name[I - 1]))
      continue;
    size_t J = I;
    while (J < Name.size() && isDigit(Name[J]))
      ++J;
    unsigned Bits = 0;
    if (Name.substr(I, J - I).getAsInteger(10, Bits))
      return 0;
    if (Bits == 8 || Bits == 16 || Bits == 32 || Bits == 64)
      return Bits / 8;
    return 0;
  }
  return 0;
}

class Sites {
public:
  explicit Sites(const Binary *B) : B(B) {
    if (B)
      Ctx = DWARFContext::create(B->object());
  }
  Access access(uint64_t LinkIP) {
    auto [It, New] = Accesses.try_emplace(LinkIP);
    if (!New || !B)
      return It->second;
    Expected<InstInfo> I = B->instructionAt(LinkIP);
    if (!I) {
      consumeError(I.takeError());
      return It->second;
    }
    Access &A = It->second;
    Error E = B->forEachInstruction(
        LinkIP, LinkIP + I->Size, [&](const InstInfo &, const MCInst &MI) {
          const MCInstrDesc &D = B->instrInfo().get(MI.getOpcode());
          A.Known = true;
          A.Writes = D.mayStore();
          if (unsigned W = widthFromName(B->instrInfo().getName(MI.getOpcode())))
            A.Size = W;
        });
    consumeError(std::move(E));
    return A;
  }
  SiteCount site(uint64_t LinkIP) {
    auto [It, New] = SiteCache.try_emplace(LinkIP);
    if (!New)
      return It->second;
    SiteCount &S = It->second;
    if (!B)
      return S;
    if (Ctx) {
      DILineInfoSpecifier Spec(
          DILineInfoSpecifier::FileLineInfoKind::AbsoluteFilePath,
          DILineInfoSpecifier::FunctionNameKind::ShortName);
      if (std::optional<DILineInfo> L = Ctx->getLineInfoForAddress(
              {LinkIP, object::SectionedAddress::UndefSection}, Spec)) {
        if (L->FileName != DILineInfo::BadString)
          S.File = L->FileName;
        if (L->FunctionName != DILineInfo::BadString)
          S.Function = L->FunctionName;
        S.Line = L->Line;
        S.Col = L->Column;
      }
    }
    if (S.Function.empty())
      if (const SymbolInfo *F = B->functionAt(LinkIP))
        S.Function = F->Name;
    return S;
  }

private:
  const Binary *B;
  std::unique_ptr<DWARFContext> Ctx;
  std::map<uint64_t, Access> Accesses;
  std::map<uint64_t, SiteCount> SiteCache;
};

/// Whether mapping \p M is the file of \p B.
bool isBinary(const Mapping &M, const Binary &B, StringRef BinReal) {
  if (!M.BuildID.empty() && !B.buildID().empty())
    return M.BuildID == B.buildID();
  SmallString<256> Tmp;
  if (!sys::fs::real_path(M.Path, Tmp))
    return Tmp.str() == BinReal;
  return sys::path::filename(M.Path) == sys::path::filename(B.path());
}

struct Slot {
  uint64_t RMask = 0, WMask = 0, Reads = 0, Writes = 0;
  std::map<std::pair<std::string, std::tuple<unsigned, unsigned, std::string>>,
           uint64_t>
      Sites; ///< (file, (line, col, function)) -> count
};

/// The program's process: the one that maps the binary (first mapping),
/// else the first that has samples.
struct ProgramProcess {
  std::optional<uint32_t> Pid;
  const Mapping *Text = nullptr; ///< the binary's executable mapping
};

ProgramProcess findProgramProcess(const PerfRecording &Rec,
                                  const Binary *Exe) {
  ProgramProcess P;
  if (Exe) {
    std::string BinReal;
    SmallString<256> Tmp;
    if (!sys::fs::real_path(Exe->path(), Tmp))
      BinReal = Tmp.str().str();
    for (const Mapping &M : Rec.Mappings)
      if ((M.Prot & 4) && isBinary(M, *Exe, BinReal)) {
        P.Text = &M;
        P.Pid = M.Pid;
        break;
      }
  }
  if (!P.Pid && !Rec.Samples.empty())
    P.Pid = Rec.Samples.front().Sample.Pid;
  return P;
}

/// The bytes of a \p LineSize line that an access of \p Size bytes at
/// offset \p Off touches (one that runs past the line: its bytes in this
/// line).
uint64_t lineMask(unsigned Off, unsigned Size, unsigned LineSize) {
  unsigned End = std::min<unsigned>(LineSize, Off + Size);
  return (End - Off == 64 ? ~uint64_t(0)
                          : ((uint64_t(1) << (End - Off)) - 1))
         << Off;
}

/// One thread's slot of a line as a report record, its sites most frequent
/// first; sites past the 4 a record holds are added to \p DroppedSites.
ThreadAccess threadAccess(unsigned T, const Slot &S, uint64_t &DroppedSites) {
  ThreadAccess TA;
  TA.Tid = T;
  TA.RMask = S.RMask;
  TA.WMask = S.WMask;
  TA.Reads = S.Reads;
  TA.Writes = S.Writes;
  for (auto &[Key, Count] : S.Sites) {
    SiteCount SC;
    SC.File = Key.first;
    SC.Line = std::get<0>(Key.second);
    SC.Col = std::get<1>(Key.second);
    SC.Function = std::get<2>(Key.second);
    SC.Count = Count;
    TA.Sites.push_back(std::move(SC));
  }
  // Most frequent first, as libkeelfs keeps them; the report format
  // holds 4 sites per record, the rest are counted as dropped.
  llvm::stable_sort(TA.Sites, [](const SiteCount &A, const SiteCount &B) {
    return A.Count > B.Count;
  });
  if (TA.Sites.size() > 4) {
    DroppedSites += TA.Sites.size() - 4;
    TA.Sites.resize(4);
  }
  return TA;
}

/// The program's memory samples, per cache line and thread (threads
/// numbered 1, 2, ... by their first sample).
class SampledLines {
public:
  SampledLines(const HitmOptions &Opts, HitmStats &Stats, const Binary *Exe,
               const ProgramProcess &Proc, uint64_t Bias)
      : Opts(Opts), Stats(Stats), Exe(Exe), Proc(Proc), Bias(Bias),
        SiteInfo(Exe) {}

  /// Count sample \p RS (when it is the program's and has a data address).
  void add(const RecordedSample &RS) {
    const RawSample &X = RS.Sample;
    if (Proc.Pid && X.Pid != *Proc.Pid) {
      ++Stats.OtherProcess;
      return;
    }
    if (!RS.Addr) {
      ++Stats.NoAddress;
      return;
    }
    ++Stats.Memory;
    DataSource DS(RS.DataSrc);
    Access A;
    std::optional<SiteCount> Site;
    if (inText(X.IP)) {
      A = SiteInfo.access(X.IP - Bias);
      Site = SiteInfo.site(X.IP - Bias);
    }
    bool Store = DS.isStore() && !DS.isLoad();
    bool Load = !Store;
    bool Write = Store || A.Writes;
    Stats.Loads += Load;
    Stats.Stores += Store;
    bool Hitm = Load && (Opts.EventIsHitm || DS.hitm() ||
                         (Opts.PeerIsHitm && DS.peer()));
    Stats.Hitm += Hitm;
    Stats.RemoteHitm += Hitm && DS.remoteHitm();
    addToSlot(RS, A, Site, Load, Write, Hitm);
  }

  /// The report's threads and lines: those with a HITM (with
  /// HitmOptions::AllLines, also those two or more threads touched).
  void writeTo(RawReport &R) {
    R.Threads = ThreadNo.size();
    Stats.Lines = Lines.size();
    Stats.HitmLines = HitmLines.size();
    for (auto &[Addr, Threads] : Lines) {
      if (!HitmLines.count(Addr) && !(Opts.AllLines && Threads.size() > 1))
        continue;
      LineRecord L;
      L.Addr = Addr;
      for (auto &[T, S] : Threads)
        L.Threads.push_back(threadAccess(T, S, R.DroppedSites));
      R.Lines.push_back(std::move(L));
    }
  }

private:
  bool inText(uint64_t IP) const {
    return Proc.Text ? Proc.Text->contains(IP) : Exe != nullptr;
  }

  /// Add the sample to its line's slot of its thread.
  void addToSlot(const RecordedSample &RS, const Access &A,
                 const std::optional<SiteCount> &Site, bool Load, bool Write,
                 bool Hitm) {
    const RawSample &X = RS.Sample;
    unsigned T = ThreadNo.try_emplace(X.Tid, ThreadNo.size() + 1).first->second;
    uint64_t Line = RS.Addr & ~uint64_t(Opts.LineSize - 1);
    unsigned Off = RS.Addr - Line;
    uint64_t Mask = lineMask(Off, A.Size, Opts.LineSize);
    uint64_t N = RS.Period ? RS.Period : 1;
    Slot &S = Lines[Line][T];
    if (Load) {
      S.RMask |= Mask;
      S.Reads += N;
    }
    if (Write) {
      S.WMask |= Mask;
      S.Writes += N;
    }
    if (Site)
      S.Sites[{Site->File, {Site->Line, Site->Col, Site->Function}}] += N;
    else
      S.Sites[{"", {0, 0, formatv("{0:x}", X.IP).str()}}] += N;
    if (Hitm)
      HitmLines.insert(Line);
  }

  const HitmOptions &Opts;
  HitmStats &Stats;
  const Binary *Exe;
  ProgramProcess Proc;
  uint64_t Bias;
  Sites SiteInfo;
  std::map<uint32_t, unsigned> ThreadNo; // tid -> 1, 2, ... by first sample
  std::map<uint64_t, std::map<unsigned, Slot>> Lines;
  std::set<uint64_t> HitmLines;
};

} // namespace

Expected<RawReport> hitmReport(const PerfRecording &Rec, const Binary *Exe,
                               StringRef ExePath, const HitmOptions &Opts,
                               HitmStats &Stats) {
  if (Opts.LineSize != 64)
    return createStringError("only 64-byte lines are supported");
  RawReport R;
  R.Exe = ExePath.str();
  Stats.Samples = Rec.Samples.size();
  ProgramProcess Proc = findProgramProcess(Rec, Exe);
  if (Proc.Text)
    R.Bias = Exe->loadBias(Proc.Text->Start, Proc.Text->PgOff);
  SampledLines Lines(Opts, Stats, Exe, Proc, R.Bias);
  for (const RecordedSample &RS : Rec.Samples)
    Lines.add(RS);
  Lines.writeTo(R);
  return R;
}

static void putEscaped(raw_ostream &OS, StringRef S) {
  if (S.empty()) {
    OS << '-';
    return;
  }
  for (unsigned char C : S) {
    if (C == '\\' || C <= ' ' || C >= 127)
      OS << format("\\x%02x", C);
    else
      OS << C;
  }
}

void writeRawReport(const RawReport &R, raw_ostream &OS) {
  OS << "keel-fs 1\nline-size " << R.LineSize << "\nsample " << R.Sample
     << "\nexe ";
  putEscaped(OS, R.Exe);
  OS << format("\nbias 0x%llx\n", (unsigned long long)R.Bias) << "threads "
     << R.Threads << "\ndropped " << R.DroppedLines << ' ' << R.DroppedSlots
     << ' ' << R.DroppedSites << '\n';
  // Counts are written unscaled: the reader multiplies by `sample`.
  const uint64_t Div = R.Sample ? R.Sample : 1;
  for (const LineRecord &L : R.Lines)
    for (const ThreadAccess &T : L.Threads) {
      OS << format("access 0x%llx %u 0x%016llx 0x%016llx %llu %llu\n",
                   (unsigned long long)L.Addr, T.Tid,
                   (unsigned long long)T.RMask, (unsigned long long)T.WMask,
                   (unsigned long long)(T.Reads / Div),
                   (unsigned long long)(T.Writes / Div));
      for (const SiteCount &S : T.Sites) {
        OS << "site " << S.Count / Div << ' ' << S.Line << ' ' << S.Col << ' ';
        putEscaped(OS, S.Function);
        OS << ' ';
        putEscaped(OS, S.File);
        OS << '\n';
      }
    }
  for (const HeapAlloc &A : R.Allocs) {
    OS << format("alloc 0x%llx %llu %u %u ", (unsigned long long)A.Start,
                 (unsigned long long)A.Size, A.Site.Line, A.Site.Col);
    putEscaped(OS, A.Site.Function);
    OS << ' ';
    putEscaped(OS, A.Site.File);
    OS << '\n';
  }
  OS << "end\n";
}

} // namespace keel::fs
