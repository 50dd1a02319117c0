//===- BrstackAggregator.h - branch stacks -> AddressProfile ----*- C++ -*-===//
//
// Private to keelProfile. What the perf script text reader and the
// perf.data reader share once an LBR sample is decoded, so both build the
// same profile from the same samples, as perf2bolt does:
//  - every entry is a taken branch FROM->TO (count 1, mispredict if M);
//  - between two consecutive entries the CPU ran straight from the target
//    of the older one to the source of the newer one: the fall-through
//    range [TO of entry i+1, FROM of entry i];
//  - with a binary: addresses outside its code become 0 ("external", as in
//    perf2bolt); entries external at both ends and ranges with an external
//    end are dropped and counted; ranges that run backwards are counted;
//  - a sample without branch stack entries but with a callchain gives its
//    caller -> callee arcs (keel/Profile/CallChain.h), each once, weighted
//    by the sample's period.
// Counts go to flat hash maps (keel/Profile/FlatPairMap.h) and are moved,
// sorted, to the ordered maps of the model at the end. The load bias of the
// binary comes from its mmap events, per pid.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_PROFILE_BRSTACKAGGREGATOR_H
#define KEEL_PROFILE_BRSTACKAGGREGATOR_H

#include "keel/Profile/CallChain.h"
#include "keel/Profile/FlatPairMap.h"
#include "keel/Profile/Formats.h"
#include "keel/Profile/Binary.h"

#include "TextScan.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <map>
#include <string>

namespace keel {

struct BrstackEntry {
  uint64_t From, To;
  bool Mispred, Predicted, InTx, Abort;
  uint32_t Cycles;
  llvm::StringRef Type;
};

class BrstackAggregator {
public:
  using Entry = BrstackEntry;
  using AddrPair = std::pair<uint64_t, uint64_t>;

  BrstackAggregator(llvm::StringRef File, const Binary *Bin,
                    QualityReport &Quality, const PerfScriptOptions &Opts,
                    bool PosIsByteOffset = false)
      : File(File), Bin(Bin), Quality(Quality), Opts(Opts), Code(Bin),
        PosIsByte(PosIsByteOffset) {}

  /// State carried from one entry of a sample to the next (older) one.
  struct Chain {
    uint64_t NewerFrom = 0;
    bool HaveNewer = false;
  };

  /// The load bias for a sample of \p Pid.
  uint64_t biasFor(uint32_t Pid, bool HavePid) const {
    uint64_t Bias = LastBias;
    if (HavePid && !BiasByPid.empty()) {
      auto It = BiasByPid.find(Pid);
      if (It != BiasByPid.end())
        Bias = It->second;
    }
    return Bias;
  }
  /// An executable mapping of the binary in \p Pid.
  void setBias(uint32_t Pid, uint64_t Bias) {
    LastBias = Bias;
    BiasByPid[Pid] = Bias;
  }

  /// One entry of the current sample (newest first).
  void aggregate(const Entry &E, uint64_t Bias, Chain &Ch) {
    uint64_t From = map(E.From, Bias), To = map(E.To, Bias);
    count(From, To, E.From, E.Mispred, Ch);
  }

  /// aggregate() of an entry whose addresses are already mapped (From, To:
  /// map()'s results; \p RawFrom: the runtime source, for diagnostics).
  void count(uint64_t From, uint64_t To, uint64_t RawFrom, bool Mispred,
             Chain &Ch) {
    NumAddrs += 2;
    if (!FirstAddrPos) {
      FirstAddrPos = CurPos;
      FirstAddr = RawFrom;
    }
    if (From || To || !Bin) {
      // Loops repeat the same entry back to back: skip the hash lookup. The
      // cached pointer stays valid because every insertion refreshes it.
      AddrPair K{From, To};
      if (K != LastBranchKey || !LastBranch) {
        LastBranch = &Branches.get(From, To);
        LastBranchKey = K;
      }
      ++LastBranch->Count;
      LastBranch->Mispreds += Mispred;
      OneExternal += Bin && (!From || !To);
    } else {
      ++BothExternal;
    }
    // The CPU ran from this entry's target to the newer entry's source.
    if (Ch.HaveNewer && To && Ch.NewerFrom) {
      if (To <= Ch.NewerFrom) {
        AddrPair K{To, Ch.NewerFrom};
        if (K != LastRangeKey || !LastRange) {
          LastRange = &FallThroughs.get(To, Ch.NewerFrom);
          LastRangeKey = K;
        }
        ++*LastRange;
      } else {
        ++Backwards;
      }
    }
    Ch.NewerFrom = From;
    Ch.HaveNewer = true;
  }

  /// Start loading the table slots that count() of the mapped entry
  /// From->To, after an entry whose mapped source was \p NewerFrom (0:
  /// none), will touch. A caller that has a whole stack maps and prefetches
  /// all its entries, then counts them, so that their cache misses overlap
  /// instead of coming one after the other.
  void prefetch(uint64_t From, uint64_t To, uint64_t NewerFrom) const {
    Branches.prefetch(From, To);
    if (To && NewerFrom && To <= NewerFrom)
      FallThroughs.prefetch(To, NewerFrom);
  }

  /// The callchain of the current sample (newest first, as
  /// PERF_SAMPLE_CALLCHAIN holds it) whose frames \p Link maps to link-time
  /// addresses of the binary (0: elsewhere); \p Weight: the sample's period.
  /// With a binary, arcs join the functions' entries.
  void callChain(llvm::ArrayRef<uint64_t> Frames, uint64_t Weight,
                 llvm::function_ref<uint64_t(uint64_t)> Link) {
    ++NumCallChains;
    auto Key = [&](uint64_t A) -> uint64_t {
      uint64_t L = Link(A);
      if (!L || !Bin)
        return L;
      const SymbolInfo *F = Bin->functionAt(L);
      return F ? F->Addr : 0;
    };
    callChainArcs(Frames, Key, ChainPairs);
    for (const AddrPair &P : ChainPairs)
      addCount(ChainArcs.get(P.first, P.second), Weight ? Weight : 1);
  }

  /// Close a sample of \p N entries (kept in Stack when Opts.KeepSamples):
  /// an entry-less sample is an IP sample.
  void endSample(uint64_t N, uint64_t IP, bool HaveIP, uint32_t Pid,
                 uint32_t Tid, llvm::StringRef Event, uint64_t Bias,
                 uint64_t Time = 0) {
    ++NumSamples;
    NumEntries += N;
    if (N == 0) {
      uint64_t A = map(IP, Bias);
      ++NumAddrs;
      if (!FirstAddrPos) {
        FirstAddrPos = CurPos;
        FirstAddr = IP;
      }
      if (A)
        ++IPSamples.get(A, 0);
      else
        ++OutsideIPs;
    }
    if (Opts.KeepSamples) {
      RawSample R;
      R.IP = HaveIP ? IP - Bias : 0;
      R.Pid = Pid;
      R.Tid = Tid;
      R.Time = Time;
      R.Event = Event.str();
      R.Stack.reserve(Stack.size());
      for (const Entry &E : Stack) {
        LBREntry L;
        L.From = E.From - Bias;
        L.To = E.To - Bias;
        L.Mispred = E.Mispred;
        L.Predicted = E.Predicted;
        L.InTx = E.InTx;
        L.Abort = E.Abort;
        L.Cycles = E.Cycles;
        L.Type = E.Type.str();
        R.Stack.push_back(std::move(L));
      }
      Raw.push_back(std::move(R));
    }
  }

  /// Summarise quality and hand out the profile.
  llvm::Expected<AddressProfile> finish();
  /// ": 120 in /usr/lib/libc.so.6, 3 in [kernel.kallsyms], 2 unmapped" from
  /// OutsideIPsIn ("" when the reader did not say).
  std::string whereOutside() const;

protected:
  /// Link-time address of a runtime address, or 0 when it is outside the
  /// binary's code. Without a binary every address is kept as it is: the
  /// tables take any pair, ~0 included (FlatPairMap keeps (~0, ~0) beside
  /// its slots).
  uint64_t map(uint64_t A, uint64_t Bias) {
    A -= Bias;
    if (!Bin)
      return A;
    if (!Code.contains(A))
      return 0;
    ++InsideAddrs;
    return A;
  }

  llvm::StringRef File;
  const Binary *Bin;
  QualityReport &Quality;
  const PerfScriptOptions &Opts;
  textscan::CodeRanges Code;
  bool PosIsByte;
  /// Where the current sample is: its line (text) or byte offset (+1, so
  /// that 0 means "none").
  uint64_t CurPos = 0;

  FlatPairMap<BranchCount> Branches;
  FlatPairMap<uint64_t> FallThroughs;
  FlatPairMap<uint64_t> IPSamples; ///< keyed by (address, 0)
  FlatPairMap<uint64_t> ChainArcs; ///< (caller, callee) of callchains
  llvm::SmallVector<AddrPair, 32> ChainPairs; ///< one sample's, reused
  BranchCount *LastBranch = nullptr;
  uint64_t *LastRange = nullptr;
  AddrPair LastBranchKey, LastRangeKey;
  /// Keyed by the pid widened to 64 bits: a pid read from a file may be
  /// ~0u, DenseMap<uint32_t>'s empty key.
  llvm::DenseMap<uint64_t, uint64_t> BiasByPid;
  uint64_t LastBias = 0;
  llvm::SmallVector<Entry, 32> Stack;
  std::vector<RawSample> Raw;
  uint64_t NumSamples = 0, NumEntries = 0, InsideAddrs = 0, NumAddrs = 0;
  uint64_t OneExternal = 0, BothExternal = 0, Backwards = 0, FirstAddr = 0;
  uint64_t OutsideIPs = 0, NumCallChains = 0;
  /// Where the IP-only samples outside the binary's code fell, when the
  /// reader knows (perf.data: the mapping's path, "[kernel.kallsyms]" or
  /// "" for none), as perf names them.
  std::map<std::string, uint64_t> OutsideIPsIn;
  uint64_t FirstAddrPos = 0;
};

} // namespace keel

#endif
