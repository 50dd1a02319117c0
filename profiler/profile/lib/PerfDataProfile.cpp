//===- PerfDataProfile.cpp - perf.data -> AddressProfile ------------------===//
//
// The native counterpart of `perf script -F pid,ip,brstack | readPerfScript`:
// samples are streamed from the mapped file (keel/Profile/PerfData.h) into
// the same aggregation the text reader uses, so the two give the same
// profile. The binary's mappings (MMAP/MMAP2 with execute permission) are
// recognised by the path --binary-path-in-profile names; else by build id
// -- the one the kernel put in the MMAP2 record, or the one HEADER_BUILD_ID
// gives for its path -- when both sides have one, whatever the paths; else
// by the file at the recorded path (the binary itself, or a file with its
// build id: a copy), or by the same file name when no file is there.
// A sample without a branch stack but with a callchain (perf record -g)
// adds its caller -> callee arcs, its frames mapped like its IP.
//
//===----------------------------------------------------------------------===//
#include "keel/Profile/Formats.h"
#include "keel/Profile/MappingMatch.h"
#include "keel/Profile/PerfData.h"

#include "BrstackAggregator.h"

#include "keel/Support/Text.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <linux/perf_event.h>
#include <optional>

using namespace llvm;

namespace keel {

namespace {

class PerfDataAggregator : public perfdata::Visitor, public BrstackAggregator {
public:
  PerfDataAggregator(const perfdata::File &F, const Binary *Bin,
                     QualityReport &Quality, const PerfScriptOptions &Opts)
      : BrstackAggregator(F.name(), Bin, Quality, Opts,
                          /*PosIsByteOffset=*/true),
        F(F) {
    if (Bin)
      Matcher.emplace(*Bin, Opts.BinaryPathInProfile);
  }

  Error mmap(const perfdata::Mmap &M) override {
    if (!Bin || !M.executable())
      return Error::success();
    if (!ExecMaps++)
      FirstMap = M.Offset;
    Maps[M.Pid][M.Start] = {M.Start + M.Length, M.Path.str()};
    if (isBinary(M)) {
      ++Matched;
      setBias(M.Pid, Bin->loadBias(M.Start, M.PgOff));
    }
    return Error::success();
  }

  Error task(const perfdata::Task &T) override {
    // A forked process has its parent's mappings (and no MMAP of them).
    if (Bin && T.Fork && T.Pid != T.PPid && !Maps.count(T.Pid)) {
      auto It = Maps.find(T.PPid);
      if (It != Maps.end())
        Maps[T.Pid] = It->second;
    }
    return Error::success();
  }

  Error sample(const perfdata::Sample &S) override {
    const uint64_t ST = S.Event->SampleType;
    const bool HavePid = ST & PERF_SAMPLE_TID;
    if (Opts.Pid && HavePid && S.Pid != Opts.Pid)
      return Error::success();
    uint64_t Bias = biasFor(S.Pid, HavePid);
    if (Bin && !S.NumBranches && !Code.contains(S.IP - Bias))
      ++OutsideIPsIn[mappingOf(S)];
    if (S.HasCallChain && !S.NumBranches)
      callChainOf(S, Bias);
    if (Opts.KeepSamples) {
      // Every sample is kept whole: count it at once.
      flush();
      CurPos = S.Offset + 1;
      Stack.clear();
      Chain C;
      for (uint64_t I = 0; I < S.NumBranches; ++I) {
        perfdata::Branch B = S.branch(I);
        Entry E{B.From,   B.To,      B.mispred(), B.predicted(),
                B.inTx(), B.abort(), B.cycles(),  StringRef()};
        aggregate(E, Bias, C);
        E.Type = perfdata::branchTypeName(B.type(), B.newType());
        Stack.push_back(E);
      }
      endSample(S.NumBranches, S.IP, ST & PERF_SAMPLE_IP, S.Pid, S.Tid,
                S.Event->Name, Bias, S.Time);
      return Error::success();
    }
    // Most table lookups miss the cache. So a sample is counted one sample
    // late: when it comes, its entries are mapped and the table slots they
    // will count into are prefetched, and the previous sample, whose slots
    // have had a sample's time to arrive, is counted.
    Staged &N = Stage[Next];
    N.Valid = true;
    N.Pos = S.Offset + 1;
    N.IP = S.IP;
    N.HaveIP = ST & PERF_SAMPLE_IP;
    N.Pid = S.Pid;
    N.Tid = S.Tid;
    N.Bias = Bias;
    N.Time = S.Time;
    N.Entries.clear();
    uint64_t NewerFrom = 0;
    for (uint64_t I = 0; I < S.NumBranches; ++I) {
      perfdata::Branch B = S.branch(I);
      uint64_t From = map(B.From, Bias), To = map(B.To, Bias);
      prefetch(From, To, NewerFrom);
      N.Entries.push_back({From, To, B.From, B.mispred()});
      NewerFrom = From;
    }
    Next ^= 1;
    countStaged(Stage[Next]);
    return Error::success();
  }

  /// Count the sample still staged (call after the last one): the one
  /// sample() staged last. The other stage was counted when that sample
  /// came.
  void flush() { countStaged(Stage[Next ^ 1]); }

  /// A file that maps code, none of it the binary, is a profile of
  /// something else (a file without mmap events is taken as it is). The
  /// message says which of build id and path did not match, and how.
  Error checkMapped() const {
    if (!Bin || !ExecMaps || Matched)
      return Error::success();
    std::vector<std::string> Why;
    auto Add = [&](const Miss &M, const char *Fmt) {
      if (M.N)
        Why.push_back(
            formatv(Fmt, M.N, printableMessage(M.Path), M.ID).str());
    };
    const bool Named = !Opts.BinaryPathInProfile.empty();
    if (Named && !NamedSeen)
      Why.push_back(formatv("none has the path {0} "
                            "(--binary-path-in-profile)",
                            printableMessage(Opts.BinaryPathInProfile))
                        .str());
    Add(NamedIdMiss, "{0} of the path {1} (--binary-path-in-profile) carry "
                     "build id {2}");
    Add(IdMiss, "{0} carry a build id, none this one (e.g. {1}: {2})");
    Add(FileIdMiss, "{0} carry none, and the files at their paths have other "
                    "build ids (e.g. {1}: {2})");
    Add(PathMiss, "{0} carry none, and neither their paths nor their file "
                  "names are this binary's (e.g. {1})");
    if (!Named && (FileIdMiss.N || PathMiss.N))
      Why.push_back("if one of those is this binary, give its recorded path "
                    "with --binary-path-in-profile=PATH");
    // A build id that differs says it is another build; paths alone do not.
    const bool ByIds = IdMiss.N || FileIdMiss.N || NamedIdMiss.N;
    return inputError(F.name(), 0,
                      "byte {0}: none of the {1} executable "
                      "mappings of this perf.data is {2} (build id {3}){4}: "
                      "{5}",
                      FirstMap, ExecMaps, Bin->path(),
                      Bin->buildID().empty() ? "unknown" : Bin->buildID(),
                      ByIds ? ": a profile of another program or build" : "",
                      join(Why, "; "));
  }

private:
  /// The arcs of \p S's callchain (a sample without branch stack).
  void callChainOf(const perfdata::Sample &S, uint64_t Bias) {
    Frames.clear();
    for (uint64_t I = 0; I < S.NumCallChain; ++I)
      Frames.push_back(S.callChain(I));
    const uint64_t Period =
        S.Event->SampleType & PERF_SAMPLE_PERIOD ? S.Period : 0;
    callChain(Frames, Period, [&](uint64_t A) { return map(A, Bias); });
  }

  struct MappedEntry {
    uint64_t From, To, RawFrom;
    bool Mispred;
  };
  /// A sample mapped and prefetched, not yet counted.
  struct Staged {
    bool Valid = false;
    uint64_t Pos = 0, IP = 0, Bias = 0, Time = 0;
    bool HaveIP = false;
    uint32_t Pid = 0, Tid = 0;
    SmallVector<MappedEntry, 32> Entries; ///< reused: no allocation per sample
  };

  void countStaged(Staged &P) {
    if (!P.Valid)
      return;
    P.Valid = false;
    CurPos = P.Pos;
    Chain C;
    for (const MappedEntry &E : P.Entries)
      count(E.From, E.To, E.RawFrom, E.Mispred, C);
    // The event name is only kept with the samples (not staged).
    endSample(P.Entries.size(), P.IP, P.HaveIP, P.Pid, P.Tid, StringRef(),
              P.Bias, P.Time);
  }

  /// perf's name of the mapping \p S fell into: its path,
  /// "[kernel.kallsyms]" for kernel code, "" for none.
  std::string mappingOf(const perfdata::Sample &S) const {
    const unsigned Mode = S.Misc & PERF_RECORD_MISC_CPUMODE_MASK;
    if (Mode == PERF_RECORD_MISC_KERNEL || Mode == PERF_RECORD_MISC_GUEST_KERNEL)
      return "[kernel.kallsyms]";
    auto P = Maps.find(S.Pid);
    if (P != Maps.end()) {
      auto It = P->second.upper_bound(S.IP);
      if (It != P->second.begin() && S.IP < std::prev(It)->second.first)
        return std::prev(It)->second.second;
    }
    // The upper half of the address space is the kernel's (x86-64, arm64).
    return S.IP >> 63 ? "[kernel.kallsyms]" : "";
  }

  /// Mappings that were not the binary, and why: how many, and the first.
  struct Miss {
    uint64_t N = 0;
    std::string Path, ID;
    void note(StringRef P, StringRef I) {
      if (!N++)
        Path = P.str(), ID = I.str();
    }
  };

  /// Is \p M a mapping of the binary? The rule of every recording reader
  /// (MappingMatch.h); a refusal is noted for the message that explains why
  /// no sample was the binary's.
  bool isBinary(const perfdata::Mmap &M) {
    using V = BinaryMappingMatcher::Verdict;
    StringRef ID = M.BuildID;
    if (ID.empty())
      ID = F.buildIDOf(M.Path);
    V Got = Matcher->match(M.Path, ID);
    if (!Opts.BinaryPathInProfile.empty() &&
        M.Path == Opts.BinaryPathInProfile)
      NamedSeen = true;
    switch (Got) {
    case V::NamedIDMiss:
      NamedIdMiss.note(M.Path, ID);
      break;
    case V::IDMiss:
      IdMiss.note(M.Path, ID);
      break;
    case V::FileIDMiss: {
      SmallString<256> Real;
      if (!sys::fs::real_path(M.Path, Real))
        FileIdMiss.note(M.Path, Matcher->buildIDOfFile(Real));
      break;
    }
    case V::PathMiss:
      PathMiss.note(M.Path, "");
      break;
    default:
      break;
    }
    return BinaryMappingMatcher::matches(Got);
  }

  const perfdata::File &F;
  Staged Stage[2];
  SmallVector<uint64_t, 128> Frames; ///< reused: no allocation per sample
  unsigned Next = 0; ///< the stage the next sample goes to
  std::optional<BinaryMappingMatcher> Matcher;
  uint64_t ExecMaps = 0, Matched = 0, FirstMap = 0;
  Miss IdMiss, FileIdMiss, PathMiss, NamedIdMiss;
  bool NamedSeen = false;
  /// Executable mappings per pid (widened: file data): start -> end, path.
  std::map<uint64_t, std::map<uint64_t, std::pair<uint64_t, std::string>>>
      Maps;
};

} // namespace

Expected<AddressProfile> readPerfData(StringRef Path, const Binary *Bin,
                                      QualityReport &Quality,
                                      const PerfScriptOptions &Opts) {
  auto F = perfdata::File::open(Path);
  if (!F)
    return F.takeError();
  return readPerfData(**F, Bin, Quality, Opts);
}

Expected<AddressProfile> readPerfData(perfdata::File &F, const Binary *Bin,
                                      QualityReport &Quality,
                                      const PerfScriptOptions &Opts) {
  PerfDataAggregator A(F, Bin, Quality, Opts);
  if (Error E = F.read(A))
    return std::move(E);
  A.flush();
  if (Error E = A.checkMapped())
    return std::move(E);
  return A.finish();
}

} // namespace keel
