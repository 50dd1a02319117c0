//===- Show.cpp - hottest functions and call edges of a profile -----------===//
//
// Address profiles (perf script, pre-aggregated, callgrind) are summarised
// with the model's functionStats/callEdges: executed instructions come from
// the fall-through ranges. fdata has no ranges; with --binary its executed
// instructions are BOLT's view (block counts from the edges entering each
// block, times the block's instructions), without it only the branch
// counts are known.
//
//===----------------------------------------------------------------------===//
#include "Show.h"

#include "keel/Profile/Binary.h"
#include "keel/Support/Diagnostics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"

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

} // namespace

Error showProfile(const LoadedProfile &LP, const Binary *Bin,
                  const ShowOptions &Opts, QualityReport &Quality,
                  raw_ostream &OS) {
  std::vector<FunctionStats> Funcs;
  std::vector<CallEdge> Edges;
  if (LP.Symbolic) {
    fdataStats(LP.Sym, Bin, Quality, Funcs, Edges);
  } else {
    if (!Bin)
      return inputError(Opts.InputName, 0,
                        "a {0} profile holds addresses: give the binary "
                        "with --binary",
                        formatName(LP.Format));
    auto S = functionStats(LP.Addr, *Bin, Quality);
    if (!S)
      return S.takeError();
    Funcs = std::move(*S);
    Edges = callEdges(LP.Addr, *Bin);
  }

  bool HaveInsts = any_of(Funcs, [](const FunctionStats &S) {
    return S.Instructions != 0;
  });
  std::string By = Opts.By.empty() ? (HaveInsts ? "instructions" : "samples")
                                   : Opts.By;
  auto Key = [&](const FunctionStats &S) {
    return By == "instructions" ? S.Instructions : S.Samples;
  };
  // Hottest first; ties by name so the order never depends on the input.
  llvm::stable_sort(Funcs, [&](const FunctionStats &A, const FunctionStats &B) {
    if (Key(A) != Key(B))
      return Key(A) > Key(B);
    return A.Name < B.Name;
  });
  llvm::stable_sort(Edges, [](const CallEdge &A, const CallEdge &B) {
    if (A.Count != B.Count)
      return A.Count > B.Count;
    return std::tie(A.Caller, A.Callee) < std::tie(B.Caller, B.Callee);
  });
  if (Funcs.size() > Opts.Top)
    Funcs.resize(Opts.Top);
  if (Edges.size() > Opts.Top)
    Edges.resize(Opts.Top);

  if (Opts.Json) {
    json::OStream J(OS, 2);
    J.object([&] {
      J.attribute("input", Opts.InputName);
      J.attribute("format", formatName(LP.Format));
      J.attribute("by", By);
      J.attributeArray("functions", [&] {
        for (const FunctionStats &S : Funcs)
          J.object([&] {
            J.attribute("name", S.Name);
            J.attribute("instructions", int64_t(S.Instructions));
            J.attribute("samples", int64_t(S.Samples));
            J.attribute("calls", int64_t(S.Calls));
          });
      });
      J.attributeArray("call_edges", [&] {
        for (const CallEdge &E : Edges)
          J.object([&] {
            J.attribute("caller", E.Caller);
            J.attribute("callee", E.Callee);
            J.attribute("count", int64_t(E.Count));
          });
      });
    });
    OS << '\n';
    return Error::success();
  }
  OS << "hottest functions by " << By << " (" << formatName(LP.Format)
     << " profile " << Opts.InputName << "):\n";
  OS << format("%16s %12s %10s  %s\n", "instructions", "samples", "calls",
               "function");
  for (const FunctionStats &S : Funcs)
    OS << format("%16llu %12llu %10llu  ", (unsigned long long)S.Instructions,
                 (unsigned long long)S.Samples, (unsigned long long)S.Calls)
       << S.Name << '\n';
  OS << "hottest call edges:\n";
  OS << format("%12s  %s\n", "count", "caller -> callee");
  for (const CallEdge &E : Edges)
    OS << format("%12llu  ", (unsigned long long)E.Count) << E.Caller << " -> "
       << E.Callee << '\n';
  return Error::success();
}

} // namespace keel
