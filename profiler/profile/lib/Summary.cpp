//===- Summary.cpp - hottest functions and call edges of a profile --------===//
//
// Address profiles (perf script, pre-aggregated, callgrind) are summarised
// with the model's functionStats/callEdges: executed instructions come from
// the fall-through ranges. fdata has no ranges; with --binary its executed
// instructions are BOLT's view (block counts from the edges entering each
// block, times the block's instructions), without it only the branch
// counts are known.
//
//===----------------------------------------------------------------------===//
#include "keel/Profile/Summary.h"

#include "keel/Profile/Binary.h"
#include "keel/Support/Diagnostics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"

#include <optional>

using namespace llvm;

namespace keel {

namespace {

/// Whether the fdata location \p L is a call instruction in \p Bin.
bool isCallSite(const Binary &Bin, const Location &L) {
  const SymbolInfo *F = Bin.functionByBoltName(L.Name);
  if (!F)
    return false;
  auto I = Bin.instructionAt(F->Addr + L.Offset);
  if (!I) {
    consumeError(I.takeError());
    return false;
  }
  return I->IsCall;
}

/// Functions and call edges from an fdata profile, by symbol name.
void fdataStats(const BranchProfile &P, const Binary *Bin,
                QualityReport &Quality, std::vector<FunctionStats> &Funcs,
                std::vector<CallEdge> &Edges) {
  std::map<std::string, FunctionStats> ByName;
  auto stats = [&](const std::string &Name) -> FunctionStats & {
    FunctionStats &S = ByName[Name];
    S.Name = Name;
    return S;
  };
  std::map<std::pair<std::string, std::string>, uint64_t> Calls;
  for (const auto &[K, C] : P.Branches) {
    const Location &From = K.first, &To = K.second;
    if (From.IsSymbol)
      stats(From.Name).Samples += C.Count;
    bool Entry = To.IsSymbol && To.Offset == 0;
    // A branch to its own function's entry is a recursive call only when
    // the source instruction is a call; otherwise it is a loop back to
    // offset 0. Without the binary it cannot be told apart, so it is left out.
    if (Entry && From.IsSymbol && From.Name == To.Name)
      Entry = Bin && isCallSite(*Bin, From);
    if (!Entry)
      continue;
    stats(To.Name).Calls += C.Count;
    if (From.IsSymbol)
      Calls[{From.Name, To.Name}] += C.Count;
  }
  for (const auto &[L, N] : P.Samples)
    if (L.IsSymbol)
      stats(L.Name).Samples += N;
  if (Bin) {
    for (const auto &[Name, N] : fdataExecutedInstructions(P, *Bin, Quality))
      stats(Name).Instructions += N;
    for (auto &[Name, S] : ByName)
      if (const SymbolInfo *F = Bin->functionByBoltName(Name)) {
        S.Addr = F->Addr;
        S.Size = F->Size;
      }
  }
  for (auto &[Name, S] : ByName)
    Funcs.push_back(std::move(S));
  for (const auto &[K, N] : Calls)
    Edges.push_back({K.first, K.second, N});
}

std::optional<HotRegionReport> hotRegionReport(const Binary &Bin,
                                               ArrayRef<FunctionStats> Funcs) {
  std::optional<uint64_t> Start, End;
  for (const object::SymbolRef &Sym : Bin.object().symbols()) {
    Expected<StringRef> Name = Sym.getName();
    Expected<uint64_t> Addr = Sym.getAddress();
    if (!Name || !Addr) {
      consumeError(Name.takeError());
      consumeError(Addr.takeError());
      continue;
    }
    if (*Name == "__keel_hot_text_start")
      Start = *Addr;
    else if (*Name == "__keel_hot_text_end")
      End = *Addr;
  }
  if (!Start || !End)
    return std::nullopt;
  HotRegionReport R;
  R.Start = *Start;
  R.End = *End;
  for (const FunctionStats &S : Funcs) {
    // Only code of this binary (fdata may name functions it cannot place).
    if (!S.Instructions || (!S.Addr && !S.Size))
      continue;
    StringRef Name(S.Name);
    if (S.Addr >= R.Start && S.Addr < R.End) {
      R.Inside += S.Instructions;
    } else if (Name.ends_with("@PLT") || Name.ends_with("@plt")) {
      R.PLT += S.Instructions;
    } else {
      R.Outside += S.Instructions;
      R.OutsideFunctions.push_back({S.Name, S.Instructions});
    }
  }
  llvm::stable_sort(R.OutsideFunctions, [](const auto &A, const auto &B) {
    if (A.second != B.second)
      return A.second > B.second;
    return A.first < B.first;
  });
  return R;
}

/// Every function and call edge of \p LP, by name.
Error collectStats(const LoadedProfile &LP, const Binary *Bin,
                   const ShowOptions &Opts, QualityReport &Quality,
                   ProfileSummary &S) {
  if (LP.Symbolic) {
    fdataStats(LP.Sym, Bin, Quality, S.Funcs, S.Edges);
    return Error::success();
  }
  if (!Bin)
    return inputError(Opts.InputName, 0,
                      "a {0} profile holds addresses: give the binary "
                      "with --binary",
                      formatName(LP.Format));
  auto Stats = functionStats(LP.Addr, *Bin, Quality);
  if (!Stats)
    return Stats.takeError();
  S.Funcs = std::move(*Stats);
  S.Edges = callEdges(LP.Addr, *Bin);
  return Error::success();
}

/// The functions and edges sorted hottest first (by --by, else by
/// instructions when known) and cut to --top.
void rankHottest(ProfileSummary &S, const ShowOptions &Opts, bool HaveInsts) {
  S.By = Opts.By.empty() ? (HaveInsts ? "instructions" : "samples") : Opts.By;
  auto Key = [&](const FunctionStats &F) {
    return S.By == "instructions" ? F.Instructions : F.Samples;
  };
  // Hottest first; ties by name so the order never depends on the input.
  llvm::stable_sort(S.Funcs, [&](const FunctionStats &A,
                                 const FunctionStats &B) {
    if (Key(A) != Key(B))
      return Key(A) > Key(B);
    return A.Name < B.Name;
  });
  llvm::stable_sort(S.Edges, [](const CallEdge &A, const CallEdge &B) {
    if (A.Count != B.Count)
      return A.Count > B.Count;
    return std::tie(A.Caller, A.Callee) < std::tie(B.Caller, B.Callee);
  });
  if (S.Funcs.size() > Opts.Top)
    S.Funcs.resize(Opts.Top);
  if (S.Edges.size() > Opts.Top)
    S.Edges.resize(Opts.Top);
}

} // namespace

void printProfileSummaryJSON(const ProfileSummary &S, const LoadedProfile &LP,
                             const ShowOptions &Opts, raw_ostream &OS) {
  json::OStream J(OS, 2);
  J.object([&] {
    J.attribute("input", Opts.InputName);
    J.attribute("format", formatName(LP.Format));
    J.attribute("by", S.By);
    J.attributeArray("functions", [&] {
      for (const FunctionStats &F : S.Funcs)
        J.object([&] {
          J.attribute("name", F.Name);
          J.attribute("instructions", int64_t(F.Instructions));
          J.attribute("samples", int64_t(F.Samples));
          J.attribute("calls", int64_t(F.Calls));
        });
    });
    J.attribute("call_graph_source", S.EdgeSource);
    J.attributeArray("call_edges", [&] {
      for (const CallEdge &E : S.Edges)
        J.object([&] {
          J.attribute("caller", E.Caller);
          J.attribute("callee", E.Callee);
          J.attribute("count", int64_t(E.Count));
        });
    });
    if (const std::optional<HotRegionReport> &Region = S.Region)
      J.attributeObject("hot_region", [&] {
        J.attribute("start", int64_t(Region->Start));
        J.attribute("end", int64_t(Region->End));
        J.attribute("instructions_inside", int64_t(Region->Inside));
        J.attribute("instructions_outside", int64_t(Region->Outside));
        J.attribute("instructions_plt", int64_t(Region->PLT));
        J.attributeArray("outside_functions", [&] {
          for (const auto &F : Region->OutsideFunctions)
            J.object([&] {
              J.attribute("name", F.first);
              J.attribute("instructions", int64_t(F.second));
            });
        });
      });
  });
  OS << '\n';
}

void printProfileSummary(const ProfileSummary &S, const LoadedProfile &LP,
                         const ShowOptions &Opts, raw_ostream &OS) {
  auto Percent = [](uint64_t Part, uint64_t Total) {
    return Total ? 100.0 * double(Part) / double(Total) : 0.0;
  };
  OS << "hottest functions by " << S.By << " (" << formatName(LP.Format)
     << " profile " << Opts.InputName << "):\n";
  OS << format("%16s %12s %10s  %s\n", "instructions", "samples", "calls",
               "function");
  for (const FunctionStats &F : S.Funcs)
    OS << format("%16llu %12llu %10llu  ", (unsigned long long)F.Instructions,
                 (unsigned long long)F.Samples, (unsigned long long)F.Calls)
       << F.Name << '\n';
  OS << "hottest call edges:\n";
  OS << format("%12s  %s\n", "count", "caller -> callee");
  for (const CallEdge &E : S.Edges)
    OS << format("%12llu  ", (unsigned long long)E.Count) << E.Caller << " -> "
       << E.Callee << '\n';
  OS << "call graph from: " << S.EdgeSource << '\n';
  if (const std::optional<HotRegionReport> &Region = S.Region) {
    uint64_t Total = Region->Inside + Region->Outside + Region->PLT;
    OS << format("executed instructions outside the planned hot region "
                 "[0x%llx, 0x%llx): %llu of %llu (%.3f%%); in PLT stubs: "
                 "%llu (%.3f%%)\n",
                 (unsigned long long)Region->Start,
                 (unsigned long long)Region->End,
                 (unsigned long long)Region->Outside,
                 (unsigned long long)Total, Percent(Region->Outside, Total),
                 (unsigned long long)Region->PLT, Percent(Region->PLT, Total));
    for (const auto &[Name, N] : Region->OutsideFunctions)
      OS << format("%16llu  ", (unsigned long long)N) << Name << '\n';
  }
}

Expected<ProfileSummary> summarizeProfile(const LoadedProfile &LP,
                                          const Binary *Bin,
                                          const ShowOptions &Opts,
                                          QualityReport &Quality) {
  ProfileSummary S;
  if (Error E = collectStats(LP, Bin, Opts, Quality, S))
    return std::move(E);
  S.EdgeSource = callGraphSourceName(LP);
  bool HaveInsts = any_of(S.Funcs, [](const FunctionStats &F) {
    return F.Instructions != 0;
  });
  // A binary linked with a Keel plan: how much executed code lies outside
  // its hot region (code the plan did not place, or cold parts that ran).
  if (Bin && HaveInsts)
    S.Region = hotRegionReport(*Bin, S.Funcs);
  if (S.Region && S.Region->OutsideFunctions.size() > Opts.Top)
    S.Region->OutsideFunctions.resize(Opts.Top);
  rankHottest(S, Opts, HaveInsts);
  return std::move(S);
}

} // namespace keel
