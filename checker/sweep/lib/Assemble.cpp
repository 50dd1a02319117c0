//===- Assemble.cpp - the result of a sweep ------------------------------===//
//
// Assemble.h: the sorted result and the checks that read the variants'
// binaries (their symbols) and counts.
//
//===----------------------------------------------------------------------===//
#include "Assemble.h"

#include "keel/Support/Diagnostics.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/Process.h"
#include "KeelSimSweep.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <set>

using namespace llvm;

namespace keel {
namespace sweep {

namespace {

/// The functions a binary defines (symbol-table names), to tell the
/// program's own code from libc's and ld.so's in the instruction check.
std::set<std::string> definedFunctions(StringRef Bin) {
  std::set<std::string> Names;
  Expected<object::OwningBinary<object::ObjectFile>> O =
      object::ObjectFile::createObjectFile(Bin);
  if (!O) {
    consumeError(O.takeError());
    return Names;
  }
  for (const object::SymbolRef &Sym : O->getBinary()->symbols()) {
    Expected<object::SymbolRef::Type> T = Sym.getType();
    Expected<uint32_t> Flags = Sym.getFlags();
    Expected<StringRef> Name = Sym.getName();
    if (!T || !Flags || !Name) {
      consumeError(T.takeError());
      consumeError(Flags.takeError());
      consumeError(Name.takeError());
      continue;
    }
    if (*T == object::SymbolRef::ST_Function &&
        !(*Flags & object::SymbolRef::SF_Undefined) && !Name->empty())
      Names.insert(Name->split('@').first.str());
  }
  return Names;
}

/// The address of every function a binary defines (name -> address).
std::map<std::string, uint64_t> functionAddresses(StringRef Bin) {
  std::map<std::string, uint64_t> Out;
  Expected<object::OwningBinary<object::ObjectFile>> O =
      object::ObjectFile::createObjectFile(Bin);
  if (!O) {
    consumeError(O.takeError());
    return Out;
  }
  for (const object::SymbolRef &Sym : O->getBinary()->symbols()) {
    Expected<object::SymbolRef::Type> T = Sym.getType();
    Expected<uint64_t> A = Sym.getAddress();
    Expected<StringRef> Name = Sym.getName();
    if (!T || !A || !Name) {
      consumeError(T.takeError());
      consumeError(A.takeError());
      consumeError(Name.takeError());
      continue;
    }
    if (*T == object::SymbolRef::ST_Function && *A && !Name->empty())
      Out.emplace(Name->str(), *A);
  }
  return Out;
}

/// The data axis must move data only. Compare each base variant's function
/// addresses with the first variant's and say where the pad moved code too
/// (a link that lays the padded data out before the code, docs/sweep.md).
/// \p Built: the base variants' binaries, still in the work directory.
void checkCodeMoved(SweepResult &R, const std::map<int64_t, std::string> &Built) {
  if (lookupAxis(R.Axis) != AxisKind::Data || Built.size() < 2)
    return;
  std::map<std::string, uint64_t> First = functionAddresses(Built.begin()->second);
  size_t Variants = 0;
  std::string Example;
  for (const auto &[Offset, Bin] : Built) {
    std::map<std::string, uint64_t> Here = functionAddresses(Bin);
    size_t Moved = 0;
    std::string Name;
    int64_t By = 0;
    for (const auto &[F, A] : First) {
      auto It = Here.find(F);
      if (It == Here.end() || It->second == A)
        continue;
      if (!Moved++) {
        Name = F;
        By = int64_t(It->second) - int64_t(A);
      }
    }
    if (!Moved)
      continue;
    if (!Variants++)
      Example = formatv("at offset {0}, {1} function{2} moved ({3} by {4} "
                        "bytes)",
                        Offset, Moved, Moved == 1 ? "" : "s", demangle(Name),
                        By)
                    .str();
  }
  if (!Variants)
    return;
  R.CodeMoved = formatv("the data pad moved code too in {0} of {1} "
                        "variants: {2}",
                        Variants, Built.size(), Example)
                    .str();
  R.Notes.push_back(R.CodeMoved +
                    "; the link lays the padded data out before the code, so "
                    "this axis mixes code and data effects");
}

/// Compare executed instructions across the variants of one series: totals,
/// and (sim) per function, split into the swept binary's own functions and
/// the rest. A program whose own code does different work in different
/// layouts is not layout-independent; libc and ld.so taking other paths
/// because the stack, environment or heap moved is expected.
void checkInstructions(SweepResult &R, std::vector<Measurement> &Ms,
                       StringRef Series, double Tolerance,
                       const std::set<std::string> &Own) {
  const Measurement *Lo = nullptr, *Hi = nullptr;
  bool PerFunction = true;
  for (const Measurement &M : Ms) {
    if (M.Failed || !M.Instructions)
      continue;
    if (!Lo || M.Instructions < Lo->Instructions)
      Lo = &M;
    if (!Hi || M.Instructions > Hi->Instructions)
      Hi = &M;
    PerFunction &= !M.FunctionInstructions.empty();
  }
  if (!Lo || Lo->Instructions == Hi->Instructions) {
    for (Measurement &M : Ms)
      M.FunctionInstructions.clear();
    return;
  }
  InstructionCheck C;
  C.Series = Series.str();
  C.Min = Lo->Instructions;
  C.Max = Hi->Instructions;
  C.MinOffset = Lo->V.Offset;
  C.MaxOffset = Hi->V.Offset;
  C.Tolerance = Tolerance;
  C.PerFunction = PerFunction && !Own.empty();
  if (C.PerFunction) {
    // Min and max count of every function over the variants (a function
    // missing from a variant ran 0 instructions there).
    std::map<std::string, std::pair<uint64_t, uint64_t>> Range;
    size_t Seen = 0;
    for (const Measurement &M : Ms) {
      if (M.Failed || !M.Instructions)
        continue;
      for (auto &[Name, MinMax] : Range)
        if (!M.FunctionInstructions.count(Name))
          MinMax.first = 0;
      for (const auto &[Name, N] : M.FunctionInstructions) {
        auto [It, New] = Range.try_emplace(Name, N, N);
        if (New && Seen)
          It->second.first = 0;
        It->second.first = std::min(It->second.first, N);
        It->second.second = std::max(It->second.second, N);
      }
      ++Seen;
    }
    for (const auto &[Name, MinMax] : Range) {
      if (MinMax.first == MinMax.second)
        continue;
      FunctionDiff F{demangle(Name), MinMax.first, MinMax.second};
      (Own.count(Name) ? C.Own : C.Other).push_back(std::move(F));
    }
  }
  R.InstructionsDiffer |=
      !C.Own.empty() || (!C.PerFunction && C.aboveTolerance());
  R.InstructionChecks.push_back(std::move(C));
  // The per-function counts were for this check; reports do not carry them.
  for (Measurement &M : Ms)
    M.FunctionInstructions.clear();
}

/// keel-sim's fallbacks as notes, one per reason, in variant order.
void fallbackNotes(const SweepResult &R, std::vector<std::string> &Notes) {
  std::vector<std::pair<std::string, std::vector<std::string>>> ByWhy;
  auto Add = [&](const std::vector<Measurement> &Ms) {
    for (const Measurement &M : Ms) {
      if (M.Fallback.empty())
        continue;
      auto It = llvm::find_if(ByWhy, [&](const auto &P) { return P.first == M.Fallback; });
      if (It == ByWhy.end())
        It = ByWhy.insert(ByWhy.end(), {M.Fallback, {}});
      It->second.push_back(M.V.key());
    }
  };
  Add(R.Ms);
  if (R.Compare)
    Add(R.Compare->Ms);
  for (auto &[Why, Keys] : ByWhy) {
    std::string List;
    for (size_t I = 0; I < Keys.size() && I < 8; ++I)
      List += (I ? ", " : "") + Keys[I];
    if (Keys.size() > 8)
      List += formatv(" and {0} more", Keys.size() - 8).str();
    Notes.push_back(formatv("keel-sim: {0} variant{1} ran on {2} own binary "
                            "({3}): {4}",
                            Keys.size(), Keys.size() == 1 ? "" : "s",
                            Keys.size() == 1 ? "its" : "their", List, Why)
                        .str());
  }
}

} // namespace

/// keel-sim measured a code or data sweep without maps: say why every pad
/// had its own run.
void noteOwnRuns(AxisKind Axis, const ExecutorOptions &X, SweepResult &R) {
  if (!keelSimMaps(Axis, X) &&
      (Axis == AxisKind::Code || Axis == AxisKind::Data))
    R.Notes.push_back("keel-sim: with --exec-as=path every variant has its "
                      "own argv[0], so each ran on its own binary "
                      "(--exec-as=fd lets one run serve every pad)");
}

/// Sort, split into series, refuse an all-failed sweep, check instructions.
/// \p Binaries: a variant's binary per series (for its symbols); without
/// one (every variant came from the journal) the binary as given.
Error finishResult(const SweepTarget &O, const PerturbOptions &P,
                   const MeasureOptions &M, const AssembleOptions &A,
                   std::vector<Measurement> Results,
                   std::map<std::string, std::string> Binaries,
                   const std::map<int64_t, std::string> &Built,
                   SweepResult &R) {
  R.Binary = O.Binary;
  R.Args = O.Args;
  R.Backend = name(M.Backend).str();
  R.Axis = axisName(P.Axis).str();
  R.Relink = P.RelinkTemplate;
  if (isSimBackend(M.Backend)) {
    // cachegrind or keel-sim: the same counters
    R.Backend = name(BackendKind::Sim).str();
    R.CacheGeometry = geometryText(M.Geometry);
    R.GeometryPreset = M.GeometryPreset;
    R.Weights = M.Weights;
  }
  llvm::sort(Results, [](const Measurement &A, const Measurement &B) {
    return A.V < B.V;
  });
  std::vector<Measurement> Compare;
  for (Measurement &M : Results)
    (M.V.Series == "base" ? R.Ms : Compare).push_back(std::move(M));
  if (O.CompareBinary)
    R.Compare = Series{"compare", *O.CompareBinary, std::move(Compare),
                       P.CompareRelinkTemplate};
  if (!R.Ms.empty() &&
      all_of(R.Ms, [](const Measurement &M) { return M.Failed; }))
    return makeError("every variant failed, so the program (or the relink "
                     "command) is broken, not its layout; first: {0}: {1}",
                     R.Ms.front().V.key(), R.Ms.front().FailReason);
  auto OwnFunctions = [&](StringRef Series, StringRef Given) {
    auto It = Binaries.find(Series.str());
    std::string Bin = It != Binaries.end() ? It->second : Given.str();
    return definedFunctions(Bin);
  };
  fallbackNotes(R, R.Notes);
  checkCodeMoved(R, Built);
  checkInstructions(R, R.Ms, "base", A.InstructionTolerance,
                    OwnFunctions("base", O.Binary));
  if (R.Compare)
    checkInstructions(R, R.Compare->Ms, "compare", A.InstructionTolerance,
                      OwnFunctions("compare", *O.CompareBinary));
  return Error::success();
}

} // namespace sweep
} // namespace keel
